package harness

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

func TestUpdatesOfEveryKind(t *testing.T) {
	w := newWorld(t)
	var stderr lockedLines
	r := start(t, w.script(t, "updates.json"), Options{Cwd: w.dir, Stderr: stderr.add})
	r.untilType(acp.TypeSession)
	// The start's mode is set once the session is open; its answer comes
	// when the agent sends it, before or after a prompt sent now.
	modes := r.untilType(acp.TypeMode)
	diff(t, "start mode", "ask", modes[len(modes)-1].Mode)
	r.must(r.s.Prompt("hi"))
	items := r.untilType(acp.TypeTurn)
	var types []string
	for _, it := range items {
		types = append(types, it.Type)
	}
	diff(t, "item types", []string{"user", "thinking", "text", "text", "user", "plan", "commands", "mode", "notice", // the agent switched its own mode
		"sessionInfo", "usage", "unknown", "notice", "text", "turn"}, types)
	diff(t, "texts", []string{"Hello, ", "world.", "done"}, texts(items, acp.TypeText))
	diff(t, "one message", items[2].MessageID, items[3].MessageID)
	diff(t, "turn usage", &acp.Usage{InputTokens: 100, OutputTokens: 20, TotalTokens: 120}, items[len(items)-1].Usage)
	r.must(r.s.Prompt("again"))
	r.untilType(acp.TypeTurn)
	diff(t, "totals", acp.Usage{InputTokens: 110, OutputTokens: 22, TotalTokens: 132}, r.s.Totals())
	// stderr is read beside stdout: its line may come after the turn.
	diff(t, "stderr", true, stderr.waitFor("fake-acp: a line on stderr", awaitLimit(t)))
}

func TestModeAndModel(t *testing.T) {
	w := newWorld(t)
	r := start(t, w.script(t, "updates.json"), Options{Cwd: w.dir, Mode: ModeAcceptEdits, Model: "fake-small"})
	r.untilType(acp.TypeSession)
	r.must(r.s.SetMode(ModeBypassPermissions))
	r.must(r.s.SetModel("fake-large"))
	r.must(r.s.SetMode(acp.ReadOnly))
	r.until(func(it acp.Item) bool { return it.Type == acp.TypeMode && it.Mode == "read-only" })
	var sent []string
	for _, m := range r.received() {
		var method string
		json.Unmarshal(m["method"], &method)
		if method == "session/set_mode" || method == "session/set_config_option" {
			sent = append(sent, method+" "+string(m["params"]))
		}
	}
	diff(t, "mode and model lines", []string{
		`session/set_mode {"sessionId":"fake-session-1","modeId":"edits"}`,
		`session/set_config_option {"sessionId":"fake-session-1","configId":"model","value":"fake-small"}`,
		`session/set_mode {"sessionId":"fake-session-1","modeId":"yolo"}`,
		`session/set_config_option {"sessionId":"fake-session-1","configId":"model","value":"fake-large"}`,
		`session/set_mode {"sessionId":"fake-session-1","modeId":"read-only"}`,
	}, sent)
}

func TestReadOnlyModeAtStart(t *testing.T) {
	w := newWorld(t)
	r := start(t, w.script(t, "updates.json"), Options{Cwd: w.dir, Mode: acp.ReadOnly})
	mode := r.until(func(it acp.Item) bool { return it.Type == acp.TypeMode && it.Mode == "read-only" })
	diff(t, "the app mode of the mode item", acp.ReadOnly, mode[len(mode)-1].AppMode)
	var sent []string
	for _, m := range r.received() {
		var method string
		json.Unmarshal(m["method"], &method)
		if method == "session/set_mode" {
			sent = append(sent, string(m["params"]))
		}
	}
	diff(t, "the start mode", []string{`{"sessionId":"fake-session-1","modeId":"read-only"}`}, sent)
}

func TestToolNames(t *testing.T) {
	w := newWorld(t)
	r := start(t, w.script(t, "tools.json"), Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("tools"))
	items := r.untilType(acp.TypeTurn)
	type tool struct{ ID, Name, Parent string }
	var got []tool
	for _, it := range ofType(items, acp.TypeTool, acp.TypeToolDone) {
		got = append(got, tool{it.ID, it.Name, it.Parent})
	}
	want := []tool{
		{"t-exec", "Bash", ""}, {"t-edit", "Edit", ""}, {"t-new", "Write", ""}, {"t-del", "Delete", ""},
		{"t-move", "Move", ""}, {"t-read", "Read", ""}, {"t-grep", "Grep", ""}, {"t-glob", "Glob", ""},
		{"t-fetch", "WebFetch", ""}, {"t-think", "Think", ""}, {"t-meta", "Bash", ""}, {"t-title", "Glob", ""},
		{"t-unmapped", "Summon a wizard", ""}, {"t-title", "Glob", ""}, {"t-task", "task · explore", ""},
		{"t-child", "Bash", "t-task"}, {"t-task", "task · explore", ""}, {"t-after", "Bash", ""},
	}
	diff(t, "tools", want, got)
}

func TestVersionAndTested(t *testing.T) {
	w := newWorld(t)
	m := fakeManifest(t, func(h *manifest.Harness) { h.Tested = manifest.Tested{Oldest: "1.1.0", Newest: "1.2.0"} })
	r := start(t, fixtureScript("conversation.json"), Options{Cwd: w.dir, Manifest: m})
	items := r.untilType(acp.TypeSession)
	diff(t, "notices", []string{"Fake ACP 1.0.0 has not been tried with this plugin (tried: 1.1.0 to 1.2.0)"},
		texts(items, acp.TypeNotice))
}

func TestStartRefusals(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name   string
		change func(*manifest.Harness)
		opts   Options
		want   string
	}{
		{"not in PATH", func(h *manifest.Harness) { h.Locate.Names = []string{"no-such-agent"} }, Options{Cwd: w.dir},
			"Fake ACP is not installed: none of no-such-agent is in PATH"},
		{"a path in locate", func(h *manifest.Harness) { h.Locate.Names = []string{binDir + "/fake-acp"} }, Options{Cwd: w.dir},
			"is not installed"},
		{"fs off in a private project", func(h *manifest.Harness) { h.ACP.ClientFS = ptr(false) },
			Options{Cwd: w.fence, Fences: []string{w.fence}}, `Fake does not start in a private project`},
		{"unknown harness", nil, Options{Cwd: w.dir, Harness: "nope"}, `has no described harness "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Manifest = fakeManifest(t, tt.change)
			tt.opts.Env = agentEnvFor("", "")
			tt.opts.Admit = registry.AnyFolder
			s, err := Start(t.Context(), tt.opts)
			if err == nil {
				s.Close(t.Context())
				t.Fatal("started")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to hold %q", err, tt.want)
			}
		})
	}
}

func TestAgentRefusesToStart(t *testing.T) {
	tests := []struct{ script, want string }{
		{"version-2.json", "it speaks ACP version 2; this client speaks version 1"},
		{"auth.json", "Fake needs you to log in: run `fake-acp` in a terminal to log in (it offers: Log in with a browser), then start it again"},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			w := newWorld(t)
			r := start(t, fixtureScript(tt.script), Options{Cwd: w.dir})
			items := r.untilType(acp.TypeClosed)
			diff(t, "notices", []string{tt.want}, texts(items, acp.TypeNotice))
			<-r.s.Done()
			if err := r.s.Prompt("late"); !errors.Is(err, ErrClosed) {
				t.Errorf("prompt after the end: %v, want ErrClosed", err)
			}
		})
	}
}

// lockedLines gathers lines from another goroutine.
type lockedLines struct {
	mu    sync.Mutex
	lines []string
	wake  chan struct{} // closed at the next add, for those waiting
}

func (l *lockedLines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
	if l.wake != nil {
		close(l.wake)
		l.wake = nil
	}
}

// waitFor waits until want is among the lines, or until d has passed
// (a bound for a broken run only); it reports whether want came.
func (l *lockedLines) waitFor(want string, d time.Duration) bool {
	deadline := time.After(d)
	for {
		l.mu.Lock()
		if slices.Contains(l.lines, want) {
			l.mu.Unlock()
			return true
		}
		if l.wake == nil {
			l.wake = make(chan struct{})
		}
		wake := l.wake
		l.mu.Unlock()
		select {
		case <-wake:
		case <-deadline:
			return false
		}
	}
}

func (l *lockedLines) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// TestTotalsCountTheTurnItsItemEnds: whoever is given a turn item finds
// that turn in Totals, even asked from inside OnItem, before anything
// else runs: the totals are kept before the items go out.
func TestTotalsCountTheTurnItsItemEnds(t *testing.T) {
	w := newWorld(t)
	var mu sync.Mutex
	var seen []acp.Usage
	var s *Session
	ready := make(chan struct{})
	opts := Options{Cwd: w.dir, Manifest: fakeManifest(t, nil), Env: agentEnvFor(w.script(t, "updates.json"), filepath.Join(t.TempDir(), "r"))}
	turns := make(chan struct{}, 2)
	opts.OnItem = func(it acp.Item) {
		if it.Type != acp.TypeTurn {
			return
		}
		<-ready
		mu.Lock()
		seen = append(seen, s.Totals())
		mu.Unlock()
		turns <- struct{}{}
	}
	opts.Admit = registry.AnyFolder
	s, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	close(ready)
	defer s.Close(context.Background())
	s.Prompt("hi")
	<-turns
	s.Prompt("again")
	<-turns
	mu.Lock()
	defer mu.Unlock()
	diff(t, "totals seen with each turn item", []acp.Usage{
		{InputTokens: 100, OutputTokens: 20, TotalTokens: 120},
		{InputTokens: 110, OutputTokens: 22, TotalTokens: 132}}, seen)
}

// Start launches only what a person consented to: with no Admit, the
// manifest must be installed from its folder in Home, and an agent's
// program of a folder nobody installed is never launched.
func TestStartChecksConsentByDefault(t *testing.T) {
	w := newWorld(t)
	home := t.TempDir()
	_, err := Start(t.Context(), Options{Manifest: fakeManifest(t, nil), Home: home, Cwd: w.dir, Env: agentEnvFor("", "")})
	if err == nil || !strings.Contains(err.Error(), "not started: it is not installed") {
		t.Fatalf("Start of a folder not installed = %v, want the consent check's refusal", err)
	}
}
