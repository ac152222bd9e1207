package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A plugin whose initialize answer says capabilities.attach false is never
// sent agent/attach, neither at once, nor queued while it starts, nor
// replayed after a restart; each attach gets the default answer declined,
// and the journal says why once, not at every restart.
func TestAPluginThatDeclinesAttachIsNotSentOne(t *testing.T) {
	_, p := startHost(t, "noattach", Options{})
	ctx := context.Background()
	queued, err := p.GoAttach("a0", nil) // sent while the program starts: waits in the queue
	if err != nil {
		t.Fatal(err)
	}
	if o := queued.Wait(ctx); o.Default != Declined || !strings.Contains(o.Reason, "capabilities.attach false") {
		t.Errorf("queued attach: %+v", o)
	}
	o, err := p.Attach(ctx, "a1", json.RawMessage(`{"mode":"plan"}`))
	if err != nil || o.Default != Declined {
		t.Errorf("attach: %+v, %v", o, err)
	}
	call(t, p, "test/crash", nil)
	var got []string
	json.Unmarshal(mustResult(t, call(t, p, "test/received", nil)), &got)
	if diff := cmp.Diff([]string{"test/received "}, got[1:]); diff != "" {
		t.Errorf("what the restarted program got (-want +got)\n%s", diff)
	}
	journalHas(t, p, "ready", "agent/attach is not sent to it: its initialize answer says capabilities.attach false")
	lines, _ := p.Journal().Tail(500)
	said := 0
	for _, l := range lines {
		if strings.Contains(l, "agent/attach is not sent to it") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("the journal said why %d times, want once:\n%s", said, strings.Join(lines, "\n"))
	}
}
