package kit

import (
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/host/wasm/reactortest"
	"github.com/escouade-dev/escouade-plugin/internal/testutil"
)

// A handler blocked on a Go timer at the end of a turn is named on stderr
// (the journal) once, as waiting on the clock, with the kit's timers as
// the fix; one waiting for the host or a kit timer is not.
func TestModuleNamesAHandlerSleepingOnAGoTimer(t *testing.T) {
	stderr := &testutil.SyncBuffer{}
	m := startModule(t, reactortest.Options{Stderr: stderr})
	turn(t, m, request(1, "initialize", initializeParams2))
	turn(t, m, request(2, "t/secret", `{}`)) // waits for the host's answer
	turn(t, m, request(3, "t/sleep", `{"ms":50}`))
	if strings.Contains(stderr.String(), "waiting on nothing the host serves") {
		t.Fatalf("a handler waiting for the host was named:\n%s", stderr)
	}
	turn(t, m, `{"jsonrpc":"2.0","id":1,"result":null}`) // secrets/get answered
	turn(t, m, request(4, "t/gosleep", `{}`))
	turn(t, m, request(5, "t/echo", `[]`))
	text := stderr.String()
	if strings.Contains(text, "t/gosleep still under way") {
		t.Fatalf("named while the kit timer of t/sleep is pending:\n%s", text)
	}
	// Once t/sleep's timer fires, nothing of the host can wake t/gosleep.
	fired := `{"jsonrpc":"2.0","method":"timer/fired","params":{"id":1}}`
	setAnswer := `{"jsonrpc":"2.0","id":2,"result":{"id":1}}`
	turn(t, m, setAnswer, fired)
	turn(t, m)
	text = stderr.String()
	want := "kit: t/gosleep still under way at the end of a turn, waiting on nothing the host serves: the turn waited on the clock"
	if strings.Count(text, want) != 1 || !strings.Contains(text, "plugin.Sleep") {
		t.Errorf("stderr names t/gosleep %d times, want once with the fix:\n%s", strings.Count(text, want), text)
	}
}
