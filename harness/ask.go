package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// askPrefix starts the handles of the MCP tool's question cards, apart
// from the acp client's ("r1", "r2", …).
const askPrefix = "ask"

// ErrAskCancelled is the answer of a question card dropped by a cancel or
// the end of the session.
var ErrAskCancelled = errors.New("the question was cancelled")

type askReply struct {
	answers [][]string
	err     error
}

// Ask shows a question card for the MCP tool ask_question and waits for
// its answers (one list of chosen labels per question). questions is the
// tool's questions array, or an object holding it under "questions".
func (s *Session) Ask(ctx context.Context, questions json.RawMessage) ([][]string, error) {
	qs, err := DecodeQuestions(questions)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.askSeq++
	handle := fmt.Sprintf("%s%d", askPrefix, s.askSeq)
	s.mu.Unlock()
	reply := make(chan askReply, 1)
	if err := s.post(func() { s.openAsk(handle, qs, reply) }); err != nil {
		return nil, err
	}
	select {
	case r := <-reply:
		return r.answers, r.err
	case <-s.done:
		return nil, ErrClosed
	case <-ctx.Done():
		_ = s.post(func() { s.dropAsk(handle, ErrAskCancelled) }) // an ended session dropped it already
		return nil, ctx.Err()
	}
}

// DecodeQuestions reads the questions of ask_question; each needs a text.
func DecodeQuestions(raw json.RawMessage) ([]acp.Question, error) {
	var qs []acp.Question
	if err := json.Unmarshal(raw, &qs); err != nil {
		var wrapped struct {
			Questions []acp.Question `json:"questions"`
		}
		if err2 := json.Unmarshal(raw, &wrapped); err2 != nil {
			return nil, fmt.Errorf("questions: %v", err)
		}
		qs = wrapped.Questions
	}
	if len(qs) == 0 {
		return nil, errors.New("questions: none given")
	}
	for i, q := range qs {
		if q.Question == "" {
			return nil, fmt.Errorf("questions[%d]: no question text", i)
		}
	}
	return qs, nil
}

func (s *Session) openAsk(handle string, qs []acp.Question, reply chan askReply) {
	s.asks[handle] = reply
	s.emit(acp.Item{Type: acp.TypeQuestion, Request: handle, Questions: qs})
}

// answerQuestion answers an MCP question card, or else one of the client.
func (s *Session) answerQuestion(request string, answers [][]string) {
	reply, ok := s.asks[request]
	if !ok {
		s.take(s.client.AnswerQuestion(request, answers))
		return
	}
	delete(s.asks, request)
	reply <- askReply{answers: answers}
	s.emit(acp.Item{Type: acp.TypeAnswered, Request: request, Outcome: acp.OutcomeSelected, Answers: answers})
}

func (s *Session) dropAsk(handle string, err error) {
	reply, ok := s.asks[handle]
	if !ok {
		return
	}
	delete(s.asks, handle)
	reply <- askReply{err: err}
	s.emit(acp.Item{Type: acp.TypeAnswered, Request: handle, Outcome: acp.OutcomeCancelled})
}

// cancelAsks drops every waiting MCP question card, as a cancelled turn
// drops its permission cards.
func (s *Session) cancelAsks() {
	for _, handle := range slices.Sorted(maps.Keys(s.asks)) {
		s.dropAsk(handle, ErrAskCancelled)
	}
}
