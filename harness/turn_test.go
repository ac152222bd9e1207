package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/acp"
)

func TestQuestionsInText(t *testing.T) {
	w := newWorld(t)
	r := start(t, w.script(t, "questions.json"), Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("ask me"))
	items := r.untilType(acp.TypeTurn)
	diff(t, "shown text", []string{"Which color?\n"}, texts(items, acp.TypeText))
	q := ofType(items, acp.TypeQuestion)
	if len(q) != 1 {
		t.Fatalf("question cards: %s", brief(items))
	}
	diff(t, "questions", []acp.Question{{Question: "Color?", Options: []acp.QuestionOption{{Label: "red"}, {Label: "blue"}}}}, q[0].Questions)
	r.must(r.s.AnswerQuestion(q[0].Request, [][]string{{"blue"}}))
	items = r.untilType(acp.TypeTurn)
	diff(t, "answers as the next message", []string{"Answers to your questions:\n1. Color?\n→ blue"}, texts(items, acp.TypeText))
	r.must(r.s.Prompt("again"))
	items = r.untilType(acp.TypeTurn)
	notices := texts(items, acp.TypeNotice)
	if len(notices) != 1 || !strings.Contains(notices[0], "question block is malformed") {
		t.Errorf("notices %q", notices)
	}
	first := ""
	for _, m := range r.received() {
		if string(m["method"]) == `"session/prompt"` && first == "" {
			first = string(m["params"])
		}
	}
	if !strings.Contains(first, "You have no tool to ask the user a question") {
		t.Errorf("the first prompt holds no instruction: %s", first)
	}
}

func TestCancel(t *testing.T) {
	w := newWorld(t)
	r := start(t, fixtureScript("cancel.json"), Options{Cwd: w.dir, CancelGrace: 200 * time.Millisecond})
	r.untilType(acp.TypeSession)
	for _, behaviour := range []string{"honour", "end_turn", "error"} {
		r.must(r.s.Prompt(behaviour))
		if behaviour == "honour" {
			r.untilText("working")
		}
		r.must(r.s.Cancel())
		items := r.untilType(acp.TypeTurn)
		diff(t, behaviour+": stop reason", acp.OutcomeCancelled, items[len(items)-1].StopReason)
		diff(t, behaviour+": notices", []string(nil), texts(items, acp.TypeNotice))
	}
	r.must(r.s.Prompt("ignore"))
	r.must(r.s.Cancel())
	items := r.untilType(acp.TypeClosed)
	diff(t, "ignored: turn", acp.OutcomeCancelled, ofType(items, acp.TypeTurn)[0].StopReason)
	diff(t, "ignored: notice", []string{"Fake ignored the cancel for 200ms: it was stopped (its process group killed)"}, texts(items, acp.TypeNotice))
	<-r.s.Done()
}

func TestCrash(t *testing.T) {
	w := newWorld(t)
	r := start(t, fixtureScript("crash.json"), Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("fall"))
	items := r.untilType(acp.TypeClosed)
	diff(t, "texts", []string{"about to fall"}, texts(items, acp.TypeText))
	diff(t, "notices", []string{"Fake stopped (exit code 3)"}, texts(items, acp.TypeNotice))
	diff(t, "turn", acp.StopError, ofType(items, acp.TypeTurn)[0].StopReason)
}

func TestBigLine(t *testing.T) {
	w := newWorld(t)
	r := start(t, fixtureScript("big-line.json"), Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("big"))
	items := r.untilType(acp.TypeTurn)
	got := texts(items, acp.TypeText)
	if len(got) != 2 || len(got[0]) != 20<<20 || got[1] != "after the big line" {
		t.Errorf("texts of %d items, first %d bytes", len(got), len(got[0]))
	}
}

func TestLineOverTheLimit(t *testing.T) {
	w := newWorld(t)
	r := start(t, fixtureScript("big-line.json"), Options{Cwd: w.dir, MaxLineBytes: 1 << 20})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("big"))
	items := r.untilType(acp.TypeTurn)
	diff(t, "texts", []string{"after the big line"}, texts(items, acp.TypeText))
	notices := texts(items, acp.TypeNotice)
	if len(notices) != 1 || !strings.Contains(notices[0], "over the limit of 1048576: it was dropped") {
		t.Errorf("notices %q", notices)
	}
}

func TestCloseEndsTheAgent(t *testing.T) {
	w := newWorld(t)
	r := start(t, w.script(t, "updates.json"), Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	if err := r.s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	items := r.untilType(acp.TypeClosed)
	diff(t, "notices", []string(nil), texts(items, acp.TypeNotice))
	methods := r.methods()
	diff(t, "last method", "session/close", methods[len(methods)-1])
}
