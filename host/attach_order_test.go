package host

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
	"github.com/google/go-cmp/cmp"
)

// recordedProgram is a memProgram whose stdin notes every line the host
// writes, in the order written (the host writes one whole line per Write).
type recordedProgram struct {
	*memProgram
	lines *lineLog
}

type lineLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

func (l *lineLog) methods() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Method != "" {
			out = append(out, strings.TrimSpace(m.Method+" "+string(m.Params)))
		}
	}
	return out
}

type recordingWriter struct {
	w   io.WriteCloser
	log *lineLog
}

func (r recordingWriter) Write(b []byte) (int, error) {
	r.log.add(string(b))
	return r.w.Write(b)
}

func (r recordingWriter) Close() error { return r.w.Close() }

func (p recordedProgram) Stdin() io.WriteCloser { return recordingWriter{p.inW, p.lines} }

// docs/protocol.md#6-the-queue-crashes-and-re-attach: what each agent attached goes again to the new program, in
// the original order, before any queued message — also when the app sends
// a new attach for one of those agents while the plugin restarts.
func TestRegressReplayedAttachesGoFirstInOriginalOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var slowInit atomic.Bool
		handle := func(ctx context.Context, prog *memProgram, m *jsonrpc.Message) (any, error) {
			if m.Method == "initialize" {
				if slowInit.Load() {
					time.Sleep(time.Second)
				}
				return map[string]any{"protocolVersion": 1}, nil
			}
			return "ok", nil
		}
		var last atomic.Pointer[recordedProgram]
		launch := launchFunc(func(context.Context, transport.LaunchSpec) (transport.Program, error) {
			prog := recordedProgram{newMemProgram(handle), &lineLog{}}
			last.Store(&prog)
			return prog, nil
		})
		opts := Options{Home: t.TempDir(), Transports: map[manifest.RunKind]transport.Transport{manifest.RunWASM: launch}}
		h := New(opts)
		m := &manifest.Manifest{ID: "dev.test.mem", Version: "1.0.0", Run: &manifest.Run{WASM: "x"},
			Activation: []string{"onCall"}, Dir: t.TempDir()}
		p, err := h.Add(m, folderConfig(m))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		p.Attach(ctx, "a1", json.RawMessage(`{"mode":"plan"}`))
		p.Attach(ctx, "a2", nil)
		slowInit.Store(true)
		last.Load().end(exited(1)) // a crash
		synctest.Wait()
		if st := p.Status(); st.State != StateRestarting {
			t.Fatalf("status = %+v, want restarting", st)
		}
		echo := p.Go("test/echo", []int{1})
		go p.Attach(ctx, "a1", json.RawMessage(`{"mode":"edit"}`))
		synctest.Wait()
		time.Sleep(2 * time.Second)
		echo.Wait(ctx)
		synctest.Wait()
		want := []string{
			`agent/attach {"agent":"a1","mode":"edit"}`,
			`agent/attach {"agent":"a2"}`,
			"test/echo [1]",
		}
		if diff := cmp.Diff(want, last.Load().lines.methods()[1:]); diff != "" {
			t.Errorf("after initialize (-want +got)\n%s", diff)
		}
		h.Close(ctx)
	})
}
