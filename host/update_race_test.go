package host

import (
	"context"
	"testing"
)

// Plugin.ID and Host.Plugins read the manifest while Update replaces it:
// run with -race.
func TestRegressIDDoesNotRaceWithUpdate(t *testing.T) {
	h, p, _, _ := memHost(t, ready(nil), Options{})
	m2 := *p.Manifest()
	m2.Version = "1.1.0"
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Update(context.Background(), &m2)
	}()
	_ = p.ID()
	<-done
	h.Close(context.Background())
}
