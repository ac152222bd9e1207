package web

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/harness"
	"github.com/escouade-dev/escouade-plugin/harness/term"
	"github.com/escouade-dev/escouade-plugin/internal/safetext"
)

// itemView is a conversation item as the Agents page draws it: only the
// fields it shows, every text from the agent escaped as the journal's
// lines are (control and bidirectional characters written out, line
// breaks kept), diffs as their lines. The page puts each text in the
// document as text, never as markup.
type itemView struct {
	Type        string          `json:"type"`
	Request     string          `json:"request,omitempty"`
	MessageID   string          `json:"messageId,omitempty"`
	Text        string          `json:"text,omitempty"`
	ID          string          `json:"id,omitempty"`
	Name        string          `json:"name,omitempty"`
	Title       string          `json:"title,omitempty"`
	Status      string          `json:"status,omitempty"`
	Parent      string          `json:"parent,omitempty"`
	Error       string          `json:"error,omitempty"`
	Description string          `json:"description,omitempty"`
	Locations   []string        `json:"locations,omitempty"`
	Input       *inputView      `json:"input,omitempty"` // permission: what the tool is asked to run
	Diffs       []diffView      `json:"diffs,omitempty"`
	Options     []optionView    `json:"options,omitempty"`
	Questions   []questionView  `json:"questions,omitempty"`
	Answers     [][]string      `json:"answers,omitempty"`
	Kind        string          `json:"kind,omitempty"`
	Option      string          `json:"option,omitempty"`
	Outcome     string          `json:"outcome,omitempty"`
	Mode        string          `json:"mode,omitempty"`
	AppMode     string          `json:"appMode,omitempty"`
	Model       string          `json:"model,omitempty"`
	Models      []modelView     `json:"models,omitempty"` // session: the models the agent offers
	StopReason  string          `json:"stopReason,omitempty"`
	Usage       *acp.Usage      `json:"usage,omitempty"`
	Line        string          `json:"line,omitempty"` // the one line of the other kinds
	History     bool            `json:"history,omitempty"`
	Entries     []planEntryView `json:"entries,omitempty"`
}

// inputView is a card's tool input as the page shows it: the field a
// person decides on first (the command, the URL, the path…), then the
// whole input as indented JSON, each escaped and bounded by inputBytes.
type inputView struct {
	Field string `json:"field,omitempty"` // the leading field's name: command, url, path…
	Lead  string `json:"lead,omitempty"`  // its value, a text as it is, else its JSON
	JSON  string `json:"json"`
	Cut   int    `json:"cut,omitempty"` // the size in bytes of the whole input, when JSON is its start only
}

// inputBytes bounds the input a card carries (docs/serve.md#agents):
// enough for any command a person reads before saying yes; the card says
// when it is cut, so a person knows the agent asks more than is shown.
const inputBytes = 16 << 10

// leadFields are the fields of a tool input a person decides on, the first
// present leading the card, whatever the tool's kind.
var leadFields = []string{"command", "cmd", "url", "path", "file_path", "filePath", "query", "pattern", "args", "arguments"}

// inputOf is the view of a tool's raw input; nil when there is none.
func inputOf(raw json.RawMessage) *inputView {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	v := &inputView{}
	var pretty bytes.Buffer
	if json.Indent(&pretty, raw, "", "  ") != nil {
		pretty.Reset()
		pretty.Write(raw) // not JSON: shown as it came
	}
	v.JSON, v.Cut = bounded(pretty.String())
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return v
	}
	for _, name := range leadFields {
		value, ok := fields[name]
		if !ok {
			continue
		}
		var text string
		if json.Unmarshal(value, &text) != nil {
			text = string(value)
		}
		v.Field = name
		v.Lead, _ = bounded(text)
		break
	}
	return v
}

// bounded escapes s and keeps its first inputBytes; cut is len(s) when it
// was cut.
func bounded(s string) (text string, cut int) {
	if len(s) <= inputBytes {
		return safe(s), 0
	}
	return safe(strings.ToValidUTF8(s[:inputBytes], "")) + "…", len(s)
}

// modelView is a model the agent says it offers, for the Model menu.
type modelView struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// reportedModels bounds how many of the models an agent offers the Model
// menu lists: a menu a person reads, whatever the agent sends.
const reportedModels = 100

// reportedModel is the model an agent says its session runs, and those it
// offers: its config option of category model (currentValue, options,
// grouped or not), else the session's models (currentModelId,
// availableModels). Each escaped; "" when it says none.
func reportedModel(models, config json.RawMessage) (string, []modelView) {
	type choice struct {
		Value   string   `json:"value"`
		ModelID string   `json:"modelId"`
		Name    string   `json:"name"`
		Options []choice `json:"options"` // a group's
	}
	var options []struct {
		Category     string          `json:"category"`
		CurrentValue json.RawMessage `json:"currentValue"`
		Options      []choice        `json:"options"`
	}
	var legacy struct {
		CurrentModelID  string   `json:"currentModelId"`
		AvailableModels []choice `json:"availableModels"`
	}
	current, list := "", []choice(nil)
	if json.Unmarshal(config, &options) == nil {
		for _, o := range options {
			var value string
			if o.Category == "model" && json.Unmarshal(o.CurrentValue, &value) == nil && value != "" {
				current, list = value, o.Options
				break
			}
		}
	}
	if current == "" && json.Unmarshal(models, &legacy) == nil {
		current, list = legacy.CurrentModelID, legacy.AvailableModels
	}
	var views []modelView
	var walk func([]choice)
	walk = func(cs []choice) {
		for _, c := range cs {
			if len(views) == reportedModels {
				return
			}
			if id := cmp.Or(c.Value, c.ModelID); id != "" {
				views = append(views, modelView{ID: safe(id), Label: safe(cmp.Or(c.Name, id))})
			}
			walk(c.Options)
		}
	}
	walk(list)
	return safe(current), views
}

// diffView is a hunk of harness.Hunks, escaped: the page draws its lines
// as they are, the same lines the terminal shows.
type diffView struct {
	Path  string   `json:"path"`
	Lines []string `json:"lines"` // " " kept, "-" removed, "+" added
}

type optionView struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Kind string `json:"kind"`
}

type questionView struct {
	Question    string   `json:"question"`
	Header      string   `json:"header,omitempty"`
	Options     []string `json:"options"`
	MultiSelect bool     `json:"multiSelect"`
}

type planEntryView struct {
	Content string `json:"content"`
	Status  string `json:"status,omitempty"`
}

// safe escapes a text of the agent line by line, as the journal and the
// terminal do.
func safe(s string) string { return safetext.Text(s) }

func safeAll(list []string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = safe(s)
	}
	return out
}

// viewOf is what the page gets of an item.
func viewOf(it acp.Item) itemView {
	v := itemView{
		Type: it.Type, Request: safe(it.Request), MessageID: safe(it.MessageID), Text: safe(it.Text),
		ID: safe(it.ID), Name: safe(it.Name), Title: safe(it.Title), Status: safe(it.Status), Parent: safe(it.Parent),
		Error: safe(it.Error), Description: safe(it.Description), Locations: safeAll(it.Locations),
		Kind: safe(it.Kind), Option: safe(it.Option), Outcome: safe(it.Outcome), Mode: safe(it.Mode),
		AppMode: safe(it.AppMode), Model: safe(it.Model), StopReason: safe(it.StopReason), Usage: it.Usage,
		History: it.History,
	}
	if it.Type == acp.TypePermission {
		v.Input = inputOf(it.Input)
	}
	if it.Type == acp.TypeSession {
		v.Model, v.Models = reportedModel(it.Models, it.ConfigOptions)
	}
	for _, h := range harness.Hunks(it.Diffs) {
		v.Diffs = append(v.Diffs, diffView{Path: safe(h.Path), Lines: safeAll(h.Lines)})
	}
	for _, o := range it.Options {
		v.Options = append(v.Options, optionView{ID: safe(o.ID), Name: safe(o.Name), Kind: safe(o.Kind)})
	}
	for _, q := range it.Questions {
		qv := questionView{Question: safe(q.Question), Header: safe(q.Header), MultiSelect: q.MultiSelect}
		for _, o := range q.Options {
			qv.Options = append(qv.Options, safe(o.Label))
		}
		v.Questions = append(v.Questions, qv)
	}
	for _, a := range it.Answers {
		v.Answers = append(v.Answers, safeAll(a))
	}
	v.Entries = planEntries(it.Entries)
	v.Line = safe(otherLine(it))
	return v
}

// planEntries reads a plan's entries; what cannot be read is left out,
// the plan's text says the rest.
func planEntries(raw json.RawMessage) []planEntryView {
	var entries []planEntryView
	if len(raw) == 0 || json.Unmarshal(raw, &entries) != nil {
		return nil
	}
	for i := range entries {
		entries[i].Content, entries[i].Status = safe(entries[i].Content), safe(entries[i].Status)
	}
	return entries
}

// otherLine is the one line the page shows for the kinds it draws no
// card, tool or text for: the terminal's line (harness/term), but for the
// plan, whose entries the page lists, and the session's title.
func otherLine(it acp.Item) string {
	switch it.Type {
	case acp.TypeText, acp.TypeThinking, acp.TypeUser, acp.TypeTool, acp.TypeToolDone, acp.TypePermission,
		acp.TypeQuestion, acp.TypeAnswered, acp.TypeNotice, acp.TypeTurn:
		return "" // drawn by the page itself
	case acp.TypePlan:
		return "plan: " + it.Text
	case acp.TypeSessionInfo:
		return "title: " + it.Title
	}
	var plain term.Renderer // the zero Renderer writes plain text
	return strings.TrimSpace(plain.Render(it))
}

// resetItems is how many items a page's "reset" carries at most, after
// the chunks of each message are joined: the conversation's end, with a
// line saying how many earlier items are left out (all are kept in the
// home). It bounds what one page costs the view, whatever the agent said.
const resetItems = 5000

// resetBytes bounds the texts of a "reset" the same way: 4 MiB of the
// conversation's end.
const resetBytes = 4 << 20

// resetRead is how much of a conversation's end the view reads for a
// page's "reset" (Agents.SubscribeEnd), before resetViews bounds it.
const resetRead = 6 << 20

// resetViews is what a page reads first of a conversation: each message's
// consecutive chunks joined into one item (as the page draws them), then
// the last resetItems of those, within resetBytes; earlier is how many
// items before history were not read.
func resetViews(history []acp.Item, earlier int) []itemView {
	var views []itemView
	var run strings.Builder // the text of the message views ends with
	flush := func() {
		if n := len(views); n > 0 && run.Len() > 0 {
			views[n-1].Text = run.String()
		}
		run.Reset()
	}
	for _, it := range history {
		v := viewOf(it)
		if n := len(views); n > 0 && joinable(views[n-1], v) {
			if run.Len() == 0 {
				run.WriteString(views[n-1].Text)
			}
			run.WriteString(v.Text)
			continue
		}
		flush()
		views = append(views, v)
	}
	flush()
	cut := max(0, len(views)-resetItems)
	size := 0
	for i := len(views) - 1; i >= cut; i-- {
		size += len(views[i].Text)
		if size > resetBytes {
			// The item that crosses the bound keeps its end (a text longer
			// than the bound is shown from where it fits).
			keep := len(views[i].Text) - (size - resetBytes)
			views[i].Text = "…" + strings.ToValidUTF8(views[i].Text[len(views[i].Text)-keep:], "")
			cut = i
			break
		}
	}
	if cut+earlier > 0 {
		left := itemView{Type: acp.TypeNotice, Text: fmt.Sprintf("%d earlier items are not shown here; the whole conversation is kept under the home", cut+earlier)}
		views = append([]itemView{left}, views[cut:]...)
	}
	return views
}

// joinable tells whether v continues the message of prev.
func joinable(prev, v itemView) bool {
	switch v.Type {
	case acp.TypeText, acp.TypeThinking, acp.TypeUser:
		return prev.Type == v.Type && prev.MessageID == v.MessageID
	}
	return false
}
