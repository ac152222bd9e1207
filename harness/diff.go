package harness

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// Names agents give the fields of a write in rawInput.
var (
	pathKeys    = []string{"path", "file_path", "filePath", "abs_path", "absolutePath", "filename"}
	contentKeys = []string{"content", "new_content", "newContent", "file_text", "fileText"}
	oldKeys     = []string{"old_string", "oldString", "old_str", "oldText", "old_text"}
	newKeys     = []string{"new_string", "newString", "new_str", "newText", "new_text"}
	allKeys     = []string{"replace_all", "replaceAll"}
)

// diffFromInput builds a card's diff from rawInput against the file on
// disk: a path with the new content, or a path with old and new strings
// (the first occurrence replaced, every one with replace_all). Relative
// paths are taken from dir. A file over limit bytes gives no diff.
func diffFromInput(input json.RawMessage, fence *Fence, limit int64) (acp.Diff, bool) {
	dir := fence.own
	var fields map[string]json.RawMessage
	if json.Unmarshal(input, &fields) != nil {
		return acp.Diff{}, false
	}
	path, ok := stringField(fields, pathKeys)
	if !ok || path == "" {
		return acp.Diff{}, false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if _, err := fence.Check(path); err != nil {
		return acp.Diff{}, false // a fenced file's text never reaches a card
	}
	old, exists, err := readLimited(fence, path, limit)
	if err != nil {
		return acp.Diff{}, false
	}
	if content, ok := stringField(fields, contentKeys); ok {
		return acp.Diff{Path: path, OldText: textIf(old, exists), NewText: content}, true
	}
	from, okOld := stringField(fields, oldKeys)
	to, okNew := stringField(fields, newKeys)
	if !okOld || !okNew {
		return acp.Diff{}, false
	}
	if !exists || from == "" || !strings.Contains(old, from) {
		return acp.Diff{Path: path, OldText: &from, NewText: to}, true // the edit alone, the file cannot place it
	}
	n := 1
	if all, _ := boolField(fields, allKeys); all {
		n = -1
	}
	return acp.Diff{Path: path, OldText: &old, NewText: strings.Replace(old, from, to, n)}, true
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
