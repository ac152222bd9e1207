package kit

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

// blockingPlugin has t/block, which tells started and then waits for its
// context to end, answering "stopped".
func blockingPlugin(opts Options) (p *Plugin, started, stopped chan struct{}) {
	p = NewWithOptions(opts)
	started, stopped = make(chan struct{}), make(chan struct{})
	p.Handle("t/block", func(ctx context.Context, _ json.RawMessage) (any, error) {
		close(started)
		<-ctx.Done()
		close(stopped)
		return "stopped", nil
	})
	return p, started, stopped
}

// callAsync calls method in the background and returns where its outcome
// arrives.
func callAsync(t *testing.T, h *fakeHost, method string) <-chan string {
	t.Helper()
	outcome := make(chan string, 1)
	go func() {
		raw, err := h.call(t, method, nil)
		if err != nil {
			outcome <- "error: " + err.Error()
			return
		}
		outcome <- string(raw)
	}()
	return outcome
}

// wait fails the test when ch is not closed within testTimeout.
func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testTimeout):
		t.Fatalf("%s did not happen", what)
	}
}

// TestEndOfInput checks that when the host closes stdin, handlers under way
// see their context end and their answers still go out before Serve returns.
func TestEndOfInput(t *testing.T) {
	p, started, _ := blockingPlugin(Options{Stderr: &syncBuffer{}})
	h := startPlugin(t, p, nil)
	outcome := callAsync(t, h, "t/block")
	wait(t, started, "t/block start")
	h.input.Close()
	if got := <-outcome; got != `"stopped"` {
		t.Errorf("t/block after the end of input: %s, want \"stopped\"", got)
	}
	if err := h.waitServed(t); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestShutdownEndsHandlers checks that shutdown is answered, that handlers
// under way see their context end, and that Serve returns.
func TestShutdownEndsHandlers(t *testing.T) {
	p, started, stopped := blockingPlugin(Options{Stderr: &syncBuffer{}})
	h := startPlugin(t, p, nil)
	outcome := callAsync(t, h, "t/block")
	wait(t, started, "t/block start")
	if got := h.mustCall(t, "shutdown", nil); got != "null" {
		t.Errorf("shutdown answered %s, want null", got)
	}
	wait(t, stopped, "the end of t/block's context")
	if got := <-outcome; got != `"stopped"` {
		t.Errorf("t/block under way at shutdown: %s, want its answer \"stopped\"", got)
	}
	if err := h.waitServed(t); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestShutdownForms checks shutdown sent as a notification and inside a
// batch: either way Serve returns, and a batch gets its answer first.
func TestShutdownForms(t *testing.T) {
	t.Run("notification", func(t *testing.T) {
		p, _ := quietPlugin()
		h := startPlugin(t, p, nil)
		if err := h.conn.Notify("shutdown", nil); err != nil {
			t.Fatal(err)
		}
		if err := h.waitServed(t); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	t.Run("batch", func(t *testing.T) {
		p, _ := quietPlugin()
		p.Handle("t/one", func(context.Context, json.RawMessage) (any, error) { return 1, nil })
		h := startPlugin(t, p, nil)
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		results := h.conn.Batch(ctx, []jsonrpc.BatchCall{{Method: "t/one"}, {Method: "shutdown"}})
		var got []string
		for _, r := range results {
			got = append(got, string(r.Result)+" "+errText(r.Err))
		}
		if diff := cmp.Diff([]string{"1 ", "null "}, got); diff != "" {
			t.Errorf("batch (-want +got):\n%s", diff)
		}
		if err := h.waitServed(t); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestStopGrace checks that a handler ignoring its context does not keep
// Serve from returning.
func TestStopGrace(t *testing.T) {
	stderr := &syncBuffer{}
	p := NewWithOptions(Options{Stderr: stderr, StopGrace: time.Millisecond})
	release, started := make(chan struct{}), make(chan struct{})
	defer close(release)
	p.Handle("t/stubborn", func(context.Context, json.RawMessage) (any, error) {
		close(started)
		<-release
		return nil, nil
	})
	h := startPlugin(t, p, nil)
	callAsync(t, h, "t/stubborn")
	wait(t, started, "t/stubborn start")
	h.mustCall(t, "shutdown", nil)
	if err := h.waitServed(t); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if !strings.Contains(stderr.String(), "kit: handlers still running 1ms after the end; leaving them") {
		t.Errorf("stderr lacks the grace trace:\n%s", stderr)
	}
}

func TestServeContext(t *testing.T) {
	p, _ := quietPlugin()
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx, inR, io.Discard) }()
	cancel()
	select {
	case err := <-served:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Serve after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("Serve did not return after its context ended")
	}
}

func TestServeTwice(t *testing.T) {
	p, _ := quietPlugin()
	h := startPlugin(t, p, nil)
	h.mustCall(t, "initialize", nil) // Serve is under way
	if err := p.Serve(context.Background(), strings.NewReader(""), io.Discard); !errors.Is(err, ErrServing) {
		t.Errorf("second Serve: %v, want ErrServing", err)
	}
	h.input.Close()
	if err := h.waitServed(t); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if err := p.Serve(context.Background(), strings.NewReader(""), io.Discard); err != nil {
		t.Errorf("Serve after the first ended: %v", err)
	}
}

// TestBadLinesFromHost checks that a broken line is answered -32700 and
// traced, and that the plugin keeps serving.
func TestBadLinesFromHost(t *testing.T) {
	stderr := &syncBuffer{}
	p := NewWithOptions(Options{Stderr: stderr})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- p.Serve(context.Background(), inR, outW)
		outW.Close()
	}()
	go func() {
		io.WriteString(inW, "not json\n"+`{"jsonrpc":"2.0","id":7,"method":"shutdown"}`+"\n")
	}()
	out, err := io.ReadAll(outR)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` + "\n" +
		`{"jsonrpc":"2.0","id":7,"result":null}` + "\n"
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	inW.Close()
	if !strings.Contains(stderr.String(), "kit: bad line from the host: not json") {
		t.Errorf("stderr lacks the trace:\n%s", stderr)
	}
}

// TestShutdownDrains sends calls and shutdown back to back without closing
// the input: every call gets its answer before Serve returns.
func TestShutdownDrains(t *testing.T) {
	p, _ := quietPlugin()
	p.Handle("t/echo", func(_ context.Context, params json.RawMessage) (any, error) { return params, nil })
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- p.Serve(context.Background(), inR, outW)
		outW.Close()
	}()
	go io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"t/echo","params":[2]}`+"\n"+
		`{"jsonrpc":"2.0","id":3,"method":"t/echo","params":[3]}`+"\n"+
		`{"jsonrpc":"2.0","id":4,"method":"shutdown"}`+"\n")
	out, err := io.ReadAll(outR)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	slices.Sort(got)
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"capabilities":{"attach":false,"batch":true}}}`,
		`{"jsonrpc":"2.0","id":2,"result":[2]}`,
		`{"jsonrpc":"2.0","id":3,"result":[3]}`,
		`{"jsonrpc":"2.0","id":4,"result":null}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestRegistrationRefusals(t *testing.T) {
	fn := func(context.Context, json.RawMessage) (any, error) { return nil, nil }
	ev := func(context.Context, json.RawMessage) {}
	tests := []struct {
		name     string
		register func(p *Plugin)
		want     string
	}{
		{"empty method", func(p *Plugin) { p.Handle("", fn) }, "kit: Handle needs a method name and a function"},
		{"nil handler", func(p *Plugin) { p.Handle("a/b", nil) }, "kit: Handle needs a method name and a function"},
		{"initialize", func(p *Plugin) { p.Handle("initialize", fn) }, "kit: Handle(initialize): the kit answers initialize itself"},
		{"shutdown", func(p *Plugin) { p.Handle("shutdown", fn) }, "kit: Handle(shutdown): the kit answers shutdown itself"},
		{"attach", func(p *Plugin) { p.Handle("agent/attach", fn) }, "kit: Handle(agent/attach): use OnAttach"},
		{"event", func(p *Plugin) { p.Handle("event/x", fn) }, "kit: Handle(event/x): use OnEvent(x)"},
		{"method twice", func(p *Plugin) { p.Handle("a/b", fn); p.Handle("a/b", fn) }, "kit: Handle(a/b) called twice"},
		{"empty event", func(p *Plugin) { p.OnEvent("", ev) }, `kit: OnEvent("") needs a name without "event/" and a function`},
		{"prefixed event", func(p *Plugin) { p.OnEvent("event/x", ev) }, `kit: OnEvent("event/x") needs a name without "event/" and a function`},
		{"nil event", func(p *Plugin) { p.OnEvent("x", nil) }, `kit: OnEvent("x") needs a name without "event/" and a function`},
		{"event twice", func(p *Plugin) { p.OnEvent("x", ev); p.OnEvent("x", ev) }, "kit: OnEvent(x) called twice"},
		{"nil attach", func(p *Plugin) { p.OnAttach(nil) }, "kit: OnAttach needs a function and takes one"},
		{"attach twice", func(p *Plugin) { p.OnAttach(fn); p.OnAttach(fn) }, "kit: OnAttach needs a function and takes one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if diff := cmp.Diff(tt.want, recover()); diff != "" {
					t.Errorf("panic (-want +got):\n%s", diff)
				}
			}()
			tt.register(NewWithOptions(Options{}))
		})
	}
}
