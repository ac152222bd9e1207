package main

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// itemsUntil reads the console's items up to the first of type typ,
// that one included.
func itemsUntil(t *testing.T, r *bufio.Reader, typ string) []map[string]any {
	t.Helper()
	var items []map[string]any
	for {
		item, _ := awaitOp(t, r, "item")["item"].(map[string]any)
		items = append(items, item)
		if item["type"] == typ {
			return items
		}
	}
}

// TestHarnessSpeaksCursorExtensions: with "extensions": ["cursor"], the
// scripted agent's cursor/ask_question is a question card whose answer
// goes back as the option ids, cursor/create_plan a plan and a card to
// accept it, cursor/update_todos a plan (merged), cursor/task and
// cursor/generate_image notices; a cursor/* method Cursor does not send
// is refused, method not found.
func TestHarnessSpeaksCursorExtensions(t *testing.T) {
	withFakeACP(t, "cursor.json")
	dir := fakeWithEntry(t, func(h map[string]any) {
		h["acp"].(map[string]any)["extensions"] = []string{"cursor"}
		h["acp"].(map[string]any)["questionsInText"] = false
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- cmdHarness(env{inR, outW, io.Discard}, []string{dir, "--home", t.TempDir(), "--cwd", t.TempDir(), "--json"})
		outW.Close()
	}()
	out := bufio.NewReader(outR)
	send := func(line string) { io.WriteString(inW, line+"\n") }
	send(`{"op":"prompt","text":"go"}`)
	items := itemsUntil(t, out, "question")
	q := items[len(items)-1]
	questions := q["questions"].([]any)
	first := questions[0].(map[string]any)
	if first["question"] != "Which database?" || first["header"] != "Setup" || len(first["options"].([]any)) != 2 {
		t.Errorf("the question card: %v", q)
	}
	send(`{"op":"answerQuestion","request":"` + q["request"].(string) + `","answers":[["SQLite"]]}`)
	items = itemsUntil(t, out, "question")
	plan := items[len(items)-1]
	send(`{"op":"answerQuestion","request":"` + plan["request"].(string) + `","answers":[["Accept"]]}`)
	items = append(items, itemsUntil(t, out, "turn")...)
	send(`{"op":"close"}`)
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	var texts, notices, plans []string
	for _, it := range items {
		switch it["type"] {
		case "text":
			texts = append(texts, it["text"].(string))
		case "notice":
			notices = append(notices, it["text"].(string))
		case "plan":
			b, _ := json.Marshal(it["entries"])
			plans = append(plans, string(b))
		}
	}
	all := strings.Join(texts, "")
	for _, want := range []string{
		`cursor/ask_question: {"outcome":{"answers":[{"questionId":"q1","selectedOptionIds":["lite"]}],"outcome":"answered"}}`,
		`cursor/update_todos: {}`,
		`cursor/create_plan: {"outcome":{"outcome":"accepted"}}`,
		`cursor/not_a_method error: method not found: cursor/not_a_method`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the agent was not answered %s; it said:\n%s", want, all)
		}
	}
	wantPlans := []string{
		`[{"content":"Write the schema","priority":"medium","status":"in_progress"},{"content":"Add tests","priority":"medium","status":"pending"}]`,
		`[{"content":"Write the schema","priority":"medium","status":"completed"},{"content":"Add tests","priority":"medium","status":"pending"}]`,
		`[{"content":"create it","priority":"medium","status":"pending"}]`,
	}
	if strings.Join(plans, "\n") != strings.Join(wantPlans, "\n") {
		t.Errorf("plans:\n%s\nwant:\n%s", strings.Join(plans, "\n"), strings.Join(wantPlans, "\n"))
	}
	if !contains(notices, "Cursor runs a sub-agent: explore the code") || !contains(notices, "Cursor generated an image: a diagram → diagram.png") {
		t.Errorf("notices %q", notices)
	}
	if !strings.Contains(plan["questions"].([]any)[0].(map[string]any)["question"].(string), "Schema") {
		t.Errorf("the plan's card: %v", plan)
	}
}
