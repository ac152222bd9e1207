package host

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/google/go-cmp/cmp"
)

// ready answers initialize well; other methods as next says, or never.
func ready(next memHandler) memHandler {
	return func(ctx context.Context, p *memProgram, m *jsonrpc.Message) (any, error) {
		if m.Method == "initialize" {
			return map[string]any{"protocolVersion": 1}, nil
		}
		if next != nil {
			return next(ctx, p, m)
		}
		<-p.quit
		return nil, nil
	}
}

func memHost(t *testing.T, handle memHandler, opts Options) (*Host, *Plugin, *atomic.Int32, *atomic.Pointer[memProgram]) {
	t.Helper()
	var started atomic.Int32
	var last atomic.Pointer[memProgram]
	opts.Home = t.TempDir()
	opts.Transports = memTransports(memLauncher(handle, &started, &last))
	h := New(opts)
	m := &manifest.Manifest{ID: "dev.test.mem", Version: "1.0.0", Run: &manifest.Run{WASM: "x"},
		Activation: []string{"onCall"}, Dir: t.TempDir()}
	p, err := h.Add(m, folderConfig(m))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h, p, &started, &last
}

func TestInitializeWaitsTenSeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		silent := func(ctx context.Context, p *memProgram, m *jsonrpc.Message) (any, error) {
			<-p.quit
			return nil, nil
		}
		h, p, _, _ := memHost(t, silent, Options{})
		start := time.Now()
		o := p.Call(context.Background(), "test/x", nil)
		if o.Default != Stopped || o.Reason != "no answer to initialize within 10 s" {
			t.Errorf("outcome = %+v", o)
		}
		if d := time.Since(start); d != 10*time.Second {
			t.Errorf("stopped after %v, want 10 s", d)
		}
		h.Close(context.Background())
	})
}

func TestDelaysPerClass(t *testing.T) {
	tests := []struct {
		method string
		want   time.Duration
		text   string
	}{
		{"permissions/ask", 500 * time.Millisecond, "permissions/ask: no answer within 500 ms"},
		{"tickets/create", time.Minute, "tickets/create: no answer within 1 min"},
		{"engine/oneShot", time.Minute, "engine/oneShot: no answer within 1 min"},
		{"test/do", 5 * time.Second, "test/do: no answer within 5 s"},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, p, _, _ := memHost(t, ready(nil), Options{})
				p.Call(context.Background(), "test/warm", nil) // times out after 5 s; the program is ready
				start := time.Now()
				o := p.Call(context.Background(), tt.method, nil)
				if d := time.Since(start); d != tt.want {
					t.Errorf("default answer after %v, want %v", d, tt.want)
				}
				if diff := cmp.Diff(Outcome{Default: TimedOut, Reason: tt.text}, o); diff != "" {
					t.Errorf("(-want +got)\n%s", diff)
				}
				h.Close(context.Background())
			})
		})
	}
}

func TestCrashWindow(t *testing.T) {
	tests := []struct {
		name    string
		gaps    []time.Duration // between crashes
		stopped bool
	}{
		{"four within five minutes", []time.Duration{time.Minute, time.Minute, time.Minute}, true},
		{"four spread over six minutes", []time.Duration{2 * time.Minute, 2 * time.Minute, 2 * time.Minute}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, p, started, last := memHost(t, ready(func(ctx context.Context, prog *memProgram, m *jsonrpc.Message) (any, error) {
					return "ok", nil
				}), Options{})
				crash := func() {
					if o := p.Call(context.Background(), "test/x", nil); o.IsDefault() {
						t.Fatalf("before crash: %+v", o)
					}
					last.Load().end(exited(1))
					synctest.Wait()
				}
				crash()
				for _, gap := range tt.gaps {
					time.Sleep(gap)
					crash()
				}
				st := p.Status()
				if got := st.State == StateStopped; got != tt.stopped {
					t.Errorf("status = %+v, want stopped=%v", st, tt.stopped)
				}
				if tt.stopped && st.Reason != "stopped after 4 crashes within 5 minutes" {
					t.Errorf("reason = %q", st.Reason)
				}
				if want := int32(4); !tt.stopped && started.Load() != want+1 {
					t.Errorf("started %d times, want %d", started.Load(), want+1)
				}
				h.Close(context.Background())
			})
		})
	}
}

func TestMemoryIsReadEveryTwoSeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, p, _, last := memHost(t, ready(func(context.Context, *memProgram, *jsonrpc.Message) (any, error) {
			return "ok", nil
		}), Options{})
		p.Call(context.Background(), "test/x", nil)
		last.Load().memory.Store(1100 * MB)
		time.Sleep(2*time.Second - time.Nanosecond)
		synctest.Wait()
		if st := p.Status(); st.State != StateReady {
			t.Fatalf("before 2 s: %+v", st)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if got, want := p.Status().Reason, "stopped: 1100 MB of memory, past the limit of 1024 MB"; got != want {
			t.Errorf("reason = %q, want %q", got, want)
		}
		h.Close(context.Background())
	})
}

func TestCloseWaitsOneSecondForAllTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		deaf := ready(func(ctx context.Context, p *memProgram, m *jsonrpc.Message) (any, error) {
			if m.Method == "shutdown" {
				<-p.quit
			}
			return json.RawMessage(`"ok"`), nil
		})
		h, p, _, _ := memHost(t, deaf, Options{})
		var others []*Plugin
		for _, id := range []string{"dev.test.b", "dev.test.c"} {
			m := *p.Manifest()
			m.ID = id
			q, err := h.Add(&m, folderConfig(&m))
			if err != nil {
				t.Fatal(err)
			}
			others = append(others, q)
		}
		for _, q := range append(others, p) {
			q.Call(context.Background(), "test/x", nil)
		}
		start := time.Now()
		h.Close(context.Background())
		if d := time.Since(start); d != time.Second {
			t.Errorf("Close took %v, want 1 s for all plugins together", d)
		}
	})
}
