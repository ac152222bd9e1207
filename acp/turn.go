package acp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// turnState is the prompt being answered.
type turnState struct {
	running       bool
	promptID      int64         // id of the session/prompt request
	cancelPending bool          // Cancel was called, the prompt is not answered yet
	queued        *userPrompt   // a prompt given before the session was open
	instructed    bool          // the question instruction went with a prompt
	context       *ContextUsage // the latest usage_update of the running turn
}

type promptParams struct {
	SessionID string `json:"sessionId"`
	Prompt    []any  `json:"prompt"` // content blocks: textBlock, imageBlock, resourceBlock
}

// userPrompt is a user message: its text and the files given with it.
type userPrompt struct {
	text  string
	files []Attachment
}

// Attachment is a file given with a prompt: an image (an image block) or
// a PDF (an embedded resource). The harness checks that the agent takes
// it (caps.images, caps.pdf) before it gets here.
type Attachment struct {
	Path     string // absolute: the resource's file:// URI
	MimeType string
	Data     []byte
}

// IsImage reports whether the file goes as an image block.
func (a Attachment) IsImage() bool { return strings.HasPrefix(a.MimeType, "image/") }

type imageBlock struct {
	Type     string `json:"type"` // image
	MimeType string `json:"mimeType"`
	Data     string `json:"data"` // base64
	URI      string `json:"uri,omitempty"`
}

type resourceBlock struct {
	Type     string       `json:"type"` // resource
	Resource blobResource `json:"resource"`
}

type blobResource struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType"`
	Blob     string `json:"blob"` // base64
}

func (a Attachment) block() any {
	data := base64.StdEncoding.EncodeToString(a.Data)
	path := filepath.ToSlash(a.Path)
	if !strings.HasPrefix(path, "/") {
		path = "/" + path // C:/x.png is file:///C:/x.png
	}
	uri := (&url.URL{Scheme: "file", Path: path}).String()
	if a.IsImage() {
		return imageBlock{Type: "image", MimeType: a.MimeType, Data: data, URI: uri}
	}
	return resourceBlock{Type: "resource", Resource: blobResource{URI: uri, MimeType: a.MimeType, Blob: data}}
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type promptResult struct {
	StopReason string `json:"stopReason"`
	Usage      *Usage `json:"usage"`
}

// Prompt sends a user message, which starts a turn. Before the session is
// open it waits for it; while a turn runs it is refused with a notice.
func (c *Client) Prompt(text string) ([]Item, []Out) {
	c.prompt(text)
	return c.flush()
}

// PromptWith sends a user message with files (images, PDFs) after its text.
func (c *Client) PromptWith(text string, files []Attachment) ([]Item, []Out) {
	c.promptFiles(userPrompt{text: text, files: files})
	return c.flush()
}

func (c *Client) prompt(text string) { c.promptFiles(userPrompt{text: text}) }

func (c *Client) promptFiles(p userPrompt) {
	switch {
	case c.phase == phaseEnded:
		c.emit(notice("the session has ended"))
	case c.turn.running || c.turn.queued != nil:
		c.emit(notice("a turn is already running: wait for its end or cancel it"))
	case c.phase != phaseReady:
		c.turn.queued = &p
	default:
		c.sendPrompt(p)
	}
}

func (c *Client) sendPrompt(p userPrompt) {
	blocks := []any{}
	if c.opts.QuestionsInText && c.session.attach == AttachNew && !c.turn.instructed {
		blocks = append(blocks, textBlock{Type: "text", Text: c.questionInstruction()})
		c.turn.instructed = true
	}
	blocks = append(blocks, textBlock{Type: "text", Text: p.text})
	var paths []string
	for _, f := range p.files {
		blocks = append(blocks, f.block())
		paths = append(paths, f.Path)
	}
	c.emit(Item{Type: TypeUser, MessageID: c.messageID(TypeUser, ""), Text: p.text, Files: paths})
	c.turn.running, c.turn.cancelPending, c.turn.context = true, false, nil
	c.turn.promptID = c.call(methodSessionPrompt, promptParams{SessionID: c.session.id, Prompt: blocks}, c.onPromptAnswer)
}

// sendWaiting sends what was asked before the session was open.
func (c *Client) sendWaiting() {
	c.applyWanted()
	if q := c.turn.queued; q != nil {
		c.turn.queued = nil
		c.sendPrompt(*q)
	}
}

func (c *Client) onPromptAnswer(result json.RawMessage, err *Error) {
	cancelled := c.turn.cancelPending
	c.turn.running, c.turn.cancelPending = false, false
	if c.opts.QuestionsInText {
		c.endQuestionScan()
	}
	if err != nil {
		c.endTurnOnError(err, cancelled)
		return
	}
	var r promptResult
	if e := json.Unmarshal(result, &r); e != nil || r.StopReason == "" {
		c.emit(notice("the agent's prompt answer holds no stopReason"), unknown(result))
		r.StopReason = StopError
	}
	if cancelled && r.StopReason == "end_turn" {
		r.StopReason = OutcomeCancelled
	}
	if r.Usage != nil {
		c.totals.add(*r.Usage)
	}
	c.emit(Item{Type: TypeTurn, StopReason: r.StopReason, Usage: c.turnUsage(r.Usage)})
}

// turnUsage is the turn's token counts: the prompt answer's, else, when the
// agent sent usage_update during the turn but no usage in its answer
// (codex-acp), the context's used tokens at the turn's end, marked
// fromContext. Those are not added to Totals: each counts the context
// again.
func (c *Client) turnUsage(given *Usage) *Usage {
	if given != nil || c.turn.context == nil {
		return given
	}
	return &Usage{TotalTokens: c.turn.context.Used, FromContext: true}
}

func (c *Client) endTurnOnError(err *Error, cancelled bool) {
	if cancelled && err.Code == CodeRequestCancelled {
		c.emit(Item{Type: TypeTurn, StopReason: OutcomeCancelled, Usage: c.turnUsage(nil)})
		return
	}
	c.emit(notice(fmt.Sprintf("the agent failed the turn: %v", err)), Item{Type: TypeTurn, StopReason: StopError, Usage: c.turnUsage(nil)})
}

// Cancel cancels the running turn: session/cancel (and $/cancel_request
// with Options.CancelRequests), and every waiting permission card is
// answered cancelled. The turn ends when the agent answers the prompt.
func (c *Client) Cancel() ([]Item, []Out) {
	switch {
	case c.turn.queued != nil:
		c.turn.queued = nil
		c.emit(Item{Type: TypeTurn, StopReason: OutcomeCancelled})
	case c.turn.running && !c.turn.cancelPending:
		c.turn.cancelPending = true
		c.notify(methodSessionCancel, struct {
			SessionID string `json:"sessionId"`
		}{c.session.id})
		if c.opts.CancelRequests {
			c.notify(methodCancelRequest, struct {
				RequestID int64 `json:"requestId"`
			}{c.turn.promptID})
		}
		c.cancelPermissions()
		c.cancelCursorCards()
	}
	return c.flush()
}

// CancelPending tells whether Cancel was called and the agent has not ended
// the turn yet; the harness stops an agent that stays so too long.
func (c *Client) CancelPending() bool { return c.turn.cancelPending }

// TurnRunning tells whether a prompt waits for its answer.
func (c *Client) TurnRunning() bool { return c.turn.running }

// TurnPending reports whether a turn runs or a prompt waits for the session
// to start one.
func (c *Client) TurnPending() bool { return c.turn.running || c.turn.queued != nil }

// Opening reports whether the session is still being opened (initialize,
// session/new or its re-attach under way).
func (c *Client) Opening() bool {
	return c.phase == phaseInitializing || c.phase == phaseOpening
}

// AgentStopped tells the client that the agent's process has ended (crash,
// or stopped by the harness); the running turn ends and the client closes.
// reason, when not empty, is shown as a notice.
func (c *Client) AgentStopped(reason string) []Item {
	if c.phase == phaseEnded {
		return nil
	}
	stop := StopError
	if c.turn.cancelPending {
		stop = OutcomeCancelled
	}
	c.endRunningTurn(stop)
	if reason != "" {
		c.emit(notice(reason))
	}
	c.end()
	items, _ := c.flush()
	return items
}

// endRunningTurn ends a turn the agent will not answer any more, showing
// the text it held back.
func (c *Client) endRunningTurn(stop string) {
	if !c.turn.running {
		return
	}
	c.turn.running, c.turn.cancelPending = false, false
	if c.opts.QuestionsInText {
		c.endQuestionScan()
	}
	c.emit(Item{Type: TypeTurn, StopReason: stop, Usage: c.turnUsage(nil)})
}

// Close ends the session: waiting permission cards are answered cancelled,
// a running turn ends cancelled, session/close is sent when the agent
// offers it, and the client closes.
// The harness then closes the agent's stdin.
func (c *Client) Close() ([]Item, []Out) {
	if c.phase == phaseEnded {
		return nil, nil
	}
	c.cancelPermissions()
	c.cancelCursorCards()
	c.endRunningTurn(OutcomeCancelled)
	if c.agent.close && c.session.id != "" && c.phase == phaseReady {
		c.call(methodSessionClose, struct {
			SessionID string `json:"sessionId"`
		}{c.session.id}, func(json.RawMessage, *Error) {})
	}
	c.end()
	return c.flush()
}
