package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/google/go-cmp/cmp"
)

// diffWorld is a folder with a.txt ("first line\nsecond line\n") and a
// fenced folder holding secret.txt.
func diffWorld(t testing.TB) (dir, fenced string, fence *Fence) {
	dir, fenced = t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "first line\nsecond line\n")
	writeFile(t, filepath.Join(fenced, "secret.txt"), "private")
	fence, err := NewFence(dir, []string{fenced})
	if err != nil {
		t.Fatal(err)
	}
	return dir, fenced, fence
}

// TestDiffsOfRealAgentShapes derives a card's diffs from the inputs real
// agents send, each shaped as its source writes it.
func TestDiffsOfRealAgentShapes(t *testing.T) {
	dir, _, fence := diffWorld(t)
	a := filepath.Join(dir, "a.txt")
	before := "first line\nsecond line\n"
	tests := []struct {
		name  string
		input string
		want  []acp.Diff
	}{
		// Goose 1.37, developer extension (crates/goose/src/agents/platform_extensions/developer/edit.rs):
		// edit is FileEditParams {path, before, after}, write is FileWriteParams {path, content}.
		{"Goose edit", `{"path":"a.txt","before":"first","after":"updated"}`,
			[]acp.Diff{{Path: a, OldText: &before, NewText: "updated line\nsecond line\n"}}},
		{"Goose write of a new file", `{"path":"notes/new.md","content":"# New\n"}`,
			[]acp.Diff{{Path: filepath.Join(dir, "notes", "new.md"), NewText: "# New\n"}}},
		{"Goose write over a file", `{"path":"` + inJSON(a) + `","content":"all new\n"}`,
			[]acp.Diff{{Path: a, OldText: &before, NewText: "all new\n"}}},
		// Goose's older developer extension (goose-mcp text_editor).
		{"Goose text_editor str_replace", `{"command":"str_replace","path":"` + inJSON(a) + `","old_str":"second","new_str":"2nd"}`,
			[]acp.Diff{{Path: a, OldText: &before, NewText: "first line\n2nd line\n"}}},
		{"Goose text_editor write", `{"command":"write","path":"` + inJSON(a) + `","file_text":"x\n"}`,
			[]acp.Diff{{Path: a, OldText: &before, NewText: "x\n"}}},
		// Claude Code's tools (claude-agent-sdk sdk-tools: FileEditInput, FileWriteInput, MultiEdit).
		{"Claude Code Edit", `{"file_path":"` + inJSON(a) + `","old_string":"line","new_string":"row","replace_all":false}`,
			[]acp.Diff{{Path: a, OldText: &before, NewText: "first row\nsecond line\n"}}},
		{"Claude Code Edit replace_all", `{"file_path":"` + inJSON(a) + `","old_string":"line","new_string":"row","replace_all":true}`,
			[]acp.Diff{{Path: a, OldText: &before, NewText: "first row\nsecond row\n"}}},
		{"Claude Code MultiEdit", `{"file_path":"` + inJSON(a) + `","edits":[{"old_string":"first","new_string":"1st"},{"old_string":"line","new_string":"row","replace_all":true}]}`,
			[]acp.Diff{{Path: a, OldText: &before, NewText: "1st row\nsecond row\n"}}},
		{"Claude Code Write", `{"file_path":"` + inJSON(filepath.Join(dir, "b.txt")) + `","content":"b\n"}`,
			[]acp.Diff{{Path: filepath.Join(dir, "b.txt"), NewText: "b\n"}}},
		{"Claude Code Edit creating a file", `{"file_path":"` + inJSON(filepath.Join(dir, "c.txt")) + `","old_string":"","new_string":"c\n"}`,
			[]acp.Diff{{Path: filepath.Join(dir, "c.txt"), NewText: "c\n"}}},
		// Gemini CLI (packages/core/src/tools/edit.ts, write-file.ts).
		{"Gemini CLI replace", `{"file_path":"` + inJSON(a) + `","old_string":"second line","new_string":"last line","instruction":"rename"}`,
			[]acp.Diff{{Path: a, OldText: &before, NewText: "first line\nlast line\n"}}},
		{"Gemini CLI replace expected_replacements", `{"file_path":"` + inJSON(a) + `","old_string":"line","new_string":"row","expected_replacements":2}`,
			[]acp.Diff{{Path: a, OldText: &before, NewText: "first row\nsecond row\n"}}},
		{"Gemini CLI write_file", `{"file_path":"` + inJSON(a) + `","content":"g\n"}`,
			[]acp.Diff{{Path: a, OldText: &before, NewText: "g\n"}}},
		// Codex (codex-acp src/thread.rs patch_approval: rawInput is the
		// ApplyPatchApprovalRequestEvent, changes keyed by path).
		{"Codex apply_patch", `{"call_id":"call_1","turn_id":"1","changes":{` +
			`"` + inJSON(a) + `":{"type":"update","unified_diff":"@@ -1,2 +1,2 @@\n first line\n-second line\n+2nd line\n","move_path":null},` +
			`"` + inJSON(filepath.Join(dir, "new.txt")) + `":{"type":"add","content":"n\n"},` +
			`"` + inJSON(filepath.Join(dir, "old.txt")) + `":{"type":"delete","content":"gone\n"}},"reason":null,"grant_root":null}`,
			[]acp.Diff{
				{Path: a, OldText: ptr("first line\nsecond line\n"), NewText: "first line\n2nd line\n"},
				{Path: filepath.Join(dir, "new.txt"), NewText: "n\n"},
				{Path: filepath.Join(dir, "old.txt"), OldText: ptr("gone\n")},
			}},
		{"Codex move", `{"changes":{"` + inJSON(a) + `":{"type":"update","unified_diff":"@@ -1 +1 @@\n-first line\n+one\n","move_path":"` + inJSON(filepath.Join(dir, "moved.txt")) + `"}}}`,
			[]acp.Diff{{Path: filepath.Join(dir, "moved.txt"), OldText: ptr("first line\n"), NewText: "one\n"}}},
		{"edit the file does not hold", `{"file_path":"` + inJSON(a) + `","old_string":"absent","new_string":"x"}`,
			[]acp.Diff{{Path: a, OldText: ptr("absent"), NewText: "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diff(t, "diffs", tt.want, diffsFromInput(json.RawMessage(tt.input), fence, DefaultMaxDiffBytes))
		})
	}
}

// TestDiffsOfHostileInputs: what an agent controls gives no diff, or a
// diff that names the file it really touches; nothing is written.
func TestDiffsOfHostileInputs(t *testing.T) {
	dir, fenced, fence := diffWorld(t)
	a := filepath.Join(dir, "a.txt")
	many := make([]string, maxDerivedDiffs+1)
	for i := range many {
		many[i] = `{"old_string":"line","new_string":"x"}`
	}
	changes := make([]string, maxDerivedDiffs+1)
	for i := range changes {
		changes[i] = fmt.Sprintf(`"%s/f%d":{"type":"add","content":"x"}`, dir, i)
	}
	tests := []struct {
		name  string
		input string
		want  []acp.Diff
	}{
		{"not an object", `"x"`, nil},
		{"no path", `{"content":"x"}`, nil},
		{"path only", `{"path":"` + inJSON(a) + `"}`, nil},
		{"path not a string", `{"path":3,"content":"x"}`, nil},
		{"content not a string", `{"path":"` + inJSON(a) + `","content":{"a":1}}`, nil},
		{"before without after", `{"path":"` + inJSON(a) + `","before":"first"}`, nil},
		{"edits not a list", `{"file_path":"` + inJSON(a) + `","edits":"x"}`, nil},
		{"an edit of the wrong shape", `{"file_path":"` + inJSON(a) + `","edits":[{"old_string":1,"new_string":"x"}]}`, nil},
		{"too many edits", `{"file_path":"` + inJSON(a) + `","edits":[` + strings.Join(many, ",") + `]}`, nil},
		{"too many files", `{"changes":{` + strings.Join(changes, ",") + `}}`, nil},
		{"changes not a map", `{"changes":[1,2]}`, nil},
		{"a fenced file", `{"path":"` + inJSON(filepath.Join(fenced, "secret.txt")) + `","content":"x"}`, nil},
		{"a fenced file by a Codex change", `{"changes":{"` + inJSON(filepath.Join(fenced, "secret.txt")) + `":{"type":"delete","content":"x"}}}`, nil},
		{"a traversal names the file it reaches", `{"path":"../../x/../etc/passwd","content":"root"}`,
			[]acp.Diff{{Path: filepath.Join(dir, "../../etc/passwd"), OldText: nil, NewText: "root"}}},
		{"a folder", `{"path":"` + inJSON(dir) + `","content":"x"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := diffsFromInput(json.RawMessage(tt.input), fence, DefaultMaxDiffBytes)
			if tt.name == "a traversal names the file it reaches" {
				got[0].OldText = nil // whatever the machine's file holds
			}
			diff(t, "diffs", tt.want, got)
		})
	}
	if got := diffsFromInput(json.RawMessage(`{"path":"`+inJSON(a)+`","content":"z"}`), fence, 2); got != nil {
		t.Errorf("a file over the limit gave %d diffs", len(got))
	}
	// One byte replaced everywhere by a long text would build gigabytes: the
	// result over the limit leaves the edit shown alone.
	writeFile(t, filepath.Join(dir, "many.txt"), strings.Repeat("a", 1<<16))
	long := strings.Repeat("b", 1<<16)
	got := diffsFromInput(json.RawMessage(`{"file_path":"`+inJSON(filepath.Join(dir, "many.txt"))+`","old_string":"a","new_string":"`+long+`","replace_all":true}`), fence, 1<<20)
	diff(t, "the edit alone", []acp.Diff{{Path: filepath.Join(dir, "many.txt"), OldText: ptr("a"), NewText: long}}, got)
	diff(t, "a.txt untouched", readFile(t, a), "first line\nsecond line\n")
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func FuzzDiffsFromInput(f *testing.F) {
	dir, fenced, fence := diffWorld(f)
	const limit = 1 << 10
	f.Add(`{"path":"a.txt","before":"first","after":"x"}`)
	f.Add(`{"file_path":"a.txt","edits":[{"old_string":"line","new_string":"row","replace_all":true}]}`)
	f.Add(`{"changes":{"a.txt":{"type":"update","unified_diff":"@@ -1 +1 @@\n-first line\n+x\n"}}}`)
	f.Add(`{"path":"../secret.txt","content":"x"}`)
	f.Fuzz(func(t *testing.T, input string) {
		diffs := diffsFromInput(json.RawMessage(input), fence, limit)
		if len(diffs) > maxDerivedDiffs {
			t.Fatalf("%d diffs", len(diffs))
		}
		for _, d := range diffs {
			if !filepath.IsAbs(d.Path) {
				t.Fatalf("a diff of %q", d.Path)
			}
			if within(d.Path, fenced) {
				t.Fatalf("a fenced file on a card: %s", d.Path)
			}
			if len(d.NewText) > max(len(input), limit) {
				t.Fatalf("a diff of %d bytes from an input of %d", len(d.NewText), len(input))
			}
		}
		if got := readFile(t, filepath.Join(dir, "a.txt")); got != "first line\nsecond line\n" {
			t.Fatalf("a.txt changed: %q", got)
		}
	})
}

// BenchmarkDiffsFromInput places an edit in a file of 1 MiB, and refuses a
// replace-all that would build 4 GiB, sized before it is built.
func BenchmarkDiffsFromInput(b *testing.B) {
	dir, _, fence := diffWorld(b)
	big := filepath.Join(dir, "big.txt")
	writeFile(b, big, strings.Repeat("line of text\n", 1<<20/13)+"needle\n")
	edit := json.RawMessage(`{"file_path":"` + big + `","old_string":"needle","new_string":"thread"}`)
	bomb := json.RawMessage(`{"file_path":"` + big + `","old_string":"e","new_string":"` + strings.Repeat("x", 4096) + `","replace_all":true}`)
	b.Run("edit in 1 MiB", func(b *testing.B) {
		for b.Loop() {
			if len(diffsFromInput(edit, fence, DefaultMaxDiffBytes)) != 1 {
				b.Fatal("no diff")
			}
		}
	})
	b.Run("replace-all bomb", func(b *testing.B) {
		for b.Loop() {
			if d := diffsFromInput(bomb, fence, DefaultMaxDiffBytes); len(d) != 1 || d[0].OldText == nil || *d[0].OldText != "e" {
				b.Fatal("the bomb was placed")
			}
		}
	})
}

func TestDiffLines(t *testing.T) {
	tests := []struct {
		name string
		old  *string
		new  string
		want []string
	}{
		{"new file", nil, "a\nb\n", []string{"+a", "+b"}},
		{"same", ptr("a\n"), "a\n", []string{" a"}},
		{"change in the middle", ptr("a\nb\nc"), "a\nB\nc", []string{" a", "-b", "+B", " c"}},
		{"emptied", ptr("a\nb"), "", []string{"-a", "-b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, diffLines(tt.old, tt.new)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func FuzzDiffLines(f *testing.F) {
	f.Add("a\nb", "a\nc")
	f.Fuzz(func(t *testing.T, old, new string) {
		var a, b []string
		for _, l := range diffLines(&old, new) {
			switch l[0] {
			case ' ':
				a, b = append(a, l[1:]), append(b, l[1:])
			case '-':
				a = append(a, l[1:])
			case '+':
				b = append(b, l[1:])
			}
		}
		if d := cmp.Diff(splitLines(old), a); d != "" {
			t.Fatalf("old side (-want +got):\n%s", d)
		}
		if d := cmp.Diff(splitLines(new), b); d != "" {
			t.Fatalf("new side (-want +got):\n%s", d)
		}
	})
}
