package mcp

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolAskQuestion is the name of the tool that asks the user questions.
const ToolAskQuestion = "ask_question"

// The tool's schemas are written out rather than inferred from Go types,
// so that what the agent reads (descriptions, required fields, minimums)
// is exactly what is meant.
var (
	//go:embed ask_question.input.json
	askQuestionInput []byte
	//go:embed ask_question.output.json
	askQuestionOutput []byte
)

const askQuestionDescription = "Ask the user one or more questions, each with options to choose from, " +
	"and wait for the answers. The questions are shown in Escouade as one card; " +
	"the user picks options (several when multiSelect is true) or types an answer."

// Question is one question of an ask_question call.
type Question struct {
	Question    string   `json:"question"`
	Header      string   `json:"header,omitempty"`
	Options     []Option `json:"options"`
	MultiSelect bool     `json:"multiSelect"`
}

// Option is one choice offered for a question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// AskInput is the input of ask_question.
type AskInput struct {
	Questions []Question `json:"questions"`
}

// AskOutput is the structured output of ask_question: one list per
// question, in order.
type AskOutput struct {
	Answers [][]string `json:"answers"`
}

// newAgentServer is agent a's own MCP server: its tool handlers know which
// agent asks without looking at the request.
func (s *Server) newAgentServer(a *agent) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: ServerName, Title: "Escouade", Version: s.opts.Version}, nil)
	sdk.AddTool(srv, &sdk.Tool{
		Name:         ToolAskQuestion,
		Title:        "Ask the user",
		Description:  askQuestionDescription,
		InputSchema:  json.RawMessage(askQuestionInput),
		OutputSchema: json.RawMessage(askQuestionOutput),
	}, askHandler(a, s.opts.Ask))
	return srv
}

// askHandler asks for a; the SDK has already checked the input against the
// schema. An error becomes a tool error (isError), not a protocol error.
func askHandler(a *agent, ask Asker) sdk.ToolHandlerFor[AskInput, AskOutput] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in AskInput) (*sdk.CallToolResult, AskOutput, error) {
		raw, err := rawQuestions(req.Params.Arguments)
		if err != nil {
			return nil, AskOutput{}, err
		}
		ctx, stop := whileLive(ctx, a.ctx)
		defer stop()
		answers, err := ask(ctx, a.name, raw)
		if err != nil {
			if cause := context.Cause(ctx); cause != nil {
				return nil, AskOutput{}, fmt.Errorf("no answer: %w", cause)
			}
			return nil, AskOutput{}, fmt.Errorf("no answer: %w", err)
		}
		if len(answers) != len(in.Questions) {
			return nil, AskOutput{}, fmt.Errorf("no answer: got %d answers for %d questions", len(answers), len(in.Questions))
		}
		out := AskOutput{Answers: nonNil(answers)}
		text := &sdk.TextContent{Text: answersText(in.Questions, out.Answers)}
		return &sdk.CallToolResult{Content: []sdk.Content{text}}, out, nil
	}
}

// rawQuestions is the "questions" value as the agent sent it.
func rawQuestions(arguments json.RawMessage) (json.RawMessage, error) {
	var args struct {
		Questions json.RawMessage `json:"questions"`
	}
	if err := json.Unmarshal(arguments, &args); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return args.Questions, nil
}

// whileLive is ctx, also cancelled (with live's cause) when live ends.
func whileLive(ctx, live context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	unhook := context.AfterFunc(live, func() { cancel(context.Cause(live)) })
	return ctx, func() {
		unhook()
		cancel(nil)
	}
}

// nonNil gives every question a list, so that the output never holds null.
func nonNil(answers [][]string) [][]string {
	out := make([][]string, len(answers))
	for i, a := range answers {
		out[i] = append([]string{}, a...)
	}
	return out
}

// answersText tells the model the answers in words:
//
//	The user answered: "Which database?" = "Postgres"; "Features?" = "auth", "billing".
func answersText(questions []Question, answers [][]string) string {
	var b strings.Builder
	b.WriteString("The user answered:")
	for i, q := range questions {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s = %s", strconv.Quote(q.Question), quoteAll(answers[i]))
	}
	b.WriteString(".")
	return b.String()
}

func quoteAll(labels []string) string {
	if len(labels) == 0 {
		return "(nothing)"
	}
	quoted := make([]string, len(labels))
	for i, l := range labels {
		quoted[i] = strconv.Quote(l)
	}
	return strings.Join(quoted, ", ")
}
