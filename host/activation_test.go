package host

import (
	"context"
	"testing"
	"testing/synctest"
)

// docs/protocol.md#2-starting-the-program: a plugin with run but no activation never runs; Restart
// must not start it either.
func TestRegressRestartDoesNotStartAPluginWithoutActivation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, p, started, _ := memHost(t, ready(nil), Options{})
		p.mu.Lock()
		m := *p.m
		m.Activation = nil
		p.m = &m
		p.mu.Unlock()
		if err := p.Restart(context.Background()); err != nil {
			t.Logf("Restart: %v", err)
		}
		synctest.Wait()
		if n := started.Load(); n != 0 {
			t.Errorf("Restart launched the program %d time(s); status %+v", n, p.Status())
		}
		h.Close(context.Background())
	})
}
