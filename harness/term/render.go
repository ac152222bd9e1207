package term

import (
	"fmt"
	"strings"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/harness"
	"github.com/escouade-dev/escouade-plugin/internal/safetext"
)

// ANSI styles.
const (
	styleReset  = "\x1b[0m"
	styleDim    = "\x1b[2m"
	styleBold   = "\x1b[1m"
	styleRed    = "\x1b[31m"
	styleGreen  = "\x1b[32m"
	styleYellow = "\x1b[33m"
	styleCyan   = "\x1b[36m"
)

// Renderer turns items into terminal text. The zero value writes plain
// text; Color adds ANSI colours.
type Renderer struct {
	Color bool

	message string     // the message being streamed: type and id
	cards   []acp.Item // cards waiting for an answer, oldest first
}

// Render gives the text of one item, to print as is.
func (r *Renderer) Render(it acp.Item) string {
	var b strings.Builder
	if it.Type != acp.TypeText && it.Type != acp.TypeThinking || r.message != it.Type+it.MessageID {
		if r.message != "" {
			b.WriteString("\n")
		}
		r.message = ""
	}
	r.write(&b, it)
	return b.String()
}

func (r *Renderer) write(b *strings.Builder, it acp.Item) {
	switch it.Type {
	case acp.TypeText, acp.TypeThinking:
		r.stream(b, it)
	case acp.TypeUser:
		fmt.Fprintf(b, "\n%s\n", r.style(styleBold, "> "+body(it.Text)))
		for _, f := range it.Files {
			fmt.Fprintf(b, "  + %s\n", line(f))
		}
	case acp.TypeTool, acp.TypeToolDone:
		r.tool(b, it)
	case acp.TypePermission:
		r.cards = append(r.cards, it)
		r.permission(b, it)
	case acp.TypeQuestion:
		r.cards = append(r.cards, it)
		r.question(b, it)
	case acp.TypeAnswered:
		r.drop(it.Request)
		fmt.Fprintf(b, "%s\n", r.style(styleDim, "  → "+line(answeredText(it))))
	case acp.TypeNotice:
		fmt.Fprintf(b, "%s\n", r.style(styleYellow, "! "+body(it.Text)))
	case acp.TypeTurn:
		fmt.Fprintf(b, "%s\n", r.style(styleDim, line(turnText(it))))
	default:
		if line := otherLine(it); line != "" {
			fmt.Fprintf(b, "%s\n", r.style(styleDim, body(line)))
		}
	}
}

func (r *Renderer) stream(b *strings.Builder, it acp.Item) {
	r.message = it.Type + it.MessageID
	if it.Type == acp.TypeThinking {
		b.WriteString(r.style(styleDim, body(it.Text)))
		return
	}
	b.WriteString(body(it.Text))
}

func (r *Renderer) tool(b *strings.Builder, it acp.Item) {
	name := it.Name
	if it.Title != "" && it.Title != name {
		name += " · " + it.Title
	}
	if it.Parent != "" {
		name = "  " + name
	}
	status := it.Status
	if it.Type == acp.TypeToolDone && it.Error != "" {
		status += ": " + it.Error
	}
	line := "⏺ " + name
	if status != "" {
		line += " [" + status + "]"
	}
	fmt.Fprintf(b, "%s\n", r.style(styleCyan, safetext.Line(line)))
	r.diffs(b, it.Diffs)
}

func (r *Renderer) permission(b *strings.Builder, it acp.Item) {
	fmt.Fprintf(b, "%s\n", r.style(styleBold, "? "+line(or(it.Name, "tool"))+" wants to run: "+line(or(it.Title, it.ID))))
	if it.Description != "" {
		fmt.Fprintf(b, "  %s\n", body(it.Description))
	}
	r.diffs(b, it.Diffs)
	for i, o := range it.Options {
		fmt.Fprintf(b, "  [%d] %s (%s)\n", i+1, line(kindLabel(o.Kind)), line(o.Name))
	}
}

func (r *Renderer) question(b *strings.Builder, it acp.Item) {
	for qi, q := range it.Questions {
		fmt.Fprintf(b, "%s\n", r.style(styleBold, fmt.Sprintf("? %d. %s", qi+1, body(q.Question))))
		for i, o := range q.Options {
			fmt.Fprintf(b, "  [%d] %s\n", i+1, line(o.Label))
		}
	}
	if len(it.Questions) > 1 {
		b.WriteString("  (answer each question, separated by ';')\n")
	}
}

// diffs draws the hunks the harness makes of an item's diffs
// (harness.Hunks), the lines the Agents page shows too, coloured.
func (r *Renderer) diffs(b *strings.Builder, diffs []acp.Diff) {
	for _, h := range harness.Hunks(diffs) {
		fmt.Fprintf(b, "  %s\n", r.style(styleBold, line(h.Path)))
		for _, l := range h.Lines {
			l = safetext.KeepTabs(l)
			switch l[0] {
			case '+':
				l = r.style(styleGreen, l)
			case '-':
				l = r.style(styleRed, l)
			}
			fmt.Fprintf(b, "  %s\n", l)
		}
	}
}

// Waiting gives the oldest card waiting for an answer.
func (r *Renderer) Waiting() (acp.Item, bool) {
	if len(r.cards) == 0 {
		return acp.Item{}, false
	}
	return r.cards[0], true
}

func (r *Renderer) drop(request string) {
	for i, c := range r.cards {
		if c.Request == request {
			r.cards = append(r.cards[:i], r.cards[i+1:]...)
			return
		}
	}
}

func (r *Renderer) style(s, text string) string {
	if !r.Color || text == "" {
		return text
	}
	return s + text + styleReset
}

func kindLabel(kind string) string {
	switch kind {
	case "allow_once":
		return "Allow once"
	case "allow_always":
		return "Allow always"
	case "reject_once":
		return "Reject"
	case "reject_always":
		return "Reject always"
	}
	return kind
}

func answeredText(it acp.Item) string {
	switch {
	case it.Outcome == acp.OutcomeCancelled:
		return "cancelled"
	case it.Answers != nil:
		var parts []string
		for _, a := range it.Answers {
			parts = append(parts, strings.Join(a, ", "))
		}
		return strings.Join(parts, "; ")
	}
	return kindLabel(it.Kind)
}

func turnText(it acp.Item) string {
	s := "— end of turn (" + it.StopReason + ")"
	if u := it.Usage; u != nil {
		s += fmt.Sprintf(", %d tokens in, %d out", u.InputTokens, u.OutputTokens)
	}
	return s
}

// otherLine is the one line of the remaining item types, "" for none.
func otherLine(it acp.Item) string {
	switch it.Type {
	case acp.TypeSession:
		return "session " + it.SessionID + " (" + it.Attach + ")"
	case acp.TypeMode:
		return "mode: " + it.Mode
	case acp.TypeModel:
		return "model: " + it.Model
	case acp.TypeUsage:
		if it.Context != nil {
			return fmt.Sprintf("context: %d of %d tokens", it.Context.Used, it.Context.Size)
		}
	case acp.TypePlan:
		if it.Text != "" {
			return "plan: " + it.Text + "\n" + string(it.Entries)
		}
		return "plan: " + string(it.Entries)
	case acp.TypeClosed:
		return "session closed"
	case acp.TypeUnknown:
		return "unknown: " + string(it.Raw)
	case acp.TypeFSRead:
		return "read " + it.Path
	case acp.TypeFSWrite:
		return "wrote " + it.Path
	}
	return ""
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// line is an agent's text that stands on one line of a card or a status
// (a tool's name, a title, an option): everything that could act on the
// terminal, break the line or hide text is shown escaped, so a card shows
// what the agent sent and nothing can draw over it.
func line(s string) string { return safetext.Line(s) }

// body is an agent's text of several lines (a message, a description, a
// question): its line breaks are kept, and each line is escaped as line
// escapes it, tabs kept, as the Agents page shows it.
func body(s string) string { return safetext.Text(s) }
