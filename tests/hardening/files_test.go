//go:build linux

package hardening

import (
	"encoding/json"
	"strings"
	"testing"
)

// readVia makes the puppet ask files/read for path and returns the host's
// answer: the text, or the error code.
func readVia(t *testing.T, s *session, id, path string) (text string, code int) {
	t.Helper()
	a := s.call(id, "do", []any{map[string]any{"rpc": map[string]any{"method": "files/read", "params": map[string]any{"path": path}}}})
	rs, ok := a["result"].([]any)
	if !ok || len(rs) != 1 {
		t.Fatalf("files/read %.80q: the call got %v", path, a)
	}
	var r struct {
		Result json.RawMessage
		Error  *struct{ Code int }
	}
	b, _ := json.Marshal(rs[0])
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Error != nil {
		return "", r.Error.Code
	}
	if err := json.Unmarshal(r.Result, &text); err != nil {
		t.Fatalf("files/read %.80q: result %s is not a string", path, r.Result)
	}
	return text, 0
}

func TestFilesReadEdges(t *testing.T) {
	dir := plugin{fixture: "puppet", files: map[string]string{
		"file.txt": "hello", "data/words.txt": "words", "dir/inner.txt": "x",
	}}.write(t)
	s := run(t, dir)
	defer s.close()
	cases := []struct {
		name, path string
		text       string
		codes      []int // any of these; none means a text
	}{
		{"dot slash", "./file.txt", "hello", nil},
		{"dot slash nested", "./data/words.txt", "words", nil},
		{"directory", "dir", "", []int{-32004}},
		{"directory with a slash", "dir/", "", []int{-32004}},
		{"dot slash directory", "./dir/", "", []int{-32004}},
		{"the folder itself", ".", "", []int{-32004, -32003}},
		{"a name too long", strings.Repeat("a", 300), "", []int{-32004, -32003}},
		{"a path too long", strings.Repeat("abcdefgh/", 600) + "f.txt", "", []int{-32004, -32003}},
		{"a long name under a folder", "dir/" + strings.Repeat("b", 5000), "", []int{-32004, -32003}},
	}
	for _, c := range cases {
		text, code := readVia(t, s, c.name, c.path)
		switch {
		case c.codes == nil && (code != 0 || text != c.text):
			t.Errorf("%s: files/read %.60q answered code %d text %q, want the text %q", c.name, c.path, code, text, c.text)
		case c.codes != nil && !contains(c.codes, code):
			t.Errorf("%s: files/read %.60q answered code %d (text %.20q), want one of %v", c.name, c.path, code, text, c.codes)
		}
	}
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
