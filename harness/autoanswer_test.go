package harness

import (
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
)

func FuzzAutoAnswer(f *testing.F) {
	dir := f.TempDir()
	fence, _ := NewFence(dir, nil)
	f.Add("acceptEdits", "edit", "Write", dir+"/x", "allow_once")
	f.Add("bypassPermissions", "execute", "", "", "reject_once")
	f.Fuzz(func(t *testing.T, mode, kind, name, path, optionKind string) {
		card := acp.Item{Kind: kind, Name: name, Locations: []string{path}, Options: []acp.PermissionOption{{ID: "o", Kind: optionKind}}}
		got, ok := AutoAnswer(mode, card, fence)
		if !ok {
			return
		}
		if got != KindAllowOnce && got != KindAllowAlways || got != optionKind {
			t.Fatalf("answered %q from option %q", got, optionKind)
		}
		if mode == ModeAcceptEdits && !fence.Inside(path) {
			t.Fatalf("acceptEdits let %q pass", path)
		}
		if mode != ModeAcceptEdits && mode != ModeBypassPermissions {
			t.Fatalf("mode %q let a card pass", mode)
		}
	})
}
