package acp

import "testing"

func TestToolCallAlreadyDone(t *testing.T) {
	c := ready(t, Options{}, initOK)
	items, _ := feed(c, updateLine(`{"sessionUpdate":"tool_call","toolCallId":"t","title":"cat a","kind":"read","status":"completed","rawOutput":"x"}`))
	want := []Item{
		{Type: TypeTool, ID: "t", Name: "Read", Title: "cat a", Kind: "read", Status: "completed"},
		{Type: TypeToolDone, ID: "t", Name: "Read", Title: "cat a", Status: "completed", Output: raw(`"x"`)},
	}
	diff(t, "items", want, items)
}
