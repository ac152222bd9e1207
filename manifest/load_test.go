package manifest

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const gooseDir = "testdata/goose"

// gooseSummary is what the host and the harness read from the Goose
// manifest (docs/harness.md).
type gooseSummary struct {
	ID, NameFR, DescriptionFR, DescriptionDE, Min string
	Speaker, AccountVar, Update                   string
	Names, VersionArgs, ModeIDs, Args             []string
	Tested                                        Tested
	DefaultMeaningEN                              string
	ReadOnly, Images, Described, FS, Questions    bool
	ACPModes, Tools                               map[string]string
	ReadOnlyMode, ModelOption                     string
}

func summarizeGoose(m *Manifest, h *Harness) gooseSummary {
	var modeIDs []string
	for _, mode := range h.Caps.Modes {
		modeIDs = append(modeIDs, mode.ID)
	}
	return gooseSummary{
		ID: m.ID, NameFR: m.Name.In("fr"), DescriptionFR: m.Description.In("fr"),
		DescriptionDE: m.Description.In("de"), Min: m.Escouade.Min,
		Speaker: h.Speaker.In("fr"), AccountVar: h.AccountVar, Update: h.UpdateCommand,
		Names: h.Locate.Names, VersionArgs: h.VersionArgs(), ModeIDs: modeIDs, Args: h.ACP.Args,
		Tested: h.Tested, DefaultMeaningEN: h.Caps.Modes[0].Meaning.In("en"),
		ReadOnly: h.Caps.Has("readOnly"), Images: h.Caps.Has("images"), Described: h.Described(),
		FS: h.ACP.FS(), Questions: h.ACP.QuestionsInText, ACPModes: h.ACP.Modes, Tools: h.ACP.Tools,
		ReadOnlyMode: h.ACP.ReadOnlyMode, ModelOption: h.ACP.ModelOption,
	}
}

func TestLoadGoose(t *testing.T) {
	m, err := Load(gooseDir, LoadOptions{AppVersion: "2.2.0"})
	if err != nil {
		t.Fatal(err)
	}
	h, ok := m.Harness("goose")
	if !ok {
		t.Fatal(`Harness("goose") not found`)
	}
	want := gooseSummary{
		ID: "dev.escouade.goose", NameFR: "Goose",
		DescriptionFR: "Goose, l'agent open source de Block, comme harness : décrit par ACP, sans code.",
		DescriptionDE: "Goose, Block's open source agent, as a harness: described over ACP, no code.",
		Min:           "2.1.0", Speaker: "Goose", AccountVar: "GOOSE_PATH_ROOT", Update: "goose update",
		Names: []string{"goose"}, VersionArgs: []string{"--version"},
		ModeIDs: []string{"default", "acceptEdits", "bypassPermissions"}, Args: []string{"acp"},
		Tested:           Tested{Oldest: "1.57.0", Newest: "1.57.0"},
		DefaultMeaningEN: "Goose asks before each tool (its approve mode). It writes files by itself, without passing them through Escouade.",
		ReadOnly:         true, Described: true, Questions: true,
		ACPModes:     map[string]string{"default": "approve", "acceptEdits": "smart_approve", "bypassPermissions": "auto"},
		Tools:        map[string]string{"shell": "Bash", "write": "Write", "edit": "Edit", "text_editor": "Edit", "read": "Read", "tree": "Glob"},
		ReadOnlyMode: "chat", ModelOption: "model",
	}
	if diff := cmp.Diff(want, summarizeGoose(m, h)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if abs, _ := filepath.Abs(gooseDir); m.Dir != abs {
		t.Errorf("Dir = %q, want %q", m.Dir, abs)
	}
	if _, ok := m.Harness("claude"); ok {
		t.Error(`Harness("claude") found in the Goose manifest`)
	}
}

func TestLoadGooseRefusedByAnOlderApp(t *testing.T) {
	_, err := Load(gooseDir, LoadOptions{AppVersion: "2.0.5"})
	want := filepath.Join(gooseDir, FileName) + ": /escouade/min: the plugin needs Escouade 2.1.0 or newer; " +
		"this is Escouade 2.0.5 (fix: update Escouade to 2.1.0 or newer)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func TestManifestRoundTrip(t *testing.T) {
	sources := map[string][]byte{
		"goose":   readFile(t, filepath.Join(gooseDir, FileName)),
		"minimal": []byte(minimalManifest),
		"full": manifestWith(t,
			set("/run", `{"command":["./bin/plugin"]}`),
			set("/activation", `["event:ticket.column","onCall"]`),
			set("/permissions", `{"secrets":["webhook","account:*"],"network":["slack.com"],"files":["temp"],"programs":["git"]}`),
			set("/limits", `{"netTimeoutMs":30000,"netMaxBytes":2097152}`),
			set("/contributes/settings", `{"level":{"type":"enum","enum":["low","high"],"default":"low","label":{"fr":"Niveau","en":"Level"},"later":[1]}}`),
			set("/contributes/commands", `[{"id":"x","title":"X"}]`),
			set("/contributes/harnesses", `[{"id":"h","name":"H","locate":{"names":["h"]},"x-note":"kept",
				"caps":{"modes":["default",{"id":"bypassPermissions","meaning":"all"}],"images":true,"pdf":false},
				"models":[{"id":"m","label":"M"}],"acp":{"fs":true,"extensions":["cursor"],"future":{"a":[1,2]}}}]`),
		),
	}
	for name, data := range sources {
		t.Run(name, func(t *testing.T) {
			first, err := Parse(data, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			out, err := json.Marshal(first)
			if err != nil {
				t.Fatal(err)
			}
			second, err := Parse(out, LoadOptions{})
			if err != nil {
				t.Fatalf("Parse of its own output %s:\n%v", out, err)
			}
			if diff := cmp.Diff(first, second); diff != "" {
				t.Errorf("after a round trip (-want +got):\n%s", diff)
			}
			assertSameJSON(t, data, out)
		})
	}
}

// assertSameJSON checks that two documents hold the same values, whatever
// their member order and spacing.
func assertSameJSON(t *testing.T, want, got []byte) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("written JSON (-want +got):\n%s", diff)
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestLoadRefusesFiles(t *testing.T) {
	root := t.TempDir()
	emptyDir := filepath.Join(root, "empty")
	mustMkdir(t, emptyDir)
	asFolder := filepath.Join(root, "folder")
	mustMkdir(t, filepath.Join(asFolder, FileName))
	aFile := filepath.Join(root, "file.json")
	mustWrite(t, aFile, minimalManifest)
	big := filepath.Join(root, "big")
	mustMkdir(t, big)
	mustWrite(t, filepath.Join(big, FileName), minimalManifest+strings.Repeat(" ", 100))
	broken := filepath.Join(root, "broken")
	mustMkdir(t, broken)
	mustWrite(t, filepath.Join(broken, FileName), `{"id":`)

	tests := []struct {
		name     string
		dir      string
		opts     LoadOptions
		message  string
		notExist bool
	}{
		{"missing manifest", emptyDir, LoadOptions{}, "no such file: a plugin folder needs escouade-plugin.json at its root", true},
		{"missing folder", filepath.Join(root, "nope"), LoadOptions{}, "the plugin folder " + filepath.Join(root, "nope") + " does not exist", true},
		{"the manifest given as the folder", aFile, LoadOptions{}, aFile + " is a file, not a plugin folder", false},
		{"manifest is a folder", asFolder, LoadOptions{}, "is a directory; the host reads only regular files", false},
		{"manifest too large", big, LoadOptions{MaxSize: 100}, "the file is 180 bytes; the limit is 100 bytes", false},
		{"manifest not JSON", broken, LoadOptions{}, "the file is not JSON", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.dir, tt.opts)
			problems := problemsOf(t, err)
			if len(problems) != 1 || !strings.HasPrefix(problems[0].Message, tt.message) || problems[0].Fix == "" {
				t.Fatalf("got %v, want one problem %q with a fix", err, tt.message)
			}
			if file := err.(*Error).File; file != filepath.Join(tt.dir, FileName) {
				t.Errorf("File = %q, want the manifest's path", file)
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tt.notExist {
				t.Errorf("errors.Is(err, fs.ErrNotExist) = %v, want %v", got, tt.notExist)
			}
		})
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
