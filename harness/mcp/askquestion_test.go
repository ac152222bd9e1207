package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestListTools(t *testing.T) {
	s := start(t, (&recorder{}).ask)
	cs := mustConnect(t, s.URL(), s.NewToken("a1"))
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if diff := cmp.Diff([]string{ToolAskQuestion}, names); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	var want, got any
	json.Unmarshal(askQuestionInput, &want)
	remarshal(t, res.Tools[0].InputSchema, &got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("input schema (-want +got):\n%s", diff)
	}
	if res.Tools[0].OutputSchema == nil {
		t.Error("ask_question has no output schema")
	}
}

func remarshal(t *testing.T, from, to any) {
	t.Helper()
	b, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, to); err != nil {
		t.Fatal(err)
	}
}

func TestAskQuestion(t *testing.T) {
	tests := []struct {
		name      string
		questions string
		answers   [][]string
		wantText  string
		wantOut   [][]string
	}{{
		name:      "one question",
		questions: `[{"question":"Which database?","header":"DB","options":[{"label":"Postgres","description":"relational"},{"label":"Redis"}],"multiSelect":false}]`,
		answers:   [][]string{{"Postgres"}},
		wantText:  `The user answered: "Which database?" = "Postgres".`,
		wantOut:   [][]string{{"Postgres"}},
	}, {
		name: "several questions, several answers",
		questions: `[{"question":"Features?","options":[{"label":"auth"},{"label":"billing"}],"multiSelect":true},` +
			`{"question":"Say \"hi\"?","options":[{"label":"yes"}],"multiSelect":false}]`,
		answers:  [][]string{{"auth", "billing"}, {"typed by the user"}},
		wantText: `The user answered: "Features?" = "auth", "billing"; "Say \"hi\"?" = "typed by the user".`,
		wantOut:  [][]string{{"auth", "billing"}, {"typed by the user"}},
	}, {
		name:      "nothing chosen",
		questions: `[{"question":"Anything?","options":[{"label":"x"}],"multiSelect":true}]`,
		answers:   [][]string{nil},
		wantText:  `The user answered: "Anything?" = (nothing).`,
		wantOut:   [][]string{{}},
	}, {
		name:      "unknown fields pass through",
		questions: `[{"question":"Q?","options":[{"label":"x","icon":"star"}],"multiSelect":false,"extra":1}]`,
		answers:   [][]string{{"x"}},
		wantText:  `The user answered: "Q?" = "x".`,
		wantOut:   [][]string{{"x"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{answers: tt.answers}
			s := start(t, rec.ask)
			cs := mustConnect(t, s.URL(), s.NewToken("agent-7"))
			res := callAsk(t, cs, `{"questions":`+tt.questions+`}`)
			if res.IsError {
				t.Fatalf("tool error: %s", text(res))
			}
			if diff := cmp.Diff([]asked{{"agent-7", tt.questions}}, rec.recorded()); diff != "" {
				t.Errorf("Asker calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantText, text(res)); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			var out AskOutput
			remarshal(t, res.StructuredContent, &out)
			if diff := cmp.Diff(AskOutput{Answers: tt.wantOut}, out); diff != "" {
				t.Errorf("structured content (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAskQuestionBadInput(t *testing.T) {
	const option = `{"label":"x"}`
	question := func(fields string) string { return `{"questions":[{` + fields + `}]}` }
	tests := []struct{ name, arguments string }{
		{"no arguments", `{}`},
		{"questions not an array", `{"questions":"Which?"}`},
		{"questions null", `{"questions":null}`},
		{"no questions", `{"questions":[]}`},
		{"question not an object", `{"questions":["Which?"]}`},
		{"question missing", question(`"options":[` + option + `],"multiSelect":false`)},
		{"question empty", question(`"question":"","options":[` + option + `],"multiSelect":false`)},
		{"question not a string", question(`"question":7,"options":[` + option + `],"multiSelect":false`)},
		{"header not a string", question(`"question":"Q?","header":1,"options":[` + option + `],"multiSelect":false`)},
		{"options missing", question(`"question":"Q?","multiSelect":false`)},
		{"options empty", question(`"question":"Q?","options":[],"multiSelect":false`)},
		{"options not an array", question(`"question":"Q?","options":"x","multiSelect":false`)},
		{"option not an object", question(`"question":"Q?","options":["x"],"multiSelect":false`)},
		{"label missing", question(`"question":"Q?","options":[{"description":"d"}],"multiSelect":false`)},
		{"label empty", question(`"question":"Q?","options":[{"label":""}],"multiSelect":false`)},
		{"label not a string", question(`"question":"Q?","options":[{"label":true}],"multiSelect":false`)},
		{"description not a string", question(`"question":"Q?","options":[{"label":"x","description":2}],"multiSelect":false`)},
		{"multiSelect missing", question(`"question":"Q?","options":[` + option + `]`)},
		{"multiSelect not a boolean", question(`"question":"Q?","options":[` + option + `],"multiSelect":"no"`)},
	}
	rec := &recorder{answers: [][]string{{"x"}}}
	s := start(t, rec.ask)
	cs := mustConnect(t, s.URL(), s.NewToken("a1"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callAsk(t, cs, tt.arguments)
			if !res.IsError {
				t.Errorf("no tool error; result: %s", text(res))
			}
		})
	}
	if calls := rec.recorded(); len(calls) != 0 {
		t.Errorf("the Asker was called for bad input: %v", calls)
	}
}

func TestAskQuestionNoAnswer(t *testing.T) {
	const questions = `{"questions":[{"question":"Q?","options":[{"label":"x"}],"multiSelect":false}]}`
	tests := []struct {
		name     string
		rec      *recorder
		wantText string
	}{
		{"Asker fails", &recorder{err: errors.New("card dismissed")}, "no answer: card dismissed"},
		{"too few answers", &recorder{answers: [][]string{}}, "no answer: got 0 answers for 1 questions"},
		{"too many answers", &recorder{answers: [][]string{{"x"}, {"y"}}}, "no answer: got 2 answers for 1 questions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, tt.rec.ask)
			cs := mustConnect(t, s.URL(), s.NewToken("a1"))
			res := callAsk(t, cs, questions)
			if !res.IsError {
				t.Fatalf("no tool error; result: %s", text(res))
			}
			if diff := cmp.Diff(tt.wantText, text(res)); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
	}
}

// blockingAsker waits for its context to end and reports it on ended.
type blockingAsker struct {
	started chan struct{}
	ended   chan error // the cause that ended the question
}

func newBlockingAsker() *blockingAsker {
	return &blockingAsker{started: make(chan struct{}, 1), ended: make(chan error, 1)}
}

func (b *blockingAsker) ask(ctx context.Context, _ string, _ json.RawMessage) ([][]string, error) {
	b.started <- struct{}{}
	<-ctx.Done()
	b.ended <- context.Cause(ctx)
	return nil, ctx.Err()
}

func TestAskQuestionClientCancels(t *testing.T) {
	b := newBlockingAsker()
	s := start(t, b.ask)
	cs := mustConnect(t, s.URL(), s.NewToken("a1"))
	ctx, cancel := context.WithCancel(t.Context())
	callErr := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: ToolAskQuestion, Arguments: json.RawMessage(
			`{"questions":[{"question":"Q?","options":[{"label":"x"}],"multiSelect":false}]}`)})
		callErr <- err
	}()
	<-b.started
	cancel()
	if err := <-callErr; !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool: %v, want context.Canceled", err)
	}
	if cause := <-b.ended; !errors.Is(cause, context.Canceled) {
		t.Errorf("question ended by %v, want context.Canceled", cause)
	}
}

// TestAskHandlerCancelled checks, on the handler itself, that a question
// cut short becomes a tool error saying why.
func TestAskHandlerCancelled(t *testing.T) {
	tests := []struct {
		name     string
		cancel   func(request, agent context.CancelCauseFunc)
		wantText string
	}{
		{"request cancelled", func(r, _ context.CancelCauseFunc) { r(nil) }, "no answer: context canceled"},
		{"agent revoked", func(_, a context.CancelCauseFunc) { a(errRevoked) }, "no answer: the agent's token was revoked"},
		{"server closed", func(_, a context.CancelCauseFunc) { a(errServerClosed) }, "no answer: the MCP server was closed"},
	}
	const arguments = `{"questions":[{"question":"Q?","options":[{"label":"x"}],"multiSelect":false}]}`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqCtx, cancelReq := context.WithCancelCause(t.Context())
			a := &agent{name: "a1"}
			a.ctx, a.cancel = context.WithCancelCause(t.Context())
			tt.cancel(cancelReq, a.cancel)
			var in AskInput
			json.Unmarshal([]byte(arguments), &in)
			req := &sdk.CallToolRequest{Params: &sdk.CallToolParamsRaw{Name: ToolAskQuestion, Arguments: json.RawMessage(arguments)}}
			_, _, err := askHandler(a, newBlockingAsker().ask)(reqCtx, req, in)
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tt.wantText, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnswersText(t *testing.T) {
	qs := []Question{{Question: "A?"}, {Question: "B\n?"}}
	got := answersText(qs, [][]string{{"1"}, {"x", "y\"z"}})
	want := `The user answered: "A?" = "1"; "B\n?" = "x", "y\"z".`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if strings.Contains(got, "\n") {
		t.Error("a newline of a question reached the text unquoted")
	}
}

// TestProtocolVersions: agents speak every MCP version the SDK knows, over
// HTTP directly and through the stdio bridge.
func TestProtocolVersions(t *testing.T) {
	for _, version := range []string{"", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		t.Run("v"+version, func(t *testing.T) {
			rec := &recorder{answers: [][]string{{"x"}}}
			s := start(t, rec.ask)
			client := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil)
			opts := &sdk.ClientSessionOptions{ProtocolVersion: version}
			direct, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{
				Endpoint:   s.URL(),
				HTTPClient: &http.Client{Transport: withHeader{s.NewToken("http")}},
			}, opts)
			if err != nil {
				t.Fatalf("connect over HTTP: %v", err)
			}
			defer direct.Close()
			b := startBridge(t, s.URL())
			if _, err := io.WriteString(b.toBridge, s.NewToken("stdio")+"\n"); err != nil {
				t.Fatal(err)
			}
			bridged, err := client.Connect(t.Context(), &sdk.IOTransport{Reader: b.fromBridge, Writer: b.toBridge}, opts)
			if err != nil {
				t.Fatalf("connect through the bridge: %v", err)
			}
			defer bridged.Close()
			for _, cs := range []*sdk.ClientSession{direct, bridged} {
				if res, err := cs.CallTool(t.Context(), askParams()); err != nil || res.IsError {
					t.Fatalf("CallTool: %v, %v", res, err)
				}
			}
			var agents []string
			for _, c := range rec.recorded() {
				agents = append(agents, c.Agent)
			}
			if diff := cmp.Diff([]string{"http", "stdio"}, agents); diff != "" {
				t.Errorf("agents asking (-want +got):\n%s", diff)
			}
		})
	}
}
