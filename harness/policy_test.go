package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// TestPermissionCardsByMode plays the same five cards under each mode: a
// new file and an edit inside the agent's folder, an edit with its own diff,
// a write outside, and a command.
func TestPermissionCardsByMode(t *testing.T) {
	tests := []struct {
		mode      string
		waiting   []string // cards left to the user, answered here in order
		answers   []string // the kind the user picks for each
		agentSaid []string
	}{
		{ModeDefault, []string{"p-new", "p-edit", "p-diff", "p-out", "p-exec"},
			[]string{KindAllowAlways, KindRejectAlways, KindAllowOnce, KindRejectOnce, KindAllowOnce},
			[]string{"permission: selected always", "permission: selected never", "permission: selected go", "permission: selected n", "permission: selected y"}},
		{ModeAcceptEdits, []string{"p-out", "p-exec"}, []string{KindAllowOnce, KindRejectOnce},
			[]string{"permission: selected yes", "permission: selected ok", "permission: selected go", "permission: selected y", "permission: selected n"}},
		{ModeBypassPermissions, nil, nil,
			[]string{"permission: selected yes", "permission: selected ok", "permission: selected go", "permission: selected y", "permission: selected y"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			w := newWorld(t)
			writeFile(t, filepath.Join(w.dir, "old.txt"), "one two three")
			r := start(t, w.script(t, "permissions.json"), Options{Cwd: w.dir, Mode: tt.mode})
			r.untilType(acp.TypeSession)
			r.must(r.s.Prompt("go"))
			var waiting []string
			for i := range tt.waiting {
				card := r.until(func(it acp.Item) bool {
					return it.Type == acp.TypePermission && !autoAnswered(tt.mode, it.ID)
				})
				last := card[len(card)-1]
				waiting = append(waiting, last.ID)
				r.must(r.s.Answer(last.Request, tt.answers[i]))
			}
			items := r.untilType(acp.TypeTurn)
			diff(t, "cards left to the user", tt.waiting, waiting)
			r.mu.Lock()
			all := append([]acp.Item(nil), r.items...)
			r.mu.Unlock()
			diff(t, "what the agent was answered", tt.agentSaid, texts(all, acp.TypeText))
			_ = items
		})
	}
}

// autoAnswered tells which cards of permissions.json a mode lets pass.
func autoAnswered(mode, id string) bool {
	switch mode {
	case ModeBypassPermissions:
		return true
	case ModeAcceptEdits:
		return id == "p-new" || id == "p-edit" || id == "p-diff"
	}
	return false
}

func TestPermissionDiffs(t *testing.T) {
	w := newWorld(t)
	writeFile(t, filepath.Join(w.dir, "old.txt"), "one two three")
	r := start(t, w.script(t, "permissions.json"), Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("go"))
	var diffs [][]acp.Diff
	for range 3 {
		card := r.untilType(acp.TypePermission)
		last := card[len(card)-1]
		diffs = append(diffs, last.Diffs)
		r.must(r.s.Answer(last.Request, KindAllowOnce))
	}
	// A derived diff names the file by the system's path; a diff the
	// agent sent keeps its path as the agent gave it.
	diff(t, "diffs", [][]acp.Diff{
		{{Path: filepath.Join(w.dir, "new.txt"), NewText: "fresh\n"}},
		{{Path: filepath.Join(w.dir, "old.txt"), OldText: ptr("one two three"), NewText: "one TWO three"}},
		{{Path: w.dir + "/given.txt", OldText: ptr("x"), NewText: "y"}},
	}, diffs)
}

func TestPendingCardCancelledWithTheTurn(t *testing.T) {
	w := newWorld(t)
	r := start(t, w.script(t, "permissions.json"), Options{Cwd: w.dir, Mode: ModeBypassPermissions})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("first"))
	r.untilType(acp.TypeTurn)
	r.must(r.s.SetMode(ModeDefault))
	r.must(r.s.Prompt("second"))
	card := r.untilType(acp.TypePermission)
	r.must(r.s.Cancel())
	items := r.untilType(acp.TypeTurn)
	answered := ofType(items, acp.TypeAnswered)
	diff(t, "answered", []acp.Item{{Type: acp.TypeAnswered, Request: card[len(card)-1].Request, Outcome: acp.OutcomeCancelled}}, answered)
	diff(t, "stop reason", acp.OutcomeCancelled, items[len(items)-1].StopReason)
	diff(t, "agent saw", []string{"permission: cancelled"}, texts(items, acp.TypeText))
}

func TestAutoAnswer(t *testing.T) {
	w := newWorld(t)
	fence, err := NewFence(w.dir, []string{w.fence})
	if err != nil {
		t.Fatal(err)
	}
	allow := []acp.PermissionOption{{ID: "a", Kind: KindAllowOnce}, {ID: "r", Kind: KindRejectOnce}}
	always := []acp.PermissionOption{{ID: "al", Kind: KindAllowAlways}}
	reject := []acp.PermissionOption{{ID: "r", Kind: KindRejectOnce}}
	inside := filepath.Join(w.dir, "f.go")
	tests := []struct {
		name string
		mode string
		card acp.Item
		want string
	}{
		{"default asks for a write", ModeDefault, acp.Item{Kind: "edit", Locations: []string{inside}, Options: allow}, ""},
		{"unknown mode asks", "plan", acp.Item{Kind: "edit", Locations: []string{inside}, Options: allow}, ""},
		{"edits: write inside", ModeAcceptEdits, acp.Item{Kind: "edit", Locations: []string{inside}, Options: allow}, KindAllowOnce},
		{"edits: Write by name", ModeAcceptEdits, acp.Item{Name: "Write", Input: []byte(`{"path":"` + inJSON(inside) + `"}`), Options: always}, KindAllowAlways},
		{"edits: diff inside", ModeAcceptEdits, acp.Item{Diffs: []acp.Diff{{Path: inside}}, Options: allow}, KindAllowOnce},
		{"edits: relative path", ModeAcceptEdits, acp.Item{Kind: "edit", Locations: []string{"f.go"}, Options: allow}, ""},
		{"edits: write outside", ModeAcceptEdits, acp.Item{Kind: "edit", Locations: []string{filepath.Join(w.out, "f")}, Options: allow}, ""},
		{"edits: one path outside", ModeAcceptEdits, acp.Item{Kind: "edit", Locations: []string{inside, w.fence}, Options: allow}, ""},
		{"edits: dot-dot out", ModeAcceptEdits, acp.Item{Kind: "edit", Locations: []string{w.dir + "/../open/x"}, Options: allow}, ""},
		{"edits: no path", ModeAcceptEdits, acp.Item{Kind: "edit", Options: allow}, ""},
		{"edits: a command", ModeAcceptEdits, acp.Item{Kind: "execute", Locations: []string{inside}, Options: allow}, ""},
		{"edits: a delete", ModeAcceptEdits, acp.Item{Kind: "delete", Locations: []string{inside}, Options: allow}, ""},
		{"bypass: a command", ModeBypassPermissions, acp.Item{Kind: "execute", Options: allow}, KindAllowOnce},
		{"bypass: no allow offered", ModeBypassPermissions, acp.Item{Kind: "execute", Options: reject}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := AutoAnswer(tt.mode, tt.card, fence)
			diff(t, "answer", tt.want, got)
			diff(t, "answered", tt.want != "", ok)
		})
	}
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestModesOutsideCapsAreRefused: a mode caps.modes does not list never
// becomes the session's mode, at start or later, so the policy never
// sees it; readOnly needs caps.readOnly.
func TestModesOutsideCapsAreRefused(t *testing.T) {
	w := newWorld(t)
	m := fakeManifest(t, func(h *manifest.Harness) {
		h.Caps.Modes = []manifest.Mode{{ID: ModeDefault}}
		delete(h.Caps.Other, CapReadOnly)
	})
	for _, mode := range []string{ModeBypassPermissions, acp.ReadOnly} {
		if _, err := Start(context.Background(), Options{Manifest: m, Admit: registry.AnyFolder, Cwd: w.dir, Mode: mode, Env: agentEnvFor(w.script(t, "updates.json"), filepath.Join(t.TempDir(), "r"))}); err == nil || !strings.Contains(err.Error(), "caps.") {
			t.Errorf("start in %s: %v", mode, err)
		}
	}
	diff(t, "offered", []string{ModeDefault}, OfferedModes(&m.Contributes.Harnesses[0]))
}

// TestAgentsOwnModeChangeDoesNotOpenThePolicy: an agent that switches
// itself to the mode acp.modes maps to bypassPermissions, where caps.modes
// does not offer it, is not shown in that app mode, and its permission
// requests still wait for the user.
func TestAgentsOwnModeChangeDoesNotOpenThePolicy(t *testing.T) {
	w := newWorld(t)
	m := fakeManifest(t, func(h *manifest.Harness) { h.Caps.Modes = []manifest.Mode{{ID: ModeDefault}} })
	script := reviewScript(t, `{"scenes":[{"steps":[{"update":{"sessionUpdate":"current_mode_update","currentModeId":"yolo"}},
		{"permission":{"toolCall":{"toolCallId":"c1","title":"ls","kind":"execute"},
		"options":[{"optionId":"y","name":"Yes","kind":"allow_once"},{"optionId":"n","name":"No","kind":"reject_once"}]}}]}]}`)
	r := start(t, script, Options{Manifest: m, Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("go"))
	items := r.untilType(acp.TypePermission)
	for _, it := range ofType(items, acp.TypeMode) {
		if it.Mode == "yolo" && it.AppMode != "" {
			t.Errorf("the agent's yolo is shown as the app mode %q", it.AppMode)
		}
	}
	r.must(r.s.Answer(items[len(items)-1].Request, KindRejectOnce))
	r.untilType(acp.TypeTurn)
}

// TestAgentsOwnModeChangeIsANotice: an agent that switches itself to the
// mode acp.modes maps to an offered bypassPermissions gets a notice that
// says so, and the host keeps asking as its own mode says; a mode the host
// set itself is no notice.
func TestAgentsOwnModeChangeIsANotice(t *testing.T) {
	w := newWorld(t)
	m := fakeManifest(t, func(h *manifest.Harness) {
		h.Caps.Modes = []manifest.Mode{{ID: ModeDefault}, {ID: "acceptEdits"}, {ID: "bypassPermissions"}}
	})
	script := reviewScript(t, `{"scenes":[{"steps":[{"update":{"sessionUpdate":"current_mode_update","currentModeId":"yolo"}},
		{"permission":{"toolCall":{"toolCallId":"c1","title":"ls","kind":"execute"},
		"options":[{"optionId":"y","name":"Yes","kind":"allow_once"},{"optionId":"n","name":"No","kind":"reject_once"}]}}]},
		{"steps":[{"text":"done"}]}]}`)
	r := start(t, script, Options{Manifest: m, Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("go"))
	items := r.untilType(acp.TypePermission)
	var notices []string
	for _, it := range ofType(items, acp.TypeNotice) {
		if strings.Contains(it.Text, "switched itself") {
			notices = append(notices, it.Text)
		}
	}
	want := "switched itself to its mode yolo (the app mode bypassPermissions); the host still applies the app mode default"
	if len(notices) != 1 || !strings.Contains(notices[0], want) {
		t.Errorf("notices %q, want one with %q", notices, want)
	}
	r.must(r.s.Answer(items[len(items)-1].Request, KindRejectOnce))
	r.untilType(acp.TypeTurn)
	r.must(r.s.SetMode("acceptEdits"))
	r.untilType(acp.TypeMode)
	r.must(r.s.Prompt("again")) // what follows the mode item comes before this turn's end
	for _, it := range r.untilType(acp.TypeTurn) {
		if it.Type == acp.TypeNotice && strings.Contains(it.Text, "switched itself") {
			t.Errorf("the host's own mode change: %q", it.Text)
		}
	}
}
