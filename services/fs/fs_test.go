package fs

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
	"github.com/google/go-cmp/cmp"
)

const pluginID = "dev.escouade.notes"

// fixture is an agent's folders and a temp folder with a few files.
type fixture struct {
	agent, repo, temp string
	svc               *Service
}

func newFixture(t testing.TB, files ...string) *fixture {
	t.Helper()
	base := t.TempDir()
	f := &fixture{agent: filepath.Join(base, "agent"), repo: filepath.Join(base, "repo"), temp: filepath.Join(base, "temp")}
	for _, dir := range []string{f.agent, f.repo} {
		mustWrite(t, filepath.Join(dir, "notes.md"), "# notes")
		mustWrite(t, filepath.Join(dir, ".git", "config"), "[core]")
		mustWrite(t, filepath.Join(dir, "escouade-plugin.json"), "{}")
	}
	mustWrite(t, filepath.Join(base, "outside.txt"), "SECRET")
	if len(files) == 0 {
		files = []string{"agent", "agentRepo:ro", "temp"}
	}
	f.svc = New(Config{PluginID: pluginID, Granted: manifest.Permissions{Files: files}, TempDir: f.temp,
		Roots: func(id string) (AgentRoots, bool) {
			if id != "a1" {
				return AgentRoots{}, false
			}
			return AgentRoots{Agent: f.agent, Repo: f.repo}, true
		}})
	return f
}

func mustWrite(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) call(t *testing.T, method string, params any) (any, error) {
	t.Helper()
	raw, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return f.svc.Methods()[method](context.Background(), raw)
}

type refusal struct {
	Code   int64
	Reason string
}

func refusalOf(err error) refusal {
	var se *services.Error
	if errors.As(err, &se) {
		return refusal{se.Code, se.Reason}
	}
	if err != nil {
		return refusal{0, err.Error()}
	}
	return refusal{}
}

func at(root proto.FileRoot, path string) proto.FsPathParams {
	return proto.FsPathParams{Root: root, Path: proto.RelativePath(path), Agent: "a1"}
}

// TestReadWriteRoundTrip: the operations under a writable root.
func TestReadWriteRoundTrip(t *testing.T) {
	f := newFixture(t)
	steps := []struct {
		method string
		params any
		want   any
	}{
		{"fs/mkdir", at("agent", "out/deep"), nil},
		{"fs/write", proto.FsWriteParams{Root: "agent", Path: "out/deep/a.txt", Agent: "a1", Text: "héllo"}, nil},
		{"fs/read", at("agent", "out/deep/a.txt"), "héllo"},
		{"fs/read", at("agent", "./out/./deep/a.txt"), "héllo"},
		{"fs/list", at("agent", "out/deep"), proto.FsListResult{{Name: "a.txt", Size: 6}}},
		{"fs/list", at("agent", "out"), proto.FsListResult{{Name: "deep", Dir: true}}},
		{"fs/remove", at("agent", "out/deep/a.txt"), nil},
		{"fs/list", at("agent", "out/deep"), proto.FsListResult{}},
		{"fs/remove", at("agent", "out/deep"), nil},
		{"fs/mkdir", at("agent", "out"), nil},
		{"fs/read", at("agent", ".git/config"), "[core]"},
		{"fs/read", at("agent", "escouade-plugin.json"), "{}"},
		{"fs/write", proto.FsWriteParams{Root: "temp", Path: "cache.json", Text: "[]"}, nil},
		{"fs/read", proto.FsPathParams{Root: "temp", Path: "cache.json"}, "[]"},
		{"fs/list", proto.FsPathParams{Root: "temp", Path: "."}, proto.FsListResult{{Name: "cache.json", Size: 2}}},
	}
	for _, step := range steps {
		got, err := f.call(t, step.method, step.params)
		if err != nil {
			t.Fatalf("%s %+v: %v", step.method, step.params, err)
		}
		if diff := cmp.Diff(step.want, got); diff != "" {
			t.Errorf("%s %+v (-want +got):\n%s", step.method, step.params, diff)
		}
	}
	got, err := f.call(t, "fs/stat", at("agent", "notes.md"))
	st, _ := got.(proto.FsStatResult)
	if err != nil || st.Size != 7 || st.Dir || !strings.HasSuffix(st.Modified, "Z") {
		t.Errorf("fs/stat notes.md = %+v, %v", got, err)
	}
}

// TestRefusals: every path and root refusal, with its code and sentence.
func TestRefusals(t *testing.T) {
	f := newFixture(t)
	big := strings.Repeat("a", MaxReadBytes+1)
	mustWrite(t, filepath.Join(f.agent, "big.txt"), big)
	mustWrite(t, filepath.Join(f.agent, "bin.dat"), "\xff\xfe")
	mustWrite(t, filepath.Join(f.agent, "full", "x"), "x")
	mustWrite(t, filepath.Join(f.temp, ".hidden"), "h")
	tests := []struct {
		method string
		params any
		want   refusal
	}{
		{"fs/read", at("agent", "../outside.txt"), refusal{-32003, `agent "../outside.txt": a ".." segment`}},
		{"fs/read", at("agent", "/etc/passwd"), refusal{-32003, `agent "/etc/passwd": an absolute path`}},
		{"fs/read", at("agent", `a\b`), refusal{-32003, `agent "a\\b": a backslash in the path (use /)`}},
		{"fs/read", at("agent", "C:x"), refusal{-32003, `agent "C:x": a drive form`}},
		{"fs/read", at("agent", ""), refusal{-32003, `agent "": an empty path`}},
		{"fs/read", at("agent", "a//b"), refusal{-32003, `agent "a//b": an empty segment (// or a trailing /)`}},
		{"fs/read", at("agent", "CON"), refusal{-32003, `agent "CON": a Windows device name`}},
		{"fs/read", proto.FsPathParams{Root: "temp", Path: ".hidden"}, refusal{-32003, `temp ".hidden": a hidden name (starting with .)`}},
		{"fs/read", at("agentHome", "x"), refusal{-32003, `agentHome "x": the root agentHome is not in permissions.files of dev.escouade.notes`}},
		{"fs/read", proto.FsPathParams{Root: "agent", Path: "x"}, refusal{-32602, "params.agent is required for the root agent"}},
		{"fs/read", proto.FsPathParams{Root: "agent", Path: "x", Agent: "zz"}, refusal{-32003, `agent "x": no attached agent "zz"`}},
		{"fs/write", proto.FsWriteParams{Root: "agentRepo", Path: "notes.md", Agent: "a1", Text: "x"}, refusal{-32003, `agentRepo "notes.md": the root agentRepo is read-only (agentRepo:ro)`}},
		{"fs/remove", at("agentRepo", "notes.md"), refusal{-32003, `agentRepo "notes.md": the root agentRepo is read-only (agentRepo:ro)`}},
		{"fs/mkdir", at("agentRepo", "d"), refusal{-32003, `agentRepo "d": the root agentRepo is read-only (agentRepo:ro)`}},
		{"fs/read", at("agent", "nope.txt"), refusal{-32005, `agent "nope.txt": no such file`}},
		{"fs/read", at("agent", "notes.md/x"), refusal{-32005, `agent "notes.md/x": no such file`}},
		{"fs/write", proto.FsWriteParams{Root: "agent", Path: "no/such/dir.txt", Agent: "a1", Text: "x"}, refusal{-32004, `agent "no/such/dir.txt": its folder does not exist (fs/mkdir makes it)`}},
		{"fs/read", at("agent", "big.txt"), refusal{-32004, `agent "big.txt": over the limit of 8388608 bytes (8 MiB)`}},
		{"fs/read", at("agent", "bin.dat"), refusal{-32004, `agent "bin.dat": not valid UTF-8`}},
		{"fs/read", at("agent", "full"), refusal{-32004, `agent "full": a folder, not a file`}},
		{"fs/write", proto.FsWriteParams{Root: "agent", Path: "full", Agent: "a1", Text: "x"}, refusal{-32004, `agent "full": a folder, not a file`}},
		{"fs/list", at("agent", "notes.md"), refusal{-32004, `agent "notes.md": not a folder`}},
		{"fs/remove", at("agent", "full"), refusal{-32004, `agent "full": a folder that is not empty`}},
		{"fs/remove", at("agent", "."), refusal{-32003, `agent ".": the root itself`}},
		{"fs/mkdir", at("agent", "notes.md"), refusal{-32004, `agent "notes.md": a file is in the way`}},
		{"fs/read", map[string]any{"root": "agent", "path": "x", "agent": "a1", "extra": 1}, refusal{-32602, `params do not hold: json: unknown field "extra"`}},
	}
	for _, tt := range tests {
		_, err := f.call(t, tt.method, tt.params)
		if diff := cmp.Diff(tt.want, refusalOf(err)); diff != "" {
			t.Errorf("%s %+v (-want +got):\n%s", tt.method, tt.params, diff)
		}
	}
	got, err := f.call(t, "fs/list", proto.FsPathParams{Root: "temp", Path: "."})
	if err != nil || len(got.(proto.FsListResult)) != 0 {
		t.Errorf("fs/list temp shows hidden names: %v %v", got, err)
	}
}

// FuzzRootPath: whatever the path, fs/read never hands out a file outside
// its root.
func FuzzRootPath(f *testing.F) {
	for _, seed := range []string{"notes.md", "../outside.txt", ".git/config", "./notes.md", "a/../../outside.txt", "%2e%2e/outside.txt", "..\\outside.txt", "link"} {
		f.Add(seed)
	}
	fx := newFixture(f)
	f.Fuzz(func(t *testing.T, path string) {
		got, err := fx.call(t, "fs/read", at("agent", path))
		if err == nil && strings.Contains(got.(string), "SECRET") {
			t.Fatalf("fs/read %q read the file outside the root", path)
		}
	})
}
