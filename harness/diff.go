package harness

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// Names agents give the fields of an edit or a write in rawInput
// (docs/harness.md#diffs-of-a-card names whose tool each comes from).
var (
	pathKeys    = []string{"path", "file_path", "filePath", "abs_path", "absolutePath", "filename"}
	contentKeys = []string{"content", "new_content", "newContent", "file_text", "fileText"}
	oldKeys     = []string{"old_string", "oldString", "old_str", "oldText", "old_text", "before"}
	newKeys     = []string{"new_string", "newString", "new_str", "newText", "new_text", "after"}
	allKeys     = []string{"replace_all", "replaceAll"}
)

// cardDiffs is what a permission card shows of the change it asks
// (docs/harness.md#diffs-of-a-card): the agent's own diff content, which
// comes first (acp decodes it into the card's Diffs), else the diffs
// derived from its rawInput. Every place that shows a card draws these
// diffs as Hunks.
func cardDiffs(card acp.Item, fence *Fence, limit int64) []acp.Diff {
	if len(card.Diffs) > 0 {
		return card.Diffs
	}
	return diffsFromInput(card.Input, fence, limit)
}

// maxDerivedDiffs bounds the diffs derived for one card: an input that
// changes more files, or makes more edits, gives none rather than a card
// that only shows a part of what it asks.
const maxDerivedDiffs = 64

// diffsFromInput derives a card's diffs from a tool's rawInput, for an
// agent that sent none in the card's content. The tool's input is read,
// never applied: an edit is placed in the file on disk (read behind the
// fence, limit bytes at most) to show the file before and after, and
// shown alone when the file cannot place it.
func diffsFromInput(input json.RawMessage, fence *Fence, limit int64) []acp.Diff {
	var fields map[string]json.RawMessage
	if json.Unmarshal(input, &fields) != nil {
		return nil
	}
	if raw, ok := fields["changes"]; ok {
		return codexChanges(raw, fence, limit)
	}
	path, ok := stringField(fields, pathKeys)
	if !ok || path == "" {
		return nil
	}
	d := diffOfFile(fields, resolveIn(fence, path), fence, limit)
	if len(d) > maxDerivedDiffs {
		return nil
	}
	return d
}

// resolveIn makes a relative path the agent gave one in its folder.
func resolveIn(fence *Fence, path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(fence.own, path)
}

// diffOfFile builds the diffs of one file's write or edits.
func diffOfFile(fields map[string]json.RawMessage, path string, fence *Fence, limit int64) []acp.Diff {
	if _, err := fence.Check(path); err != nil {
		return nil // a fenced file's text never reaches a card
	}
	old, exists, err := readLimited(fence, path, limit)
	if err != nil {
		return nil
	}
	if content, ok := stringField(fields, contentKeys); ok {
		return []acp.Diff{{Path: path, OldText: textIf(old, exists), NewText: content}}
	}
	edits, ok := editsOf(fields)
	if !ok {
		return nil
	}
	return placeEdits(path, old, exists, edits, limit)
}

// edit is one replacement an edit tool asks for.
type edit struct {
	from, to string
	all      bool
}

// editsOf reads the replacements of an input: one old/new pair (Claude
// Code's Edit, Gemini CLI's replace, Goose's edit and text_editor), or
// Claude Code's MultiEdit list under "edits".
func editsOf(fields map[string]json.RawMessage) ([]edit, bool) {
	if raw, ok := fields["edits"]; ok {
		var list []map[string]json.RawMessage
		if json.Unmarshal(raw, &list) != nil || len(list) == 0 || len(list) > maxDerivedDiffs {
			return nil, false
		}
		var edits []edit
		for _, f := range list {
			e, ok := editOf(f)
			if !ok {
				return nil, false
			}
			edits = append(edits, e)
		}
		return edits, true
	}
	e, ok := editOf(fields)
	return []edit{e}, ok
}

func editOf(fields map[string]json.RawMessage) (edit, bool) {
	from, okOld := stringField(fields, oldKeys)
	to, okNew := stringField(fields, newKeys)
	if !okOld || !okNew {
		return edit{}, false
	}
	all, _ := boolField(fields, allKeys)
	// Gemini CLI's replace says how many occurrences it replaces.
	var expected float64
	if raw, ok := fields["expected_replacements"]; ok && json.Unmarshal(raw, &expected) == nil && expected > 1 {
		all = true
	}
	return edit{from: from, to: to, all: all}, true
}

// placeEdits applies the edits, in order, to the file's text: the diff is
// the whole file before and after. An edit the file cannot place (no such
// file, text not found, a result over limit) leaves each edit shown alone.
func placeEdits(path, old string, exists bool, edits []edit, limit int64) []acp.Diff {
	if !exists && len(edits) == 1 && edits[0].from == "" {
		return []acp.Diff{{Path: path, NewText: edits[0].to}} // an edit that creates the file
	}
	text := old
	for _, e := range edits {
		next, ok := replaceBounded(text, e, limit)
		if !exists || !ok {
			return editsAlone(path, edits)
		}
		text = next
	}
	return []acp.Diff{{Path: path, OldText: &old, NewText: text}}
}

// replaceBounded replaces the edit's text in s, once or everywhere, when
// s holds it and the result stays within limit bytes: a short text
// replaced everywhere by a long one could otherwise ask for gigabytes.
func replaceBounded(s string, e edit, limit int64) (string, bool) {
	if e.from == "" {
		return "", false
	}
	n := 1
	if e.all {
		n = strings.Count(s, e.from)
	} else if !strings.Contains(s, e.from) {
		n = 0
	}
	if n == 0 {
		return "", false
	}
	if int64(len(s))+int64(n)*(int64(len(e.to))-int64(len(e.from))) > limit {
		return "", false
	}
	return strings.Replace(s, e.from, e.to, n), true
}

func editsAlone(path string, edits []edit) []acp.Diff {
	diffs := make([]acp.Diff, 0, len(edits))
	for _, e := range edits {
		diffs = append(diffs, acp.Diff{Path: path, OldText: &e.from, NewText: e.to})
	}
	return diffs
}

// codexChanges reads Codex's file changes, the "changes" of its
// apply_patch approval (codex-acp's rawInput): a map of paths to
// {"type":"add","content"}, {"type":"delete","content"} or
// {"type":"update","unified_diff","move_path"}. Their text comes from the
// agent; no file is read.
func codexChanges(raw json.RawMessage, fence *Fence, limit int64) []acp.Diff {
	var changes map[string]struct {
		Type        string  `json:"type"`
		Content     *string `json:"content"`
		UnifiedDiff *string `json:"unified_diff"`
		MovePath    *string `json:"move_path"`
	}
	if json.Unmarshal(raw, &changes) != nil || len(changes) > maxDerivedDiffs {
		return nil
	}
	var diffs []acp.Diff
	for _, p := range slices.Sorted(maps.Keys(changes)) {
		c := changes[p]
		path := resolveIn(fence, p)
		if c.MovePath != nil && *c.MovePath != "" {
			path = resolveIn(fence, *c.MovePath)
		}
		if _, err := fence.Check(path); err != nil || p == "" {
			continue
		}
		switch {
		case c.Type == "add" && c.Content != nil:
			diffs = append(diffs, acp.Diff{Path: path, NewText: *c.Content})
		case c.Type == "delete" && c.Content != nil:
			diffs = append(diffs, acp.Diff{Path: path, OldText: c.Content})
		case c.Type == "update" && c.UnifiedDiff != nil && int64(len(*c.UnifiedDiff)) <= limit:
			diffs = append(diffs, hunkDiffs(path, *c.UnifiedDiff)...)
		}
	}
	if len(diffs) > maxDerivedDiffs {
		return nil
	}
	return diffs
}

// hunkDiffs gives one diff per hunk of a unified diff: its context and
// removed lines before, its context and added lines after.
func hunkDiffs(path, unified string) []acp.Diff {
	var diffs []acp.Diff
	var old, neu strings.Builder
	inHunk := false
	flush := func() {
		if inHunk {
			o := old.String()
			diffs = append(diffs, acp.Diff{Path: path, OldText: &o, NewText: neu.String()})
		}
		old.Reset()
		neu.Reset()
	}
	for _, line := range strings.SplitAfter(unified, "\n") {
		switch {
		case strings.HasPrefix(line, "@@"):
			flush()
			inHunk = true
		case !inHunk || line == "" || strings.HasPrefix(line, `\`):
		case line[0] == ' ':
			old.WriteString(line[1:])
			neu.WriteString(line[1:])
		case line[0] == '-':
			old.WriteString(line[1:])
		case line[0] == '+':
			neu.WriteString(line[1:])
		}
	}
	flush()
	return diffs
}

// inputPath is the path a tool's input names, if any.
func inputPath(input json.RawMessage) (string, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(input, &fields) != nil {
		return "", false
	}
	p, ok := stringField(fields, pathKeys)
	return p, ok && p != ""
}

func stringField(fields map[string]json.RawMessage, keys []string) (string, bool) {
	for _, k := range keys {
		var s string
		if raw, ok := fields[k]; ok && json.Unmarshal(raw, &s) == nil {
			return s, true
		}
	}
	return "", false
}

func boolField(fields map[string]json.RawMessage, keys []string) (bool, bool) {
	for _, k := range keys {
		var b bool
		if raw, ok := fields[k]; ok && json.Unmarshal(raw, &b) == nil {
			return b, true
		}
	}
	return false, false
}

func textIf(s string, ok bool) *string {
	if !ok {
		return nil
	}
	return &s
}

// errTooBig refuses a file over the diff limit.
var errTooBig = errors.New("file too big for a diff")

// readLimited reads a file of at most limit bytes behind the fence; a
// missing file is not an error.
func readLimited(fence *Fence, path string, limit int64) (string, bool, error) {
	f, err := fence.Open(path, false)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	// A FIFO the agent holds open would block the session for ever.
	if err := checkRegular(path, f, limit); err != nil {
		return "", false, err
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return "", false, err
	}
	if int64(len(b)) > limit {
		return "", false, errTooBig
	}
	return string(b), true, nil
}

// Hunk is one diff as a person reads it, on the Agents page and in the
// terminal alike: the file's path, then the body of a unified hunk, one
// line of text each, " " kept, "-" removed, "+" added. The whole of both
// texts is shown, with no context cut: a card shows all it asks.
type Hunk struct {
	Path  string
	Lines []string
}

// Hunks draws diffs as lines: the one drawing of a card's, a tool's or a
// toolDone's diffs, so that every place that shows them shows the same.
func Hunks(diffs []acp.Diff) []Hunk {
	if len(diffs) == 0 {
		return nil
	}
	hunks := make([]Hunk, len(diffs))
	for i, d := range diffs {
		hunks[i] = Hunk{Path: d.Path, Lines: diffLines(d.OldText, d.NewText)}
	}
	return hunks
}

// maxDiffCells bounds the table of the line diff; past it, the old text is
// shown removed and the new one added, which stays correct, only longer.
const maxDiffCells = 1 << 20

// diffLines compares two texts line by line and gives the body of their
// hunk. A nil old text is a new file.
func diffLines(old *string, new string) []string {
	var a []string
	if old != nil {
		a = splitLines(*old)
	}
	b := splitLines(new)
	if len(a)*len(b) > maxDiffCells {
		return append(prefixed("-", a), prefixed("+", b)...)
	}
	return walkLCS(a, b, lcsTable(a, b))
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func prefixed(p string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = p + l
	}
	return out
}

// lcsTable holds at [i][j] the longest common subsequence of a[i:], b[j:].
func lcsTable(a, b []string) [][]int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t
}

func walkLCS(a, b []string, t [][]int) []string {
	var out []string
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, " "+a[i])
			i, j = i+1, j+1
		case t[i+1][j] >= t[i][j+1]:
			out = append(out, "-"+a[i])
			i++
		default:
			out = append(out, "+"+b[j])
			j++
		}
	}
	return append(append(out, prefixed("-", a[i:])...), prefixed("+", b[j:])...)
}
