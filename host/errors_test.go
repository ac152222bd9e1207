package host

import (
	"context"
	"errors"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// TestErrorsAreSentinels: each refusal of Add and Restart is its sentinel
// for errors.Is, and its text is the one the console prints.
func TestErrorsAreSentinels(t *testing.T) {
	h, p := startHost(t, "ok", Options{})
	if _, err := h.Add(p.Manifest(), Config{}); !errors.Is(err, ErrAlreadyAdded) || err.Error() != "plugin dev.test.fake is already added" {
		t.Errorf("Add twice: %v, want ErrAlreadyAdded", err)
	}
	p.Disable(context.Background())
	if err := p.Restart(context.Background()); !errors.Is(err, ErrDisabled) {
		t.Errorf("Restart disabled: %v, want ErrDisabled", err)
	}
	h.Close(context.Background())
	if _, err := h.Add(fakeManifest(t), Config{}); !errors.Is(err, ErrClosed) || err.Error() != "the host is closed" {
		t.Errorf("Add after Close: %v, want ErrClosed", err)
	}
}

// TestRestartRefusals: a plugin with no program, or with no activation, is
// not restarted, and says which.
func TestRestartRefusals(t *testing.T) {
	for name, tt := range map[string]struct {
		edit func(*manifest.Manifest)
		want error
		text string
	}{
		"no run":        {func(m *manifest.Manifest) { m.Run = nil }, ErrNoProgram, "plugin dev.test.fake has no program to start"},
		"no activation": {func(m *manifest.Manifest) { m.Activation = nil }, ErrNoActivation, "plugin dev.test.fake is not started: it has no activation"},
	} {
		_, p := startHost(t, "ok", Options{}, tt.edit)
		if err := p.Restart(context.Background()); !errors.Is(err, tt.want) || err.Error() != tt.text {
			t.Errorf("%s: Restart: %v, want %q", name, err, tt.text)
		}
	}
}
