package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The block an agent without a question tool ends its turn with
// (docs/harness.md#questions-in-text).
const (
	questionOpenTag  = "<escouade_question>"
	questionCloseTag = "</escouade_question>"
)

// Instructions given with the first prompt of a session under
// Options.QuestionsInText.
const (
	questionInstructionEN = "You have no tool to ask the user a question. To ask one, end your turn with exactly one block " +
		`<escouade_question>{"questions":[{"question":"…","options":["…","…"],"multiSelect":false}]}</escouade_question>` +
		" and write nothing after it. The user's answers will come back as the next message."
	questionInstructionFR = "Tu n'as pas d'outil pour poser une question à l'utilisateur. Pour en poser une, termine ton tour par un seul bloc " +
		`<escouade_question>{"questions":[{"question":"…","options":["…","…"],"multiSelect":false}]}</escouade_question>` +
		" et n'écris rien après. Les réponses de l'utilisateur arriveront dans le message suivant."
)

// Question is one question of a question card.
type Question struct {
	Question    string           `json:"question"`
	Header      string           `json:"header,omitempty"`
	Options     []QuestionOption `json:"options"`
	MultiSelect bool             `json:"multiSelect"`
}

// QuestionOption is one choice; the block may give it as a bare string.
type QuestionOption struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// UnmarshalJSON takes "label" as well as {"label": …, "description": …}.
func (o *QuestionOption) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &o.Label); err == nil {
		return nil
	}
	type plain QuestionOption
	return json.Unmarshal(b, (*plain)(o))
}

// questionState holds back agent text that may be a question block.
type questionState struct {
	tail, tailID string // end of the shown text that may start the open tag
	held, heldID string // text from the open tag on, until the turn ends
	holding      bool
}

// scanForQuestion shows agent text, holding back what may be a question block.
func (c *Client) scanForQuestion(id, text string) {
	q := &c.question
	if q.holding {
		q.held += text
		return
	}
	if q.tail != "" && q.tailID != id {
		c.emitText(TypeText, q.tailID, q.tail)
		q.tail = ""
	}
	s := q.tail + text
	q.tail = ""
	if i := strings.Index(s, questionOpenTag); i >= 0 {
		c.emitText(TypeText, id, s[:i])
		q.held, q.heldID, q.holding = s[i:], id, true
		return
	}
	keep := partialTagLen(s)
	c.emitText(TypeText, id, s[:len(s)-keep])
	q.tail, q.tailID = s[len(s)-keep:], id
}

// partialTagLen is the length of the longest end of s that begins the open tag.
func partialTagLen(s string) int {
	for n := min(len(s), len(questionOpenTag)-1); n > 0; n-- {
		if strings.HasPrefix(questionOpenTag, s[len(s)-n:]) {
			return n
		}
	}
	return 0
}

// endQuestionScan runs at the end of a turn: held text becomes a question
// card, or is shown with a notice when it is not one well-formed block.
func (c *Client) endQuestionScan() {
	q := c.question
	c.question = questionState{}
	c.emitText(TypeText, q.tailID, q.tail)
	if !q.holding {
		return
	}
	questions, err := parseQuestionBlock(q.held)
	if err != nil {
		c.emitText(TypeText, q.heldID, q.held)
		c.emit(notice(fmt.Sprintf("the agent's question block is malformed (%v); it is shown as text", err)))
		return
	}
	c.emit(Item{Type: TypeQuestion, Request: c.handles.addQuestion(questions), Questions: questions})
}

func parseQuestionBlock(s string) ([]Question, error) {
	body, _ := strings.CutPrefix(s, questionOpenTag)
	end := strings.Index(body, questionCloseTag)
	if end < 0 {
		return nil, errors.New("no " + questionCloseTag)
	}
	if strings.TrimSpace(body[end+len(questionCloseTag):]) != "" {
		return nil, errors.New("text after the block")
	}
	var block struct {
		Questions []Question `json:"questions"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(body[:end])))
	if err := dec.Decode(&block); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return block.Questions, checkQuestions(block.Questions)
}

func checkQuestions(questions []Question) error {
	if len(questions) == 0 {
		return errors.New("no questions")
	}
	for i, q := range questions {
		if strings.TrimSpace(q.Question) == "" {
			return fmt.Errorf("question %d has no text", i+1)
		}
	}
	return nil
}

func (c *Client) questionInstruction() string {
	if c.opts.french() {
		return questionInstructionFR
	}
	return questionInstructionEN
}

// AnswerQuestion answers a question card: the answers (one list of chosen
// labels or typed texts per question) go to the agent as the next user
// message, which starts a turn.
func (c *Client) AnswerQuestion(request string, answers [][]string) ([]Item, []Out) {
	w, ok := c.handles.waiting[request]
	switch {
	case !ok || w.itemType != TypeQuestion:
		c.emit(notice(fmt.Sprintf("no question card %s is waiting", request)))
		return c.flush()
	case w.cursor != nil:
		// The agent waits on its cursor/* request, inside its turn: the
		// answers are its answer, not a new message.
		c.handles.take(request)
		c.answerCursor(w, request, answers)
		return c.flush()
	case c.turn.running || c.turn.queued != nil:
		c.emit(notice("a turn is already running: wait for its end or cancel it"))
		return c.flush()
	}
	c.handles.take(request)
	questions := w.questions
	c.emit(Item{Type: TypeAnswered, Request: request, Outcome: "selected", Answers: answers})
	c.prompt(c.answersMessage(questions, answers))
	return c.flush()
}

func (c *Client) answersMessage(questions []Question, answers [][]string) string {
	var b strings.Builder
	b.WriteString(c.text("Answers to your questions:", "Réponses à tes questions :"))
	for i, q := range questions {
		var chosen []string
		if i < len(answers) {
			chosen = answers[i]
		}
		given := strings.Join(chosen, ", ")
		if given == "" {
			given = c.text("(no answer)", "(pas de réponse)")
		}
		fmt.Fprintf(&b, "\n%d. %s\n→ %s", i+1, q.Question, given)
	}
	return b.String()
}

func (c *Client) text(en, fr string) string {
	if c.opts.french() {
		return fr
	}
	return en
}
