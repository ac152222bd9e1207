package acp

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzFeed feeds any line, in every phase the client can be in: it never
// panics and every item it gives marshals.
func FuzzFeed(f *testing.F) {
	for _, seed := range []string{
		initOK, newSession, updateLine(`{"sessionUpdate":"tool_call","toolCallId":"t","title":"a: b · c","kind":"other"}`),
		permissionLine("0"), `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`,
		chunk(`<escouade_question>{"questions":[{"question":"q"}]}</escouade_question>`),
		`[{"jsonrpc":"2.0","method":"x"}]`, `{"id":null}`, `garbage`, `{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{"path":"/a"}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, c := range fuzzClients(t) {
			items, _ := c.Feed([]byte(line))
			c.Cancel()
			more, _ := c.Feed([]byte(line))
			for _, it := range append(items, more...) {
				if _, err := json.Marshal(it); err != nil {
					t.Fatalf("item %+v does not marshal: %v", it, err)
				}
			}
		}
	})
}

func fuzzClients(t *testing.T) []*Client {
	fresh := NewClient(Options{})
	fresh.Start()
	opts := Options{FS: true, QuestionsInText: true, SubagentTools: []string{"Task"}, Tools: map[string]string{"b": "Bash"}}
	inTurn := ready(t, opts, initOK)
	inTurn.Prompt("go")
	return []*Client{fresh, ready(t, opts, initOK), inTurn}
}

// FuzzToolName checks the naming rules on any title, input and _meta: a
// tool of kind other is named by acp.tools, by Claude Code's own name, or
// shown by its title.
func FuzzToolName(f *testing.F) {
	f.Add("developer: shell · ls", `{"pattern":"*.go"}`, `{"goose":{"toolCall":{"toolName":"x"}}}`)
	f.Add("", `{"glob":"**/*"}`, `null`)
	f.Add("Write", `{}`, `{"claudeCode":{"toolName":"Write"}}`)
	f.Fuzz(func(t *testing.T, title, input, meta string) {
		n := namer{agent: "goose", tools: map[string]string{"shell": "Bash", "x": "Read"}}
		app, _ := n.name(toolFacts{Kind: "other", Title: title, Input: json.RawMessage(input), Meta: json.RawMessage(meta)})
		own, claude := metaToolName(json.RawMessage(meta), "goose")
		if app != "Bash" && app != "Read" && app != strings.TrimSpace(title) && !(claude && app == own) {
			t.Fatalf("tool %q is neither mapped, nor Claude Code's name, nor its title %q", app, title)
		}
		isNamePattern(json.RawMessage(input))
	})
}

// FuzzQuestionBlock: any held text either parses into questions with text,
// or is refused.
func FuzzQuestionBlock(f *testing.F) {
	f.Add(`<escouade_question>{"questions":[{"question":"q","options":["a",{"label":"b"}]}]}</escouade_question>`)
	f.Add(`<escouade_question>{"questions":[]}`)
	f.Fuzz(func(t *testing.T, s string) {
		questions, err := parseQuestionBlock(s)
		if err == nil && len(questions) == 0 {
			t.Fatalf("block %q parsed with no question", s)
		}
	})
}
