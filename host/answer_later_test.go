package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/services"
	procsvc "github.com/escouade-dev/escouade-plugin/services/proc"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// waitService answers test/wait later, holding only the reply (no
// goroutine), and test/now at once.
type waitService struct {
	replies chan services.Reply
}

func (w *waitService) Methods() map[string]services.Handler {
	return map[string]services.Handler{
		"test/wait": func(ctx context.Context, _ json.RawMessage) (any, error) {
			w.replies <- services.Later(ctx)
			return nil, services.ErrAnswerLater
		},
		"test/now": func(context.Context, json.RawMessage) (any, error) { return "now", nil },
	}
}

func (w *waitService) Close() error { return nil }

// laterHost runs a module program in memory whose services are makers,
// started and ready; it returns the program's end of the wire.
func laterHost(t *testing.T, makers ...ServiceMaker) (*Plugin, *memProgram) {
	t.Helper()
	_, p, _, last := memHost(t, ready(func(context.Context, *memProgram, *jsonrpc.Message) (any, error) {
		return "pong", nil
	}), Options{ModuleServices: makers})
	if o := p.Call(context.Background(), "test/ping", nil); o.Default != "" {
		t.Fatalf("the program did not start: %+v", o)
	}
	return p, last.Load()
}

// A service answering later holds no request slot and no goroutine of the
// connection: with three times the 64 slots waiting, the program's next
// request is still served, the goroutines have not grown per waiting
// call, and every waiting call gets its answer when it comes.
func TestServiceAnsweringLaterHoldsNoSlot(t *testing.T) {
	const waiting = 3 * jsonrpc.DefaultMaxRequests
	svc := &waitService{replies: make(chan services.Reply, waiting)}
	_, prog := laterHost(t, func(context.Context, ServiceEnv) (services.Service, error) { return svc, nil })
	ctx := context.Background()
	if _, err := prog.conn.Call(ctx, "test/now", nil); err != nil { // the host's reader is up
		t.Fatal(err)
	}
	goroutines := runtime.NumGoroutine()
	calls := make([]*jsonrpc.AsyncCall, waiting)
	replies := make([]services.Reply, waiting)
	for k := range calls {
		calls[k] = prog.conn.Go(ctx, "test/wait", nil)
		replies[k] = <-svc.replies
	}
	res, err := prog.conn.Call(ctx, "test/now", nil)
	if err != nil || string(res) != `"now"` {
		t.Fatalf("a call after %d waiting ones: %s, %v; want it served", waiting, res, err)
	}
	// One goroutine per waiting call would add 192; the readers' hand-offs
	// and the runtime's own may add a few, whatever the load.
	if grown := runtime.NumGoroutine() - goroutines; grown > 16 {
		t.Errorf("%d more goroutines with %d calls answered later, want none per call", grown, waiting)
	}
	for k, reply := range replies {
		reply(k, nil)
	}
	for k, call := range calls {
		res, err := call.Wait()
		if err != nil || string(res) != fmt.Sprint(k) {
			t.Errorf("call %d answered %s, %v; want %d", k, res, err, k)
		}
	}
}

// A refusal given later is journaled and answered like one given now.
func TestRefusalGivenLaterIsJournaled(t *testing.T) {
	svc := &waitService{replies: make(chan services.Reply, 1)}
	p, prog := laterHost(t, func(context.Context, ServiceEnv) (services.Service, error) { return svc, nil })
	call := prog.conn.Go(context.Background(), "test/wait", nil)
	(<-svc.replies)(nil, &services.Error{Code: services.CodeForbidden, Message: vocab.MessageForbidden, Reason: "not now"})
	_, err := call.Wait()
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != vocab.CodeForbidden || e.Reason() != "not now" {
		t.Fatalf("answer %v, want -32003 with its reason", err)
	}
	journalHas(t, p, "refused", "test/wait: not now")
}

// proc/run answers later: more programs than the 64 request slots wait
// (64 run, the rest wait for a place among the MaxRunning), and a request
// the program sends after them is still served. Each waiting program holds
// its service's goroutines (its wait, its outputs), none of the
// connection's.
func TestWaitingProgramsHoldNoSlot(t *testing.T) {
	const waiting = jsonrpc.DefaultMaxRequests + 36
	var svc atomic.Pointer[procsvc.Service]
	p, prog := laterHost(t, func(_ context.Context, env ServiceEnv) (services.Service, error) {
		s := procsvc.New(procsvc.Config{PluginID: env.Manifest.ID, Granted: manifest.Permissions{Programs: []string{"sleep"}, Files: []string{"temp"}},
			TempDir: t.TempDir(), Journal: env.Journal})
		svc.Store(s)
		return s, nil
	})
	ctx := context.Background()
	params := map[string]any{"program": "sleep", "args": []string{"600"}, "cwd": map[string]string{"root": "temp", "path": "."}}
	calls := make([]*jsonrpc.AsyncCall, waiting)
	for k := range calls {
		calls[k] = prog.conn.Go(ctx, vocab.MethodProcRun, params)
	}
	// Read in order by the host: this answer means all 100 were read and
	// handed off, though only 64 slots exist.
	res, err := prog.conn.Call(ctx, vocab.MethodSettingsGet, struct{}{})
	if err != nil || string(res) != `{}` {
		t.Fatalf("settings/get after %d waiting programs: %s, %v; want it served", waiting, res, err)
	}
	svc.Load().Close() // kills them all, and refuses those waiting for a place
	for k, call := range calls {
		if _, err := call.Wait(); errors.Is(err, jsonrpc.ErrClosed) {
			t.Errorf("call %d got no answer: %v", k, err)
		}
	}
	journalLacks(t, p, "the host failed serving it")
}
