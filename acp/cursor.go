package acp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Cursor CLI's cursor/* extensions (Options.Cursor), as Cursor's ACP page
// (cursor.com/docs/cli/acp, "Cursor extension methods") and the public
// clients that answer them describe them. Two are blocking requests the
// agent waits on; the others tell what it does.
const (
	methodCursorAskQuestion   = "cursor/ask_question"   // a question card; its answers go back
	methodCursorCreatePlan    = "cursor/create_plan"    // a plan to approve: a plan and a question card
	methodCursorUpdateTodos   = "cursor/update_todos"   // the to-do list: a plan item
	methodCursorTask          = "cursor/task"           // a sub-agent's task: a notice
	methodCursorGenerateImage = "cursor/generate_image" // an image it made: a notice
)

// cursorPrefix starts the methods of Cursor's extensions.
const cursorPrefix = "cursor/"

// The answers to a plan to approve, as its question card offers them.
const (
	planAccept = "Accept"
	planReject = "Reject"
)

// cursorAsk is what a cursor/* request's question card keeps to answer
// the agent: the ids of the questions and of their options by label.
type cursorAsk struct {
	method    string
	questions []string            // question ids, in order
	options   []map[string]string // per question: option label → option id
}

type cursorQuestion struct {
	ID            string `json:"id"`
	Prompt        string `json:"prompt"`
	AllowMultiple bool   `json:"allowMultiple"`
	Options       []struct {
		ID    string `json:"id"`
		Label string `json:"label"`
	} `json:"options"`
}

type cursorTodo struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

// cursorRequest handles a cursor/* message; false when it is not one the
// extension knows (the caller then refuses it as before).
func (c *Client) cursorMessage(m *incoming) (bool, error) {
	switch m.Method {
	case methodCursorAskQuestion:
		return true, c.onCursorAskQuestion(m)
	case methodCursorCreatePlan:
		return true, c.onCursorCreatePlan(m)
	case methodCursorUpdateTodos:
		return true, c.onCursorTodos(m)
	case methodCursorTask:
		return true, c.onCursorNotice(m, "Cursor runs a sub-agent: %s", "description")
	case methodCursorGenerateImage:
		return true, c.onCursorNotice(m, "Cursor generated an image: %s", "description", "filePath")
	}
	return false, nil
}

func (c *Client) onCursorAskQuestion(m *incoming) error {
	var p struct {
		Title     string           `json:"title"`
		Questions []cursorQuestion `json:"questions"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return err
	}
	if !m.hasID() {
		return fmt.Errorf("%s is a request: it needs an id", m.Method)
	}
	ask := &cursorAsk{method: m.Method}
	var questions []Question
	for _, q := range p.Questions {
		card := Question{Question: q.Prompt, Header: p.Title, MultiSelect: q.AllowMultiple}
		ids := map[string]string{}
		for _, o := range q.Options {
			card.Options = append(card.Options, QuestionOption{Label: o.Label})
			ids[o.Label] = o.ID
		}
		questions = append(questions, card)
		ask.questions = append(ask.questions, q.ID)
		ask.options = append(ask.options, ids)
	}
	if err := checkQuestions(questions); err != nil {
		return err
	}
	handle := c.handles.add(waiting{itemType: TypeQuestion, id: m.ID, questions: questions, cursor: ask})
	c.emit(Item{Type: TypeQuestion, Request: handle, Questions: questions})
	return nil
}

func (c *Client) onCursorCreatePlan(m *incoming) error {
	var p struct {
		Name     string       `json:"name"`
		Overview string       `json:"overview"`
		Plan     string       `json:"plan"`
		Todos    []cursorTodo `json:"todos"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return err
	}
	if !m.hasID() {
		return fmt.Errorf("%s is a request: it needs an id", m.Method)
	}
	text := strings.TrimSpace(strings.Join(slices.DeleteFunc([]string{p.Name, p.Overview, p.Plan}, func(s string) bool { return s == "" }), "\n\n"))
	c.emit(Item{Type: TypePlan, Text: text, Entries: planEntries(p.Todos)})
	title := c.text("Accept this plan?", "Accepter ce plan ?")
	if p.Name != "" {
		title = fmt.Sprintf("%s — %s", p.Name, title)
	}
	questions := []Question{{Question: title, Header: c.text("Plan to approve", "Plan à approuver"),
		Options: []QuestionOption{{Label: planAccept}, {Label: planReject}}}}
	handle := c.handles.add(waiting{itemType: TypeQuestion, id: m.ID, questions: questions, cursor: &cursorAsk{method: m.Method}})
	c.emit(Item{Type: TypeQuestion, Request: handle, Questions: questions})
	return nil
}

// onCursorTodos shows the agent's to-do list as a plan; with merge, the
// todos given replace those of the same id and the others stay.
func (c *Client) onCursorTodos(m *incoming) error {
	var p struct {
		Todos []cursorTodo `json:"todos"`
		Merge bool         `json:"merge"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return err
	}
	todos := p.Todos
	if p.Merge {
		todos = slices.Clone(c.cursorTodos)
		for _, t := range p.Todos {
			if i := slices.IndexFunc(todos, func(o cursorTodo) bool { return o.ID == t.ID }); i >= 0 {
				todos[i] = t
			} else {
				todos = append(todos, t)
			}
		}
	}
	c.cursorTodos = todos
	c.emit(Item{Type: TypePlan, Entries: planEntries(todos)})
	c.acknowledge(m)
	return nil
}

// onCursorNotice shows what the agent tells as a notice of the first
// non-empty of fields.
func (c *Client) onCursorNotice(m *incoming, format string, fields ...string) error {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return err
	}
	var said []string
	for _, f := range fields {
		var s string
		if json.Unmarshal(p[f], &s) == nil && s != "" {
			said = append(said, s)
		}
	}
	if len(said) == 0 {
		said = []string{"(it says no more)"}
	}
	c.emit(notice(fmt.Sprintf(format, strings.Join(said, " → "))))
	c.acknowledge(m)
	return nil
}

// acknowledge answers {} to what came as a request; a notification needs
// no answer.
func (c *Client) acknowledge(m *incoming) {
	if m.hasID() {
		c.answer(m.ID, struct{}{})
	}
}

// planEntries are Cursor's todos as ACP plan entries.
func planEntries(todos []cursorTodo) json.RawMessage {
	type entry struct {
		Content  string `json:"content"`
		Priority string `json:"priority"`
		Status   string `json:"status"`
	}
	entries := make([]entry, 0, len(todos))
	for _, t := range todos {
		status := t.Status
		if status == "cancelled" {
			status = "completed" // ACP plan entries know pending, in_progress and completed
		}
		entries = append(entries, entry{Content: t.Content, Priority: "medium", Status: status})
	}
	b, _ := json.Marshal(entries)
	return b
}

// answerCursor answers a cursor/* question card with the user's answers.
func (c *Client) answerCursor(w waiting, request string, answers [][]string) {
	ask := w.cursor
	if ask.method == methodCursorCreatePlan {
		var chosen []string
		if len(answers) > 0 {
			chosen = answers[0]
		}
		outcome := map[string]any{"outcome": "rejected"}
		switch {
		case slices.Contains(chosen, planAccept):
			outcome = map[string]any{"outcome": "accepted"}
		case len(chosen) > 0 && chosen[0] != planReject:
			outcome["reason"] = strings.Join(chosen, ", ") // a typed answer is why it is rejected
		}
		c.answer(w.id, map[string]any{"outcome": outcome})
	} else {
		type answer struct {
			QuestionID        string   `json:"questionId"`
			SelectedOptionIDs []string `json:"selectedOptionIds"`
		}
		list := []answer{}
		for i, id := range ask.questions {
			a := answer{QuestionID: id, SelectedOptionIDs: []string{}}
			if i < len(answers) {
				for _, label := range answers[i] {
					a.SelectedOptionIDs = append(a.SelectedOptionIDs, optionID(ask.options[i], label))
				}
			}
			list = append(list, a)
		}
		c.answer(w.id, map[string]any{"outcome": map[string]any{"outcome": "answered", "answers": list}})
	}
	c.emit(Item{Type: TypeAnswered, Request: request, Outcome: OutcomeSelected, Answers: answers})
}

// optionID is the id of the option of that label; a typed answer that is
// no option's label goes as it is.
func optionID(ids map[string]string, label string) string {
	if id, ok := ids[label]; ok {
		return id
	}
	return label
}

// cancelCursorCards answers every waiting cursor/* card cancelled, as a
// cancelled turn answers its permission cards.
func (c *Client) cancelCursorCards() {
	for _, handle := range c.handles.ofType(TypeQuestion) {
		if w := c.handles.waiting[handle]; w.cursor != nil {
			c.handles.take(handle)
			c.answer(w.id, map[string]any{"outcome": map[string]any{"outcome": OutcomeCancelled}})
			c.emit(Item{Type: TypeAnswered, Request: handle, Outcome: OutcomeCancelled})
		}
	}
}
