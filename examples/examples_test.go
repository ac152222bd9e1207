// Package examples_test starts each example plugin as a real process, the
// way the host does (its manifest's run.command, in its folder, with the
// ESCOUADE_* environment), and plays a small host against it.
package examples_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/escouade-dev/escouade-plugin/internal/testutil"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/google/go-cmp/cmp"
)

// waitLimit bounds a wait, so that a broken example fails the test with
// its own message instead of hanging it. It scales with the test binary's
// deadline (go test -timeout), which a loaded machine or -race may need
// raised, leaving a tenth of what remains to report; without a deadline it
// is an hour. The first start of go-notes builds it, within the bound.
func waitLimit(t testing.TB) time.Duration {
	timed, ok := t.(interface{ Deadline() (time.Time, bool) }) // a benchmark has none
	if !ok {
		return time.Hour
	}
	deadline, ok := timed.Deadline()
	if !ok {
		return time.Hour
	}
	return max(time.Until(deadline)*9/10, time.Second)
}

// example is one example plugin folder and what it needs to run.
type example struct {
	dir   string
	id    string
	needs string // a program that must be in PATH
}

var examples = []example{
	{dir: "go-notes", id: "dev.escouade.example.go-notes", needs: "go"},
	{dir: "python-notes", id: "dev.escouade.example.python-notes", needs: "python3"},
}

// need skips the test when the example cannot run on this machine.
func (ex example) need(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath(ex.needs); err != nil {
		t.Skipf("%s is not installed, so the %s example cannot run here", ex.needs, ex.dir)
	}
	if runtime.GOOS == "windows" && ex.dir == "go-notes" {
		t.Skip("go-notes starts through run.sh, a POSIX shell script")
	}
}

// TestManifests checks each manifest with the host's own validation and
// the facts both examples share.
func TestManifests(t *testing.T) {
	for _, ex := range examples {
		t.Run(ex.dir, func(t *testing.T) {
			m, err := manifest.Load(ex.dir, manifest.LoadOptions{})
			if err != nil {
				t.Fatalf("manifest.Load: %v", err)
			}
			got := manifestFacts{
				ID:         m.ID,
				API:        m.Escouade.API,
				Activation: m.Activation,
				Secrets:    m.Permissions.Secrets,
				Settings:   map[string]string{},
			}
			for key, s := range m.Contributes.Settings {
				got.Settings[key] = string(s.Type) + " " + string(s.Default)
			}
			want := manifestFacts{
				ID:         ex.id,
				API:        "1",
				Activation: []string{"onCall", "event:ticket.column"},
				Secrets:    []string{"token"},
				Settings:   map[string]string{"greeting": `string "Hello"`, "shout": "boolean false", "apiKey": "secret "},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("manifest (-want +got):\n%s", diff)
			}
		})
	}
}

type manifestFacts struct {
	ID, API    string
	Activation []string
	Secrets    []string
	Settings   map[string]string // key → type and default
}

// TestExamples plays the host against each example: initialize, greet
// with default and chosen settings, echo, an unknown method, bad params, an
// event, a sleep, then shutdown, which must end the process.
func TestExamples(t *testing.T) {
	for _, ex := range examples {
		t.Run(ex.dir, func(t *testing.T) {
			ex.need(t)
			p := start(t, ex)

			got := p.call(t, "initialize", initializeParams(ex))
			if diff := cmp.Diff(float64(1), got.(map[string]any)["protocolVersion"]); diff != "" {
				t.Errorf("initialize protocolVersion (-want +got):\n%s", diff)
			}
			checkGreet(t, p)
			checkEcho(t, p)
			p.wantCode(t, "notes/nope", nil, jsonrpc.ErrMethodNotFound)
			p.wantCode(t, "notes/greet", map[string]any{"name": 7}, jsonrpc.ErrInvalidParams)
			p.wantCode(t, "notes/greet", map[string]any{}, jsonrpc.ErrInvalidParams)
			checkEvent(t, p)
			checkBrokenLines(t, p)
			if diff := cmp.Diff(map[string]any{"slept": float64(1)}, p.call(t, "notes/sleep", map[string]int{"ms": 1})); diff != "" {
				t.Errorf("notes/sleep (-want +got):\n%s", diff)
			}

			if got := p.call(t, "shutdown", nil); got != nil {
				t.Errorf("shutdown answered %v, want null", got)
			}
			if code := p.exitCode(t); code != 0 {
				t.Errorf("exit code after shutdown %d, want 0; stderr:\n%s", code, p.stderr)
			}
			if len(p.host.events()) != 0 {
				t.Errorf("stdout held more than the protocol: %v", p.host.events())
			}
		})
	}
}

// stderrHas waits for text on the process's stderr: the lines are copied
// from the pipe by a goroutine of os/exec, so they may trail the answer
// that came on stdout.
func (p *process) stderrHas(t *testing.T, text string) bool {
	deadline := time.Now().Add(waitLimit(t))
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(p.stderr.String(), text) {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

// TestCrash checks notes/crash: no answer, three stderr lines, exit code 3.
func TestCrash(t *testing.T) {
	for _, ex := range examples {
		t.Run(ex.dir, func(t *testing.T) {
			ex.need(t)
			p := start(t, ex)
			p.call(t, "initialize", initializeParams(ex))
			_, err := p.callRaw(t, "notes/crash", nil)
			if !errors.Is(err, jsonrpc.ErrClosed) {
				t.Errorf("notes/crash: %v, want the connection closed", err)
			}
			if code := p.exitCode(t); code != 3 {
				t.Errorf("exit code %d, want 3", code)
			}
			if n := strings.Count(p.stderr.String(), "crashing on purpose"); n != 3 {
				t.Errorf("stderr has %d crash lines, want 3:\n%s", n, p.stderr)
			}
		})
	}
}

func initializeParams(ex example) map[string]any {
	return map[string]any{
		"protocolVersion": 1,
		"escouade":        map[string]string{"version": "2.2.0"},
		"plugin":          map[string]string{"id": ex.id, "version": "0.1.0"},
		"lang":            "en",
		"capabilities":    map[string]bool{"batch": true, "secrets": true, "settings": true, "log": true, "attach": true},
	}
}

func checkGreet(t *testing.T, p *process) {
	t.Helper()
	tests := []struct {
		settings map[string]any
		secret   any
		want     map[string]any
	}{
		{settings: map[string]any{}, secret: "hunter2",
			want: map[string]any{"text": "Hello, Ada!", "words": float64(5), "token": true}},
		{settings: map[string]any{"greeting": "Hi", "shout": true}, secret: nil,
			want: map[string]any{"text": "HI, ADA!", "words": float64(5), "token": false}},
	}
	for _, tt := range tests {
		p.host.set(tt.settings, tt.secret)
		if diff := cmp.Diff(tt.want, p.call(t, "notes/greet", map[string]string{"name": "Ada"})); diff != "" {
			t.Errorf("notes/greet with %v (-want +got):\n%s", tt.settings, diff)
		}
		if got := p.host.nextLog(t); got != "info greeted Ada" {
			t.Errorf("log after notes/greet: %q, want %q", got, "info greeted Ada")
		}
	}
	if !p.stderrHas(t, "greeting Ada") {
		t.Errorf("stderr lacks the greet trace:\n%s", p.stderr)
	}
	if strings.Contains(p.stderr.String(), "hunter2") {
		t.Errorf("stderr shows the secret:\n%s", p.stderr)
	}
}

func checkEcho(t *testing.T, p *process) {
	t.Helper()
	for _, params := range []string{
		`{"text":"é ✓ \u0000 \"q\"","n":[1,2.5,-3e-7],"deep":{"a":{"b":[null,true,false]}}}`,
		`[1,"two",{"three":3}]`,
		`{}`,
	} {
		raw, err := p.callRaw(t, "notes/echo", json.RawMessage(params))
		if err != nil {
			t.Fatalf("notes/echo %s: %v", params, err)
		}
		var want, got any
		json.Unmarshal([]byte(params), &want)
		json.Unmarshal(raw, &got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("notes/echo (-want +got):\n%s", diff)
		}
	}
}

func checkEvent(t *testing.T, p *process) {
	t.Helper()
	if err := p.host.conn.Notify("event/ticket.column", map[string]string{"ticket": "T-1", "column": "done"}); err != nil {
		t.Fatal(err)
	}
	want := `info ticket.column: {"column":"done","ticket":"T-1"}`
	if got := p.host.nextLog(t); got != want {
		t.Errorf("log after event/ticket.column: %q, want %q", got, want)
	}
}

// checkBrokenLines writes lines that are not JSON-RPC messages on the
// example's stdin: each is answered with id null, and the example keeps
// serving. Nothing else is being written, so the lines stay whole.
func checkBrokenLines(t *testing.T, p *process) {
	t.Helper()
	for _, tt := range []struct {
		line string
		want *jsonrpc.Error
	}{
		{"not json", jsonrpc.ErrParse},
		{`{"jsonrpc":"2.0","id":1`, jsonrpc.ErrParse},
		{`[]`, jsonrpc.ErrInvalidRequest},
		{`{"jsonrpc":"1.0","method":"notes/echo"}`, jsonrpc.ErrInvalidRequest},
		{`{"jsonrpc":"2.0","id":{},"method":"notes/echo"}`, jsonrpc.ErrInvalidRequest},
	} {
		if _, err := io.WriteString(p.stdin, tt.line+"\n"); err != nil {
			t.Fatal(err)
		}
		if got := p.host.nextPeerError(t); got.Code != tt.want.Code {
			t.Errorf("%s answered %d %q, want %d", tt.line, got.Code, got.Message, tt.want.Code)
		}
	}
	if diff := cmp.Diff(map[string]any{"still": "here"}, p.call(t, "notes/echo", map[string]string{"still": "here"})); diff != "" {
		t.Errorf("notes/echo after broken lines (-want +got):\n%s", diff)
	}
}

// process is an example's program, started as the host starts it.
type process struct {
	cmd    *exec.Cmd
	stdin  io.Writer
	host   *fakeHost
	stderr *syncBuffer
	exited chan struct{}
}

// start starts ex's run.command in its folder with the host's environment.
func start(t *testing.T, ex example) *process {
	t.Helper()
	m, err := manifest.Load(ex.dir, manifest.LoadOptions{})
	if err != nil {
		t.Fatalf("manifest.Load: %v", err)
	}
	argv := m.Run.Command
	program := argv[0]
	if strings.HasPrefix(program, "./") {
		program = filepath.Join(m.Dir, program)
	}
	cmd := exec.Command(program, argv[1:]...)
	cmd.Dir = m.Dir
	cmd.Env = append(os.Environ(), "ESCOUADE_PLUGIN_ID="+m.ID, "ESCOUADE_PLUGIN_API=1",
		"ESCOUADE_VERSION=2.2.0", "ESCOUADE_LANG=en")
	p := &process{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	p.stdin = stdin
	p.host = newFakeHost(m.Dir, stdout, stdin)
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		<-p.exited
		p.host.conn.Close()
		p.host.conn.Wait()
	})
	return p
}

// callRaw calls the example with a bounded wait.
func (p *process) callRaw(t *testing.T, method string, params any) (json.RawMessage, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit(t))
	defer cancel()
	return p.host.conn.Call(ctx, method, params)
}

// call calls the example and decodes its answer; an error fails the test.
func (p *process) call(t *testing.T, method string, params any) any {
	t.Helper()
	raw, err := p.callRaw(t, method, params)
	if err != nil {
		t.Fatalf("%s: %v; stderr:\n%s", method, err, p.stderr)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s answered %s: %v", method, raw, err)
	}
	return v
}

// wantCode calls the example and checks the error code of its answer.
func (p *process) wantCode(t *testing.T, method string, params any, want *jsonrpc.Error) {
	t.Helper()
	raw, err := p.callRaw(t, method, params)
	if !errors.Is(err, want) {
		t.Errorf("%s %v: answer %s, error %v; want code %d", method, params, raw, err, want.Code)
	}
}

// exitCode waits for the process to end and returns its exit code.
func (p *process) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(waitLimit(t)):
		t.Fatalf("the process did not exit; stderr:\n%s", p.stderr)
		return -1
	}
}

// syncBuffer is shared by the writing process and the test.
type syncBuffer = testutil.SyncBuffer
