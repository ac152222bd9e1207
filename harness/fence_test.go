package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

func TestFence(t *testing.T) {
	w := newWorld(t)
	inner := filepath.Join(w.fence, "inner")
	writeFile(t, filepath.Join(inner, "x"), "x")
	if err := os.Symlink(w.fence, filepath.Join(w.out, "to-fence")); err != nil {
		t.Fatal(err)
	}
	fence, err := NewFence(w.dir, []string{w.fence})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string // "" allowed, else a part of the error
	}{
		{filepath.Join(w.dir, "a"), ""},
		{filepath.Join(w.out, "new", "deep", "file"), ""},
		{w.fence, "another private project"},
		{filepath.Join(inner, "x"), "another private project"},
		{filepath.Join(inner, "not", "yet"), "another private project"},
		{filepath.Join(w.out, "to-fence", "inner", "x"), "another private project"},
		{w.fence + "-sibling/file", ""},
		{w.dir + "/../fenced/./inner", "another private project"},
		{"relative/path", "not an absolute path"},
		{"", "not an absolute path"},
	}
	for _, tt := range tests {
		_, err := fence.Check(tt.path)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if tt.want == "" && err != nil || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("Check(%q) = %v, want %q", tt.path, err, tt.want)
		}
	}
	own, _ := NewFence(inner, []string{w.fence})
	if _, err := own.Check(filepath.Join(w.fence, "sibling-of-inner")); err != nil {
		t.Errorf("the agent's own private project is fenced off: %v", err)
	}
	diff(t, "in a private project", []bool{false, true}, []bool{fence.InPrivateProject(), own.InPrivateProject()})
}

func FuzzFenceCheck(f *testing.F) {
	root := f.TempDir()
	own, fenced := filepath.Join(root, "own"), filepath.Join(root, "fenced")
	os.MkdirAll(own, 0o755)
	os.MkdirAll(fenced, 0o755)
	fence, err := NewFence(own, []string{fenced})
	if err != nil {
		f.Fatal(err)
	}
	f.Add("/fenced/a")
	f.Add("/own/../fenced/x")
	f.Add("/./fenced")
	f.Add("/fencedx/y")
	f.Fuzz(func(t *testing.T, rel string) {
		path := root + "/" + rel
		resolved, err := fence.Check(path)
		if err != nil {
			return
		}
		if within(resolved, fenced) {
			t.Fatalf("%q passed the fence as %q", path, resolved)
		}
	})
}

func TestVersions(t *testing.T) {
	parse := []struct{ out, want string }{
		{"goose 1.57.0\n", "1.57.0"}, {"v2.3 (build 7)", "2.3"}, {"tool 1.2.3-rc.1 extra", "1.2.3-rc.1"}, {"no version", ""},
	}
	for _, tt := range parse {
		got, _ := ParseVersion(tt.out)
		diff(t, tt.out, tt.want, got)
	}
	tested := manifest.Tested{Oldest: "1.57.0", Newest: "1.57.0"}
	notices := []struct {
		version string
		tested  manifest.Tested
		want    string
	}{
		{"1.60.0", tested, "Goose 1.60.0 has not been tried with this plugin (tried: 1.57.0)"},
		{"1.57.0", tested, ""},
		{"1.56.9", tested, "Goose 1.56.9 has not been tried with this plugin (tried: 1.57.0)"},
		{"1.57.0-rc.1", tested, "Goose 1.57.0-rc.1 has not been tried with this plugin (tried: 1.57.0)"},
		{"1.58.0", manifest.Tested{Oldest: "1.50.0"}, ""},
		{"1.49.0", manifest.Tested{Oldest: "1.50.0"}, "Goose 1.49.0 has not been tried with this plugin (tried: 1.50.0 and later)"},
		{"9.0.0", manifest.Tested{}, ""},
	}
	for _, tt := range notices {
		diff(t, tt.version, tt.want, TestedNotice("Goose", tt.version, tt.tested))
	}
}

func FuzzParseVersion(f *testing.F) {
	f.Add("goose 1.57.0")
	f.Fuzz(func(t *testing.T, out string) {
		v, ok := ParseVersion(out)
		if ok && !strings.Contains(out, v) {
			t.Fatalf("%q is not in %q", v, out)
		}
		compareVersions(v, "1.0.0")
	})
}

func TestAgentEnv(t *testing.T) {
	h := &manifest.Harness{AccountVar: "GOOSE_PATH_ROOT", ACP: &manifest.ACP{
		Env: map[string]string{"B": "2", "A": "1", "EMPTY": ""}, RemoveEnv: []string{"ANTHROPIC_API_KEY"},
	}}
	app := []string{"PATH=/bin", "ANTHROPIC_API_KEY=sk", "A=app", "EMPTY=app", "GOOSE_PATH_ROOT=/old"}
	diff(t, "with an account", []string{"PATH=/bin", "A=1", "B=2", "EMPTY=", "GOOSE_PATH_ROOT=/accounts/me"}, agentEnv(app, h, "/accounts/me"))
	diff(t, "without", []string{"PATH=/bin", "GOOSE_PATH_ROOT=/old", "A=1", "B=2", "EMPTY="}, agentEnv(app, h, ""))
}

func TestReadLines(t *testing.T) {
	input := "one\n\n" + strings.Repeat("x", 100) + "\ntwo\r\nlast"
	out := make(chan line, 10)
	readLines(strings.NewReader(input), 50, out)
	close(out)
	var got []string
	for l := range out {
		if l.dropped > 0 {
			got = append(got, "dropped")
			continue
		}
		got = append(got, strings.TrimRight(string(l.data), "\r\n"))
	}
	diff(t, "lines", []string{"one", "\n", "dropped", "two", "last"}, fixEmpty(got))
}

// fixEmpty shows an empty line as "\n": readLines hands it on as it is.
func fixEmpty(lines []string) []string {
	for i, l := range lines {
		if l == "" {
			lines[i] = "\n"
		}
	}
	return lines
}

func FuzzReadLines(f *testing.F) {
	f.Add([]byte("a\nbb\nccc"), 2)
	f.Fuzz(func(t *testing.T, input []byte, max int) {
		max = max%64 + 65
		out := make(chan line, len(input)+1)
		readLines(bytes.NewReader(input), max, out)
		close(out)
		for l := range out {
			if len(l.data) > max {
				t.Fatalf("a line of %d bytes over %d", len(l.data), max)
			}
			if !bytes.Contains(input, l.data) {
				t.Fatalf("line %q is not in the input", l.data)
			}
		}
	})
}

func TestDiffFromInput(t *testing.T) {
	dir, fenced := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "f.txt"), "a b a")
	writeFile(t, filepath.Join(fenced, "secret.txt"), "private")
	f := filepath.Join(dir, "f.txt")
	fence, err := NewFence(dir, []string{fenced})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		input string
		want  *acp.Diff
	}{
		{"new file", `{"path":"new.txt","content":"n"}`, &acp.Diff{Path: filepath.Join(dir, "new.txt"), NewText: "n"}},
		{"whole content", `{"file_path":"` + f + `","content":"z"}`, &acp.Diff{Path: f, OldText: ptr("a b a"), NewText: "z"}},
		{"old and new", `{"path":"` + f + `","old_string":"a","new_string":"c"}`, &acp.Diff{Path: f, OldText: ptr("a b a"), NewText: "c b a"}},
		{"replace all", `{"path":"` + f + `","old_str":"a","new_str":"c","replace_all":true}`, &acp.Diff{Path: f, OldText: ptr("a b a"), NewText: "c b c"}},
		{"old not in the file", `{"path":"` + f + `","oldText":"q","newText":"r"}`, &acp.Diff{Path: f, OldText: ptr("q"), NewText: "r"}},
		{"no path", `{"content":"x"}`, nil},
		{"not an object", `"x"`, nil},
		{"path only", `{"path":"` + f + `"}`, nil},
		{"path not a string", `{"path":3,"content":"x"}`, nil},
		{"a fenced file", `{"path":"` + filepath.Join(fenced, "secret.txt") + `","content":"x"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := diffFromInput(json.RawMessage(tt.input), fence, DefaultMaxDiffBytes)
			if tt.want == nil {
				diff(t, "built", false, ok)
				return
			}
			diff(t, "diff", *tt.want, got)
		})
	}
	if _, ok := diffFromInput(json.RawMessage(`{"path":"`+f+`","content":"z"}`), fence, 2); ok {
		t.Error("a file over the limit gave a diff")
	}
}

func FuzzDiffFromInput(f *testing.F) {
	fence, err := NewFence(f.TempDir(), []string{f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(`{"path":"a","content":"x"}`)
	f.Add(`{"path":"a","old_string":"","new_string":"y"}`)
	f.Fuzz(func(t *testing.T, input string) {
		d, ok := diffFromInput(json.RawMessage(input), fence, 1<<10)
		if ok && d.Path == "" {
			t.Fatal("a diff without a path")
		}
	})
}

func FuzzAutoAnswer(f *testing.F) {
	dir := f.TempDir()
	fence, _ := NewFence(dir, nil)
	f.Add("acceptEdits", "edit", "Write", dir+"/x", "allow_once")
	f.Add("bypassPermissions", "execute", "", "", "reject_once")
	f.Fuzz(func(t *testing.T, mode, kind, name, path, optionKind string) {
		card := acp.Item{Kind: kind, Name: name, Locations: []string{path}, Options: []acp.PermissionOption{{ID: "o", Kind: optionKind}}}
		got, ok := AutoAnswer(mode, card, fence)
		if !ok {
			return
		}
		if got != KindAllowOnce && got != KindAllowAlways || got != optionKind {
			t.Fatalf("answered %q from option %q", got, optionKind)
		}
		if mode == ModeAcceptEdits && !fence.Inside(path) {
			t.Fatalf("acceptEdits let %q pass", path)
		}
		if mode != ModeAcceptEdits && mode != ModeBypassPermissions {
			t.Fatalf("mode %q let a card pass", mode)
		}
	})
}

func TestDecodeQuestions(t *testing.T) {
	want := []acp.Question{{Question: "Q?", Options: []acp.QuestionOption{{Label: "a"}}}}
	for _, in := range []string{`[{"question":"Q?","options":["a"]}]`, `{"questions":[{"question":"Q?","options":[{"label":"a"}]}]}`} {
		got, err := DecodeQuestions(json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		diff(t, in, want, got)
	}
	for _, bad := range []string{`[]`, `{}`, `[{"options":["a"]}]`, `3`, `{"questions":"x"}`} {
		if _, err := DecodeQuestions(json.RawMessage(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func FuzzDecodeQuestions(f *testing.F) {
	f.Add(`[{"question":"Q?","options":["a"]}]`)
	f.Fuzz(func(t *testing.T, in string) {
		qs, err := DecodeQuestions(json.RawMessage(in))
		if err == nil && len(qs) == 0 {
			t.Fatal("no questions and no error")
		}
	})
}

func TestAskQuestionCard(t *testing.T) {
	w := newWorld(t)
	r := start(t, w.script(t, "updates.json"), Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	type result struct {
		answers [][]string
		err     error
	}
	got := make(chan result, 2)
	ask := func(ctx context.Context) {
		a, err := r.s.Ask(ctx, json.RawMessage(`{"questions":[{"question":"Go on?","options":["yes","no"]}]}`))
		got <- result{a, err}
	}
	go ask(t.Context())
	card := r.untilType(acp.TypeQuestion)
	handle := card[len(card)-1].Request
	r.must(r.s.AnswerQuestion(handle, [][]string{{"yes"}}))
	res := <-got
	diff(t, "answers", [][]string{{"yes"}}, res.answers)
	ctx, cancel := context.WithCancel(t.Context())
	go ask(ctx)
	r.untilType(acp.TypeQuestion)
	cancel()
	res = <-got
	if !errors.Is(res.err, context.Canceled) {
		t.Errorf("cancelled ask: %v", res.err)
	}
	go ask(t.Context())
	r.untilType(acp.TypeQuestion)
	r.must(r.s.Close(t.Context()))
	res = <-got
	if res.err == nil {
		t.Error("an ask outlived its session")
	}
}
