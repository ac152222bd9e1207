package host

import (
	"context"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// docs/protocol.md#9-stopping-closing-and-user-changes: Close waits one second for shutdown answers, then stops
// each program. A plugin that answered initialize and then stopped reading
// its stdin, with more than a pipe holds waiting for it, must not make
// Close block for ever.
func TestRegressCloseDoesNotHangOnAPluginThatStopsReading(t *testing.T) {
	script := `IFS= read -r line; id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p'); ` +
		`printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1}}\n' "$id"; exec sleep 300`
	h, p := startHost(t, "ok", Options{ShutdownWait: 200 * time.Millisecond}, func(m *manifest.Manifest) {
		m.Run = &manifest.Run{Command: []string{"sh", "-c", script}}
	})
	p.Notify("test/big", strings.Repeat("x", 1<<20)) // more than a pipe holds
	eventually(t, "the host blocked writing to the plugin's stdin", func() bool {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		for _, g := range strings.Split(stacks, "\n\n") {
			if strings.Contains(g, "waitWrite") && strings.Contains(g, "host.(*instance).flush") {
				return true
			}
		}
		return false
	})
	pid := p.Status().PID
	closed := make(chan struct{})
	go func() {
		h.Close(context.Background())
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Errorf("Close still blocked 5 s later on a plugin that does not read its stdin (status %+v)", p.Status())
		if pid > 0 {
			syscall.Kill(-pid, syscall.SIGKILL) // unblock the write so the test ends
		}
		<-closed
	}
}
