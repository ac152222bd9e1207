package harness

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
)

func TestDecodeQuestions(t *testing.T) {
	want := []acp.Question{{Question: "Q?", Options: []acp.QuestionOption{{Label: "a"}}}}
	for _, in := range []string{`[{"question":"Q?","options":["a"]}]`, `{"questions":[{"question":"Q?","options":[{"label":"a"}]}]}`} {
		got, err := DecodeQuestions(json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		diff(t, in, want, got)
	}
	for _, bad := range []string{`[]`, `{}`, `[{"options":["a"]}]`, `3`, `{"questions":"x"}`} {
		if _, err := DecodeQuestions(json.RawMessage(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func FuzzDecodeQuestions(f *testing.F) {
	f.Add(`[{"question":"Q?","options":["a"]}]`)
	f.Fuzz(func(t *testing.T, in string) {
		qs, err := DecodeQuestions(json.RawMessage(in))
		if err == nil && len(qs) == 0 {
			t.Fatal("no questions and no error")
		}
	})
}

func TestAskQuestionCard(t *testing.T) {
	w := newWorld(t)
	r := start(t, w.script(t, "updates.json"), Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	type result struct {
		answers [][]string
		err     error
	}
	got := make(chan result, 2)
	ask := func(ctx context.Context) {
		a, err := r.s.Ask(ctx, json.RawMessage(`{"questions":[{"question":"Go on?","options":["yes","no"]}]}`))
		got <- result{a, err}
	}
	go ask(t.Context())
	card := r.untilType(acp.TypeQuestion)
	handle := card[len(card)-1].Request
	r.must(r.s.AnswerQuestion(handle, [][]string{{"yes"}}))
	res := <-got
	diff(t, "answers", [][]string{{"yes"}}, res.answers)
	ctx, cancel := context.WithCancel(t.Context())
	go ask(ctx)
	r.untilType(acp.TypeQuestion)
	cancel()
	res = <-got
	if !errors.Is(res.err, context.Canceled) {
		t.Errorf("cancelled ask: %v", res.err)
	}
	go ask(t.Context())
	r.untilType(acp.TypeQuestion)
	r.must(r.s.Close(t.Context()))
	res = <-got
	if res.err == nil {
		t.Error("an ask outlived its session")
	}
}
