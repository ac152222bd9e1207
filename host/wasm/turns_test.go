package wasm

import (
	"bufio"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/transport"
)

// A reactor's turns: reads never block (an empty stdin reads EAGAIN), the
// budget export gets the turn's limit, and a line reaches it whole.
func TestReactorTurns(t *testing.T) {
	tr := newTransport(t, Options{})
	decision := false
	prog := launch(t, tr, specOf(pluginDir(t, fixture(t, "reactor"), nil)))
	tr.Decisions(prog, func() bool { return decision })
	in, out := prog.Stdin(), bufio.NewScanner(prog.Stdout())
	if _, err := in.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"state"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if !out.Scan() {
		t.Fatal("no answer:", out.Err())
	}
	if got, want := out.Text(), `{"id":0,"jsonrpc":"2.0","result":{"budget":2000,"turns":1}}`; got != want {
		t.Errorf("state %s, want %s", got, want)
	}
	prog.(*instance).in.waitIdle()
	// Half a line is not the module's: no turn runs for it.
	if _, err := in.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"read-`)); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Write([]byte("empty\"}\n")); err != nil {
		t.Fatal(err)
	}
	if !out.Scan() {
		t.Fatal("no answer:", out.Err())
	}
	if got, want := out.Text(), `{"id":1,"jsonrpc":"2.0","result":"read /dev/stdin: Try again"}`; got != want {
		t.Errorf("read of an empty stdin answered %s, want %s (EAGAIN)", got, want)
	}
	// A turn reads until stdin is empty: id 2 gets a turn of its own, with
	// the decision's budget, only once the turn that served id 1 is over.
	prog.(*instance).in.waitIdle()
	decision = true
	if _, err := in.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"state"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if !out.Scan() {
		t.Fatal("no answer:", out.Err())
	}
	if got, want := out.Text(), `{"id":2,"jsonrpc":"2.0","result":{"budget":500,"turns":3}}`; got != want {
		t.Errorf("state %s, want %s", got, want)
	}
}

// A Go command waits for input in poll_oneoff (Go makes its stdin
// non-blocking): the wait ends its turn, so a timer that fires long after
// the turn limit finds it alive.
func TestCommandWaitsInPoll(t *testing.T) {
	tr := newTransport(t, Options{TurnLimit: 200 * time.Millisecond})
	prog := launch(t, tr, specOf(pluginDir(t, fixture(t, "command-poll"), nil)))
	notes := make(chan string, 1)
	conn := connect(t, prog, notes)
	if got := call[string](t, conn, "any", nil); got != "polled" {
		t.Fatalf("answer %q", got)
	}
	select {
	case got := <-notes: // a second after the call: five turn limits
		if got != "tick" {
			t.Fatalf("notification %q, want tick", got)
		}
	case <-prog.Done():
		t.Fatalf("it ended waiting for input: %v", prog.Exit())
	case <-time.After(testDeadline):
		t.Fatal("no tick")
	}
	if got := call[string](t, conn, "any", nil); got != "polled" {
		t.Fatalf("answer %q", got)
	}
}

// A command keeps its state between turns, gets no environment, its name
// as its only argument, the real clock, and its stderr line by line.
func TestCommandSurroundings(t *testing.T) {
	tr := newTransport(t, Options{})
	lines := make(chan string, 10)
	prog := launch(t, tr, specOf(pluginDir(t, fixture(t, "command"), nil), transport.LaunchSpec{
		Env:    []string{"SECRET=1"},
		Stderr: func(line string) { lines <- line },
	}))
	conn := connect(t, prog, nil)
	type env struct {
		Env  []string `json:"env"`
		Args []string `json:"args"`
	}
	if diff := cmp.Diff(env{Env: []string{}, Args: []string{"plugin.wasm"}}, call[env](t, conn, "env", nil)); diff != "" {
		t.Errorf("environment (-want +got):\n%s", diff)
	}
	type state struct {
		Seen int   `json:"seen"`
		Now  int64 `json:"now"`
	}
	before := time.Now().UnixMilli()
	got := call[state](t, conn, "state", nil)
	if got.Seen != 2 || got.Now < before-1000 || got.Now > time.Now().UnixMilli()+1000 {
		t.Errorf("state %+v, want 2 requests seen at about %d", got, before)
	}
	if a, b := call[string](t, conn, "random", nil), call[string](t, conn, "random", nil); a == b || len(a) != 32 || a == strings.Repeat("0", 32) {
		t.Errorf("random bytes %s then %s: not from a CSPRNG", a, b)
	}
	call[any](t, conn, "stderr", nil)
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	if err := prog.Stop(ctx, transport.StopOptions{}); err != nil {
		t.Fatal(err)
	}
	close(lines)
	var all []string
	for l := range lines {
		all = append(all, l)
	}
	want := []string{"a line on stderr", "and another", "stdin ended"}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, prog.LastStderr()); diff != "" {
		t.Errorf("LastStderr (-want +got):\n%s", diff)
	}
}

// Stop past its context closes an instance that does not end by itself;
// so does cancelling the Launch context.
func TestStopAndCancel(t *testing.T) {
	tr := newTransport(t, Options{TurnLimit: time.Minute})
	t.Run("stop", func(t *testing.T) {
		prog := launch(t, tr, specOf(pluginDir(t, loopsInStart, nil)))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := prog.Stop(ctx, transport.StopOptions{}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(killed, prog.Exit()); diff != "" {
			t.Errorf("exit (-want +got):\n%s", diff)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		prog, err := tr.Launch(ctx, specOf(pluginDir(t, fixture(t, "reactor"), nil)))
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		if diff := cmp.Diff(killed, ended(t, prog)); diff != "" {
			t.Errorf("exit (-want +got):\n%s", diff)
		}
		if _, err := prog.Stdin().Write([]byte("{}\n")); err == nil {
			t.Error("a write to an ended instance succeeded")
		}
	})
	t.Run("ids", func(t *testing.T) {
		a := launch(t, tr, specOf(pluginDir(t, fixture(t, "reactor"), nil)))
		b := launch(t, tr, specOf(pluginDir(t, fixture(t, "reactor"), nil)))
		if a.ID() == b.ID() {
			t.Errorf("two instances named %q", a.ID())
		}
	})
	t.Run("closed", func(t *testing.T) {
		tr := newTransport(t, Options{})
		prog := launch(t, tr, specOf(pluginDir(t, fixture(t, "reactor"), nil)))
		call[any](t, connect(t, prog, nil), "echo", nil) // past _initialize, waiting for input
		if err := tr.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(killed, ended(t, prog)); diff != "" {
			t.Errorf("exit (-want +got):\n%s", diff)
		}
		_, err := tr.Launch(context.Background(), specOf(pluginDir(t, fixture(t, "reactor"), nil)))
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Launch after Close: %v, want ErrClosed", err)
		}
	})
}
