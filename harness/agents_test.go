package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// installFake records the fake agent's plugin in the registry of home, as
// the CLI's install does.
func installFake(t *testing.T, home string) {
	t.Helper()
	m, err := manifest.Load(fakeDir, manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	consent, err := registry.Fingerprint(m)
	if err != nil {
		t.Fatal(err)
	}
	reg.Put(registry.Entry{ID: m.ID, Dir: m.Dir, Version: m.Version, Granted: m.Permissions, Consent: &consent})
	if err := reg.Save(); err != nil {
		t.Fatal(err)
	}
}

func setFakeDisabled(t *testing.T, home string, off bool) {
	t.Helper()
	reg, err := registry.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	en, _ := reg.Get("dev.escouade.fake-acp")
	en.Disabled = off
	reg.Put(en)
	if err := reg.Save(); err != nil {
		t.Fatal(err)
	}
}

const fakeHarnessID = "plugin:dev.escouade.fake-acp:fake-acp"

func openAgents(t *testing.T, home, script string) *Agents {
	t.Helper()
	a, err := OpenAgents(AgentsOptions{Home: home, Env: agentEnvFor(script, filepath.Join(t.TempDir(), "received.jsonl"))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		a.Close(ctx)
	})
	return a
}

func stateOf(t *testing.T, a *Agents, id string) AgentState {
	t.Helper()
	st, ok, err := a.Get(id)
	if err != nil || !ok {
		t.Fatalf("agent %s: %v (listed: %v)", id, err, ok)
	}
	return st
}

// An app starts an agent by harness id, follows its items, answers its
// card once, cancels its turn; disabled, the agent is « Harness absent »
// with its conversation, and comes back with its plugin.
func TestAgentsStartFollowAnswerCancelAbsent(t *testing.T) {
	w := newWorld(t)
	home := t.TempDir()
	installFake(t, home)
	a := openAgents(t, home, w.script(t, "agents-app.json"))
	if err := os.WriteFile(filepath.Join(w.dir, "notes.txt"), []byte("old line\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	if _, err := a.Start(context.Background(), NewAgent{Harness: fakeHarnessID, Cwd: w.dir, Mode: "readOnlyish"}); err == nil || !strings.Contains(err.Error(), "caps.modes") {
		t.Fatalf("a mode outside caps.modes: %v, want a refusal naming caps.modes", err)
	}
	if _, err := a.Start(context.Background(), NewAgent{Harness: fakeHarnessID, Cwd: w.dir, Model: "gpt-9"}); err == nil || !strings.Contains(err.Error(), "fake-small") {
		t.Fatalf("a model outside models: %v, want a refusal listing the models", err)
	}
	id, err := a.Start(context.Background(), NewAgent{Harness: fakeHarnessID, Cwd: w.dir, Mode: ModeDefault, Model: "fake-large"})
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
	card := r.untilType(acp.TypePermission)
	last := card[len(card)-1]
	if len(last.Diffs) == 0 || last.Diffs[0].NewText != "new line\n" {
		t.Errorf("the card carries no diff of the write: %+v", last)
	}
	if st := stateOf(t, a, id); st.State != StateWaiting {
		t.Errorf("state with a card waiting: %q", st.State)
	}
	if err := a.AnswerPermission(id, last.Request, "maybe"); err == nil {
		t.Error("an option the card does not offer was taken")
	}
	if err := a.AnswerPermission(id, last.Request, "yes"); err != nil {
		t.Fatal(err)
	}
	if err := a.AnswerPermission(id, last.Request, "no"); !errors.Is(err, ErrCardAnswered) {
		t.Errorf("a second answer to the card: %v, want ErrCardAnswered", err)
	}
	turn := r.untilType(acp.TypeTurn)
	if u := turn[len(turn)-1].Usage; u == nil || u.InputTokens != 100 {
		t.Errorf("the turn's tokens: %+v", turn[len(turn)-1])
	}

	if err := a.Prompt(context.Background(), id, "work"); err != nil {
		t.Fatal(err)
	}
	r.untilText("working")
	if err := a.Cancel(id); err != nil {
		t.Fatal(err)
	}
	turn = r.untilType(acp.TypeTurn)
	if got := turn[len(turn)-1].StopReason; got != acp.OutcomeCancelled {
		t.Errorf("stop reason after Cancel: %q", got)
	}

	setFakeDisabled(t, home, true)
	st := stateOf(t, a, id)
	if st.State != Absent || !strings.Contains(st.Reason, "disabled") || st.Items == 0 {
		t.Errorf("after disable: %+v, want Harness absent with its conversation", st)
	}
	r.untilType(acp.TypeClosed) // what the user switched off does not run
	if err := a.Prompt(context.Background(), id, "hello?"); err == nil || !strings.Contains(err.Error(), Absent) {
		t.Errorf("a prompt to an absent agent: %v", err)
	}
	kept, _, err := a.Subscribe(id, func(acp.Item) {})
	if err != nil || len(kept) < len(r.items)-1 {
		t.Errorf("the conversation of the absent agent: %d items, %v; %d were given", len(kept), err, len(r.items))
	}

	setFakeDisabled(t, home, false)
	if st := stateOf(t, a, id); st.State != StateStopped || st.Cwd != w.dir || st.Model != "fake-large" {
		t.Errorf("back with its plugin: %+v", st)
	}
	if err := a.Prompt(context.Background(), id, "again"); err != nil {
		t.Fatal(err)
	}
	r.untilText("Hello from the fake.")
}

// Two subscribers that come while items flow get the whole conversation,
// each item once, in order.
func TestAgentsSubscribeMissesNothing(t *testing.T) {
	w := newWorld(t)
	home := t.TempDir()
	installFake(t, home)
	a := openAgents(t, home, "")
	id, err := a.Start(context.Background(), NewAgent{Harness: fakeHarnessID, Cwd: w.dir})
	if err != nil {
		t.Fatal(err)
	}
	first := &run{t: t, wake: make(chan struct{}, 1)}
	h, cancel, err := a.Subscribe(id, first.add)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	first.items = append(h, first.items...)
	for _, p := range []string{"one", "two", "three"} {
		if err := a.Prompt(context.Background(), id, p); err != nil {
			t.Fatal(err)
		}
		first.untilType(acp.TypeTurn)
		if p == "two" {
			second := &run{t: t, wake: make(chan struct{}, 1)}
			h, cancel2, err := a.Subscribe(id, second.add)
			if err != nil {
				t.Fatal(err)
			}
			defer cancel2()
			first.mu.Lock()
			n := len(first.items)
			first.mu.Unlock()
			if len(h) != n {
				t.Errorf("a subscriber between turns reads %d items, the first has %d", len(h), n)
			}
		}
	}
}

// A harness id that is not plugin:<plugin>:<harness>, or of a plugin not
// installed, is refused with the rule.
func TestAgentsStartRefusals(t *testing.T) {
	home := t.TempDir()
	a := openAgents(t, home, "")
	for id, want := range map[string]string{
		"fake-acp":                         "plugin:<plugin>:<harness>",
		"plugin:dev.escouade.fake-acp":     "plugin:<plugin>:<harness>",
		fakeHarnessID:                      "not installed",
		"plugin:dev.escouade.nope:nothing": "not installed",
	} {
		if _, err := a.Start(context.Background(), NewAgent{Harness: id, Cwd: t.TempDir()}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Start %q: %v, want %q", id, err, want)
		}
	}
	installFake(t, home)
	if err := SetACPEnabled(home, false); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Start(context.Background(), NewAgent{Harness: fakeHarnessID, Cwd: t.TempDir()}); err == nil || !strings.Contains(err.Error(), ACPPluginID) {
		t.Errorf("Start with the ACP harness off: %v", err)
	}
}

func FuzzSplitID(f *testing.F) {
	for _, s := range []string{fakeHarnessID, "plugin::", "plugin:a:b:c", "", "x:y:z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, h, err := SplitID(s)
		if err != nil {
			return
		}
		if p == "" || h == "" || strings.Contains(p, ":") || ID(p, h) != s {
			t.Errorf("SplitID(%q) = %q, %q", s, p, h)
		}
	})
}

// The Harness menu lists the described harnesses of enabled plugins, with
// the modes caps.modes offers and the models.
func TestAgentsHarnessesMenu(t *testing.T) {
	home := t.TempDir()
	installFake(t, home)
	a := openAgents(t, home, "")
	got, err := a.Harnesses()
	if err != nil || len(got) != 1 {
		t.Fatalf("Harnesses: %+v, %v", got, err)
	}
	c := got[0]
	var modes, models []string
	for _, m := range c.Modes {
		modes = append(modes, m.ID)
	}
	for _, m := range c.Models {
		models = append(models, m.ID+"="+m.Label)
	}
	diff(t, "choice", []string{fakeHarnessID, "Fake ACP", "default acceptEdits bypassPermissions readOnly", "fake-small=Fake small fake-large=Fake large"},
		[]string{c.ID, c.Name, strings.Join(modes, " "), strings.Join(models, " ")})
	setFakeDisabled(t, home, true)
	if got, _ := a.Harnesses(); len(got) != 0 {
		t.Errorf("a disabled plugin's harness is offered: %+v", got)
	}
}

// Uninstalled, or the ACP harness switched off, the agent is « Harness
// absent » with the reason, stopped, and its conversation kept.
func TestAgentsAbsentAfterUninstallAndACPOff(t *testing.T) {
	w := newWorld(t)
	home := t.TempDir()
	installFake(t, home)
	a := openAgents(t, home, "")
	id, err := a.Start(context.Background(), NewAgent{Harness: fakeHarnessID, Cwd: w.dir})
	if err != nil {
		t.Fatal(err)
	}
	r := &run{t: t, wake: make(chan struct{}, 1)}
	_, cancel, err := a.Subscribe(id, r.add)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	r.untilType(acp.TypeSession)

	if err := SetACPEnabled(home, false); err != nil {
		t.Fatal(err)
	}
	if st := stateOf(t, a, id); st.State != Absent || !strings.Contains(st.Reason, ACPPluginID) {
		t.Errorf("with the ACP harness off: %+v", st)
	}
	r.untilType(acp.TypeClosed)
	if err := SetACPEnabled(home, true); err != nil {
		t.Fatal(err)
	}
	reg, err := registry.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	reg.Remove("dev.escouade.fake-acp")
	if err := reg.Save(); err != nil {
		t.Fatal(err)
	}
	st := stateOf(t, a, id)
	if st.State != Absent || !strings.Contains(st.Reason, "not installed") || st.Items == 0 {
		t.Errorf("uninstalled: %+v", st)
	}
	installFake(t, home)
	if st := stateOf(t, a, id); st.State != StateStopped {
		t.Errorf("installed again: %+v", st)
	}
}
