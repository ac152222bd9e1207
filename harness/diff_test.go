package harness

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
)

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
		{"whole content", `{"file_path":"` + inJSON(f) + `","content":"z"}`, &acp.Diff{Path: f, OldText: ptr("a b a"), NewText: "z"}},
		{"old and new", `{"path":"` + inJSON(f) + `","old_string":"a","new_string":"c"}`, &acp.Diff{Path: f, OldText: ptr("a b a"), NewText: "c b a"}},
		{"replace all", `{"path":"` + inJSON(f) + `","old_str":"a","new_str":"c","replace_all":true}`, &acp.Diff{Path: f, OldText: ptr("a b a"), NewText: "c b c"}},
		{"old not in the file", `{"path":"` + inJSON(f) + `","oldText":"q","newText":"r"}`, &acp.Diff{Path: f, OldText: ptr("q"), NewText: "r"}},
		{"no path", `{"content":"x"}`, nil},
		{"not an object", `"x"`, nil},
		{"path only", `{"path":"` + inJSON(f) + `"}`, nil},
		{"path not a string", `{"path":3,"content":"x"}`, nil},
		{"a fenced file", `{"path":"` + inJSON(filepath.Join(fenced, "secret.txt")) + `","content":"x"}`, nil},
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
	if _, ok := diffFromInput(json.RawMessage(`{"path":"`+inJSON(f)+`","content":"z"}`), fence, 2); ok {
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
