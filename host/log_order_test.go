package host

import (
	"context"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// A log the plugin sends before its answer is in the journal when the
// caller has the answer: log is served in the order of the lines, not
// beside them. Run many times, since the order it holds was a race.
func TestLogBeforeAnswerIsJournaledFirst(t *testing.T) {
	handle := ready(func(_ context.Context, prog *memProgram, m *jsonrpc.Message) (any, error) {
		if m.Method == "test/logged" {
			prog.conn.Notify("log", map[string]string{"level": "info", "message": "logged"})
		}
		return "ok", nil
	})
	launch := launchFunc(func(context.Context, transport.LaunchSpec) (transport.Program, error) {
		return newMemProgram(handle), nil
	})
	h := New(Options{Home: t.TempDir(), Transports: memTransports(launch)})
	defer h.Close(context.Background())
	m := &manifest.Manifest{ID: "dev.test.mem", Version: "1.0.0", Run: &manifest.Run{WASM: "x"},
		Activation: []string{"onCall"}, Dir: t.TempDir()}
	p, err := h.Add(m, folderConfig(m))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if o := p.Call(context.Background(), "test/logged", nil); o.IsDefault() {
			t.Fatalf("call %d: %+v", i, o)
		}
		lines, err := p.journal.Tail(1000)
		if err != nil {
			t.Fatal(err)
		}
		logged := 0
		for _, l := range lines {
			if strings.HasSuffix(l, " log.info logged") {
				logged++
			}
		}
		if logged != i+1 {
			t.Fatalf("call %d answered with %d logs journaled, want %d", i, logged, i+1)
		}
	}
}
