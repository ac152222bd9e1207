package acp

import (
	"strings"
	"testing"
)

const cursorAskLine = `{"jsonrpc":"2.0","id":7,"method":"cursor/ask_question","params":{"toolCallId":"t1","questions":[{"id":"q1","prompt":"Which?","allowMultiple":true,"options":[{"id":"a","label":"A"},{"id":"b","label":"B"}]}]}}`

// A cursor/* card waiting when the turn is cancelled is answered
// cancelled, as a permission card is.
func TestCursorCardsAreCancelledWithTheTurn(t *testing.T) {
	c := ready(t, Options{Cursor: true}, initOK)
	c.Prompt("go")
	items, _ := feed(c, cursorAskLine)
	diff(t, "the card", []Item{{Type: TypeQuestion, Request: "r1", Questions: []Question{{Question: "Which?", MultiSelect: true,
		Options: []QuestionOption{{Label: "A"}, {Label: "B"}}}}}}, items)
	items, outs := c.Cancel()
	diff(t, "answered", []Item{{Type: TypeAnswered, Request: "r1", Outcome: OutcomeCancelled}}, items)
	if got := strings.Join(texts(outs), "\n"); !strings.Contains(got, `{"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"cancelled"}}}`) {
		t.Errorf("what the agent got:\n%s", got)
	}
}

// Without the extension a cursor/* request is refused, and a malformed
// one with it is refused naming the method.
func TestCursorRequestsWithoutTheExtensionOrMalformed(t *testing.T) {
	c := ready(t, Options{}, initOK)
	_, outs := feed(c, cursorAskLine)
	diff(t, "without the extension", []string{`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"method not found: cursor/ask_question"}}`}, outs)

	c = ready(t, Options{Cursor: true}, initOK)
	items, outs := feed(c, `{"jsonrpc":"2.0","id":8,"method":"cursor/ask_question","params":{"questions":[]}}`)
	if len(outs) != 1 || !strings.Contains(outs[0], `"code":-32602`) || len(items) == 0 || !strings.Contains(items[0].Text, "cursor/ask_question") {
		t.Errorf("a question request with no questions: %v %v", items, outs)
	}
}

func FuzzCursorMessages(f *testing.F) {
	f.Add(cursorAskLine)
	f.Add(`{"jsonrpc":"2.0","method":"cursor/update_todos","params":{"merge":true,"todos":[{"id":"1","content":"x","status":"pending"}]}}`)
	f.Add(`{"jsonrpc":"2.0","id":3,"method":"cursor/create_plan","params":{"plan":"p","todos":null}}`)
	f.Fuzz(func(t *testing.T, line string) {
		c := ready(t, Options{Cursor: true}, initOK)
		c.Prompt("go")
		items, _ := c.Feed([]byte(line))
		for _, it := range items {
			if it.Type == TypeQuestion {
				c.AnswerQuestion(it.Request, [][]string{{"Accept", "anything"}})
			}
		}
		c.Cancel()
	})
}
