package harness

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// titleScript names its session in its first turn, twice (the last title
// is the name), the second a hostile one: long, on several lines.
const titleScript = `{"scenes": [{"steps": [
  {"update": {"sessionUpdate": "session_info_update", "title": "first"}},
  {"update": {"sessionUpdate": "session_info_update", "title": "Fix the\nlogin   page ` + "\u202e" + `x"}},
  {"text": "named"}]}]}`

// An agent is listed by the title it gave its session; Stop ends it and
// keeps it, Delete forgets its record and its conversation.
func TestAgentsTitleStopDelete(t *testing.T) {
	w := newWorld(t)
	home := t.TempDir()
	installFake(t, home)
	script := filepath.Join(t.TempDir(), "title.json")
	if err := os.WriteFile(script, []byte(titleScript), 0o644); err != nil {
		t.Fatal(err)
	}
	a := openAgents(t, home, script)
	id, err := a.Start(context.Background(), NewAgent{Harness: fakeHarnessID, Cwd: w.dir})
	if err != nil {
		t.Fatal(err)
	}
	r := &run{t: t, wake: make(chan struct{}, 1)}
	history, cancel, err := a.Subscribe(id, r.add)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	r.items = append(history, r.items...)
	r.untilType(acp.TypeSession)
	if err := a.Prompt(context.Background(), id, "go"); err != nil {
		t.Fatal(err)
	}
	r.untilType(acp.TypeTurn)
	if st := stateOf(t, a, id); st.Title != "Fix the login page \u202ex" {
		t.Errorf("the agent's title: %q, want the session's last title on one line", st.Title)
	}

	if err := a.Stop(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	r.untilType(acp.TypeClosed)
	if st := stateOf(t, a, id); st.State != StateStopped || st.Items == 0 || st.Title == "" {
		t.Errorf("after Stop: %+v, want it Stopped with its conversation and title", st)
	}
	conversation := filepath.Join(home, StoreDir, id+".jsonl")
	if _, err := os.Stat(conversation); err != nil {
		t.Fatal(err)
	}

	if err := a.Delete(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.Get(id); ok || err != nil {
		t.Errorf("after Delete the agent is still listed (%v)", err)
	}
	if _, err := os.Stat(conversation); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Delete its conversation is still there: %v", err)
	}
	if err := a.Delete(context.Background(), id); err == nil || !strings.Contains(err.Error(), "no agent") {
		t.Errorf("a second Delete: %v, want no agent", err)
	}
}

// Deleting a running agent stops it first; the other agents stay.
func TestAgentsDeleteRunning(t *testing.T) {
	w := newWorld(t)
	home := t.TempDir()
	installFake(t, home)
	a := openAgents(t, home, w.script(t, "agents-app.json"))
	keep, err := a.Start(context.Background(), NewAgent{Harness: fakeHarnessID, Cwd: w.dir})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := a.Start(context.Background(), NewAgent{Harness: fakeHarnessID, Cwd: w.dir})
	if err != nil {
		t.Fatal(err)
	}
	r := &run{t: t, wake: make(chan struct{}, 1)}
	history, cancel, err := a.Subscribe(gone, r.add)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	r.items = append(history, r.items...)
	r.untilType(acp.TypeSession)
	if err := a.Delete(context.Background(), gone); err != nil {
		t.Fatal(err)
	}
	r.untilType(acp.TypeClosed)
	list, err := a.List()
	if err != nil || len(list) != 1 || list[0].ID != keep {
		t.Errorf("after deleting %s: %+v, %v; want %s alone", gone, list, err, keep)
	}
	if err := a.Store().Delete("../x"); err == nil {
		t.Error("Delete took an id that is not a file name")
	}
}

func FuzzBoundTitle(f *testing.F) {
	f.Add("Fix the login page")
	f.Add(strings.Repeat("é", 300))
	f.Add("a\n\tb\u2028c")
	f.Fuzz(func(t *testing.T, title string) {
		got := boundTitle(title)
		if len(got) > titleBytes+len("…") || strings.ContainsAny(got, "\n\r\t") {
			t.Errorf("boundTitle(%q) = %q", title, got)
		}
	})
}
