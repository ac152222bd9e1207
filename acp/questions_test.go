package acp

import (
	"strings"
	"testing"
)

func chunk(text string) string {
	return updateLine(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":` + quote(text) + `}}`)
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func TestQuestionInstructionGoesWithTheFirstPrompt(t *testing.T) {
	tests := []struct{ lang, instruction string }{
		{"", questionInstructionEN},
		{"en", questionInstructionEN},
		{"fr", questionInstructionFR},
	}
	for _, tt := range tests {
		t.Run("lang "+tt.lang, func(t *testing.T) {
			c := ready(t, Options{QuestionsInText: true, Lang: tt.lang}, initOK)
			_, outs := c.Prompt("hi")
			want := `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":` + quote(tt.instruction) + `},{"type":"text","text":"hi"}]}}`
			diff(t, "first prompt", []string{want}, texts(outs))
			feed(c, `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`)
			_, outs = c.Prompt("again")
			diff(t, "second prompt", []string{`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"again"}]}}`}, texts(outs))
		})
	}
}

func TestInstructionTextsNameTheBlock(t *testing.T) {
	for _, s := range []string{questionInstructionEN, questionInstructionFR} {
		if !strings.Contains(s, questionOpenTag) || !strings.Contains(s, questionCloseTag) {
			t.Errorf("instruction does not show the block: %s", s)
		}
	}
}

const endTurn = `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`

func TestQuestionBlocks(t *testing.T) {
	turn := Item{Type: TypeTurn, StopReason: "end_turn"}
	tests := []struct {
		name   string
		chunks []string
		want   []Item
	}{
		{"block cut out, split across chunks", []string{"Which one?\n<escou", "ade_question>{\"questions\":[{\"question\":\"Color?\",", "\"options\":[\"red\",{\"label\":\"blue\",\"description\":\"calm\"}],\"multiSelect\":true}]}</escouade_question>\n"},
			[]Item{{Type: TypeText, MessageID: "m2", Text: "Which one?\n"},
				{Type: TypeQuestion, Request: "r1", Questions: []Question{{Question: "Color?", MultiSelect: true,
					Options: []QuestionOption{{Label: "red"}, {Label: "blue", Description: "calm"}}}}},
				turn}},
		{"a partial tag that is not one", []string{"a <esc", "ape> b"},
			[]Item{{Type: TypeText, MessageID: "m2", Text: "a "}, {Type: TypeText, MessageID: "m2", Text: "<escape> b"}, turn}},
		{"a partial tag at the end", []string{"a <escouade_q"},
			[]Item{{Type: TypeText, MessageID: "m2", Text: "a "}, {Type: TypeText, MessageID: "m2", Text: "<escouade_q"}, turn}},
		{"not JSON", []string{"<escouade_question>{oops}</escouade_question>"},
			[]Item{{Type: TypeText, MessageID: "m2", Text: "<escouade_question>{oops}</escouade_question>"},
				notice("the agent's question block is malformed (not JSON: invalid character 'o' looking for beginning of object key string); it is shown as text"), turn}},
		{"not closed", []string{"<escouade_question>{}"},
			[]Item{{Type: TypeText, MessageID: "m2", Text: "<escouade_question>{}"},
				notice("the agent's question block is malformed (no </escouade_question>); it is shown as text"), turn}},
		{"text after", []string{`<escouade_question>{"questions":[{"question":"q"}]}</escouade_question> more`},
			[]Item{{Type: TypeText, MessageID: "m2", Text: `<escouade_question>{"questions":[{"question":"q"}]}</escouade_question> more`},
				notice("the agent's question block is malformed (text after the block); it is shown as text"), turn}},
		{"no questions", []string{`<escouade_question>{"questions":[]}</escouade_question>`},
			[]Item{{Type: TypeText, MessageID: "m2", Text: `<escouade_question>{"questions":[]}</escouade_question>`},
				notice("the agent's question block is malformed (no questions); it is shown as text"), turn}},
		{"empty question", []string{`<escouade_question>{"questions":[{"question":" "}]}</escouade_question>`},
			[]Item{{Type: TypeText, MessageID: "m2", Text: `<escouade_question>{"questions":[{"question":" "}]}</escouade_question>`},
				notice("the agent's question block is malformed (question 1 has no text); it is shown as text"), turn}},
		{"two values", []string{`<escouade_question>{"questions":[{"question":"q"}]} {}</escouade_question>`},
			[]Item{{Type: TypeText, MessageID: "m2", Text: `<escouade_question>{"questions":[{"question":"q"}]} {}</escouade_question>`},
				notice("the agent's question block is malformed (more than one JSON value); it is shown as text"), turn}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ready(t, Options{QuestionsInText: true}, initOK)
			c.Prompt("go")
			var lines []string
			for _, ch := range tt.chunks {
				lines = append(lines, chunk(ch))
			}
			items, _ := feed(c, append(lines, endTurn)...)
			diff(t, "items", tt.want, items)
		})
	}
}

func TestWithoutQuestionsInTextTheBlockIsText(t *testing.T) {
	c := ready(t, Options{}, initOK)
	c.Prompt("go")
	block := `<escouade_question>{"questions":[{"question":"q"}]}</escouade_question>`
	items, _ := feed(c, chunk(block), endTurn)
	diff(t, "items", []Item{{Type: TypeText, MessageID: "m2", Text: block}, {Type: TypeTurn, StopReason: "end_turn"}}, items)
}

func TestAnswerQuestion(t *testing.T) {
	tests := []struct {
		name     string
		lang     string
		answers  [][]string
		wantText string
	}{
		{"en", "", [][]string{{"red", "blue"}}, "Answers to your questions:\n1. Color?\n→ red, blue\n2. Size?\n→ (no answer)"},
		{"fr", "fr", [][]string{{"rouge"}, {"L"}}, "Réponses à tes questions :\n1. Color?\n→ rouge\n2. Size?\n→ L"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ready(t, Options{QuestionsInText: true, Lang: tt.lang}, initOK)
			c.Prompt("go")
			feed(c, chunk(`<escouade_question>{"questions":[{"question":"Color?","options":["red","blue"]},{"question":"Size?"}]}</escouade_question>`), endTurn)
			items, outs := c.AnswerQuestion("r1", tt.answers)
			want := []Item{
				{Type: TypeAnswered, Request: "r1", Outcome: "selected", Answers: tt.answers},
				{Type: TypeUser, MessageID: "m3", Text: tt.wantText},
			}
			diff(t, "items", want, items)
			wantOut := `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":` + quote(tt.wantText) + `}]}}`
			diff(t, "outs", []string{wantOut}, texts(outs))

			items, _ = c.AnswerQuestion("r1", tt.answers)
			diff(t, "twice", []Item{notice("no question card r1 is waiting")}, items)
		})
	}
}

func TestAnswerQuestionWaitsForTheTurnEnd(t *testing.T) {
	c := ready(t, Options{QuestionsInText: true}, initOK)
	c.Prompt("go")
	feed(c, chunk(`<escouade_question>{"questions":[{"question":"q"}]}</escouade_question>`), endTurn)
	c.Prompt("something else")
	items, outs := c.AnswerQuestion("r1", [][]string{{"a"}})
	diff(t, "during a turn", []Item{notice("a turn is already running: wait for its end or cancel it")}, items)
	diff(t, "outs", []string(nil), texts(outs))
	feed(c, `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`)
	items, _ = c.AnswerQuestion("r1", [][]string{{"a"}})
	if len(items) == 0 || items[0].Type != TypeAnswered {
		t.Errorf("the card was lost: %+v", items)
	}
}

func TestQuestionHandleIsNotAPermission(t *testing.T) {
	c := ready(t, Options{QuestionsInText: true}, initOK)
	c.Prompt("go")
	feed(c, chunk(`<escouade_question>{"questions":[{"question":"q"}]}</escouade_question>`), endTurn)
	items, _ := c.AnswerPermission("r1", "allow_once")
	diff(t, "items", []Item{notice("no permission card r1 is waiting")}, items)
	if outs := c.Reply("r1", nil, nil); outs != nil {
		t.Errorf("Reply to a question card sent %v", texts(outs))
	}
}
