package acp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestItemJSONNamesTheFirstDiff(t *testing.T) {
	old := "a"
	it := Item{Type: TypeToolDone, ID: "t1", Diffs: []Diff{{Path: "/p/x", OldText: &old, NewText: "b"}}}
	b, err := json.Marshal(it)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.HasPrefix(s, `{"type":"toolDone"`) || !strings.Contains(s, `"diff":{"path":"/p/x","oldText":"a","newText":"b"}`) || !strings.Contains(s, `"diffs":[`) {
		t.Errorf("item JSON %s", s)
	}
	var back Item
	if err := json.Unmarshal(b, &back); err != nil || len(back.Diffs) != 1 {
		t.Errorf("read back: %+v, %v", back, err)
	}
	if b, _ := json.Marshal(Item{Type: TypeText, Text: "x"}); strings.Contains(string(b), "diff") {
		t.Errorf("a diff on an item without one: %s", b)
	}
}
