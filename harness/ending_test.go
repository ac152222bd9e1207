package harness

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// endsLast checks that closed is the last item and that every card shown
// was answered before it.
func endsLast(t *testing.T, items []acp.Item) {
	t.Helper()
	if len(items) == 0 || items[len(items)-1].Type != acp.TypeClosed {
		t.Fatalf("items do not end with closed: %s", brief(items))
	}
	open := map[string]bool{}
	for _, it := range items[:len(items)-1] {
		switch it.Type {
		case acp.TypePermission, acp.TypeQuestion:
			open[it.Request] = true
		case acp.TypeAnswered:
			delete(open, it.Request)
		case acp.TypeClosed:
			t.Errorf("closed twice: %s", brief(items))
		}
	}
	if len(open) > 0 {
		t.Errorf("cards never answered before closed %v: %s", open, brief(items))
	}
}

// allItems closes the session and returns every item it gave.
func (r *run) allItems() []acp.Item {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	r.s.Close(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]acp.Item(nil), r.items...)
}

// TestAgentDiesWithCardsPending: an agent that died with a permission card
// and a question card waiting left both unanswered, the question's after
// closed.
func TestAgentDiesWithCardsPending(t *testing.T) {
	w := newWorld(t)
	script := reviewScript(t, `{"scenes":[{"steps":[
		{"permission":{"toolCall":{"toolCallId":"p1","title":"Run make","kind":"execute"},
			"options":[{"optionId":"y","name":"Allow","kind":"allow_once"},{"optionId":"n","name":"Reject","kind":"reject_once"}]}}
	]}]}`)
	r := start(t, script, Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("go"))
	r.untilType(acp.TypePermission)
	asked := make(chan error, 1)
	go func() {
		_, err := r.s.Ask(context.Background(), json.RawMessage(`[{"question":"Q?","options":[{"label":"a"}]}]`))
		asked <- err
	}()
	r.untilType(acp.TypeQuestion)
	r.s.proc.KillGroup() // the agent dies
	r.untilType(acp.TypeClosed)
	if err := <-asked; err == nil {
		t.Error("the question was answered by a dead agent's end")
	}
	endsLast(t, r.allItems())
}

// TestAgentOutputEndsWhileRunning: an agent that closes its stdout and
// lingers held the session until the process exited.
func TestAgentOutputEndsWhileRunning(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script agent")
	}
	w := newWorld(t)
	bin := t.TempDir()
	agent := "#!/bin/sh\n" +
		"if [ \"$1\" = --version ]; then echo 'fake-acp 1.0.0'; exit 0; fi\n" +
		"exec >&-\n" +
		"while read -r line; do :; done\n" // lingers, reading, until stdin ends
	if err := os.WriteFile(filepath.Join(bin, "fake-acp"), []byte(agent), 0o755); err != nil {
		t.Fatal(err)
	}
	r := start(t, "", Options{Cwd: w.dir, Env: []string{"PATH=" + bin, "HOME=" + os.TempDir()}})
	items := r.untilType(acp.TypeClosed)
	notices := texts(items, acp.TypeNotice)
	want := "Fake closed its output while still running: it was stopped"
	found := false
	for _, n := range notices {
		found = found || n == want
	}
	if !found {
		t.Errorf("notices %q, want %q", notices, want)
	}
	endsLast(t, r.allItems())
}

// TestNothingAfterClosed: an item the session would give after closed (a
// question asked as the session ends) is not given.
func TestNothingAfterClosed(t *testing.T) {
	w := newWorld(t)
	r := start(t, fixtureScript("crash.json"), Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("fall"))
	r.untilType(acp.TypeClosed)
	if _, err := r.s.Ask(context.Background(), json.RawMessage(`[{"question":"Q?"}]`)); !errors.Is(err, ErrClosed) {
		t.Errorf("Ask after the end = %v, want ErrClosed", err)
	}
	endsLast(t, r.allItems())
}
