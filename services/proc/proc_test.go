package proc

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/services"
	fssvc "github.com/escouade-dev/escouade-plugin/services/fs"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
	"github.com/google/go-cmp/cmp"
)

const pluginID = "dev.escouade.build"

type refusal struct {
	Code   int64
	Reason string
}

func refusalOf(err error) refusal {
	var se *services.Error
	if errors.As(err, &se) {
		return refusal{se.Code, se.Reason}
	}
	if err != nil {
		return refusal{0, err.Error()}
	}
	return refusal{}
}

// clock gives the test the time limit's timer.
type clock struct {
	mu      sync.Mutex
	created chan *timer
}

type timer struct {
	d       time.Duration
	f       func()
	mu      sync.Mutex
	stopped bool
}

func (t *timer) Stop() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

func (t *timer) fire() {
	if t.Stop() {
		t.f()
	}
}

func (c *clock) AfterFunc(d time.Duration, f func()) Timer {
	t := &timer{d: d, f: f}
	c.created <- t
	return t
}

// fixture runs the test binary as the program "fake" (and "git", granted
// but not in PATH) in an agent folder.
type fixture struct {
	agent string
	clock *clock
	svc   *Service
	j     *journal
}

type journal struct {
	mu    sync.Mutex
	lines []string
}

func (j *journal) write(tag, text string) {
	j.mu.Lock()
	j.lines = append(j.lines, tag+" "+text)
	j.mu.Unlock()
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{agent: t.TempDir(), clock: &clock{created: make(chan *timer, 8)}, j: &journal{}}
	if err := os.MkdirAll(filepath.Join(f.agent, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f.svc = New(Config{PluginID: pluginID,
		Granted: manifest.Permissions{Programs: []string{"fake", "git"}, Files: []string{"agent:ro"}},
		Roots: func(id string) (fssvc.AgentRoots, bool) {
			return fssvc.AgentRoots{Agent: f.agent}, id == "a1"
		},
		LookPath: func(name string) (string, error) {
			if name == "fake" {
				return self, nil
			}
			return "", exec.ErrNotFound
		},
		// A race-enabled binary sleeps 1 s at exit unless told not to.
		Env:       append(os.Environ(), fakeEnv+"=1", "GORACE=atexit_sleep_ms=0"),
		AfterFunc: f.clock.AfterFunc,
		Journal:   f.j.write,
	})
	t.Cleanup(func() { f.svc.Close() })
	return f
}

func (f *fixture) run(t *testing.T, p proto.ProcRunParams) (any, error) {
	t.Helper()
	if p.Agent == "" {
		p.Agent = "a1"
	}
	if p.Cwd.Root == "" {
		p.Cwd = proto.FsLocation{Root: "agent", Path: "."}
	}
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return services.Call(context.Background(), f.svc.Methods()["proc/run"], raw)
}

// runNow runs p, firing no timer.
func (f *fixture) runNow(t *testing.T, p proto.ProcRunParams) (proto.ProcRunResult, error) {
	t.Helper()
	got, err := f.run(t, p)
	<-f.clock.created
	r, _ := got.(proto.ProcRunResult)
	return r, err
}

// TestRun: arguments with no shell, stdin, the working folder, exit codes.
func TestRun(t *testing.T) {
	f := newFixture(t)
	sub, _ := filepath.EvalSymlinks(filepath.Join(f.agent, "sub"))
	tests := []struct {
		params proto.ProcRunParams
		want   proto.ProcRunResult
	}{
		{proto.ProcRunParams{Program: "fake", Args: []string{"echo", "a b", "$(id)", ";", "|"}},
			proto.ProcRunResult{Stdout: "a b $(id) ; |", Stderr: "to stderr"}},
		{proto.ProcRunParams{Program: "fake", Args: []string{"cat"}, Stdin: "in\n"}, proto.ProcRunResult{Stdout: "in\n"}},
		{proto.ProcRunParams{Program: "fake", Args: []string{"exit", "7"}}, proto.ProcRunResult{Code: 7}},
		{proto.ProcRunParams{Program: "fake", Args: []string{"pwd"}, Cwd: proto.FsLocation{Root: "agent", Path: "sub"}},
			proto.ProcRunResult{Stdout: sub}},
	}
	for _, tt := range tests {
		got, err := f.runNow(t, tt.params)
		if err != nil {
			t.Errorf("%v: %v", tt.params.Args, err)
			continue
		}
		if got.Stdout != tt.want.Stdout && tt.params.Args[0] == "pwd" {
			got.Stdout, _ = filepath.EvalSymlinks(got.Stdout)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.params.Args, diff)
		}
	}
}

// TestRefusals: only granted names, found in PATH, in a granted folder.
func TestRefusals(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		params proto.ProcRunParams
		want   refusal
	}{
		{proto.ProcRunParams{Program: "sh", Args: []string{"-c", "id"}}, refusal{-32003, "sh is not in permissions.programs of dev.escouade.build"}},
		{proto.ProcRunParams{Program: "/bin/fake"}, refusal{-32003, `"/bin/fake": a program name, not a path`}},
		{proto.ProcRunParams{Program: `..\fake`}, refusal{-32003, `"..\\fake": a program name, not a path`}},
		{proto.ProcRunParams{Program: "git"}, refusal{-32004, "git is not found in PATH"}},
		{proto.ProcRunParams{Program: "fake", Cwd: proto.FsLocation{Root: "agent", Path: "../x"}}, refusal{-32003, `agent "../x": a ".." segment`}},
		{proto.ProcRunParams{Program: "fake", Cwd: proto.FsLocation{Root: "temp", Path: "."}}, refusal{-32003, `temp ".": the root temp is not in permissions.files of dev.escouade.build`}},
		{proto.ProcRunParams{Program: "fake", Cwd: proto.FsLocation{Root: "agent", Path: "nope"}}, refusal{-32004, `agent "nope": no such folder`}},
	}
	for _, tt := range tests {
		_, err := f.run(t, tt.params)
		if diff := cmp.Diff(tt.want, refusalOf(err)); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tt.params, diff)
		}
	}
}

// TestOutputCap: each output keeps its first 1 MiB, the rest is dropped
// and journaled.
func TestOutputCap(t *testing.T) {
	f := newFixture(t)
	got, err := f.runNow(t, proto.ProcRunParams{Program: "fake", Args: []string{"flood", "2000000"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Stdout) != MaxOutputBytes || len(got.Stderr) != MaxOutputBytes {
		t.Errorf("outputs of %d and %d bytes, want %d each", len(got.Stdout), len(got.Stderr), MaxOutputBytes)
	}
	f.j.mu.Lock()
	defer f.j.mu.Unlock()
	if len(f.j.lines) != 2 || !strings.HasPrefix(f.j.lines[0], "dropped proc/run fake: std") {
		t.Errorf("journal %q", f.j.lines)
	}
}

// TestTimeLimit: the limit asked for, at most 60 s, and the kill at it.
func TestTimeLimit(t *testing.T) {
	f := newFixture(t)
	done := make(chan error, 1)
	go func() {
		_, err := f.run(t, proto.ProcRunParams{Program: "fake", Args: []string{"sleep"}, TimeoutMs: 1500})
		done <- err
	}()
	tm := <-f.clock.created
	if tm.d != 1500*time.Millisecond {
		t.Errorf("the limit is %v, want 1.5s", tm.d)
	}
	tm.fire()
	want := refusal{-32004, "fake ran past its limit of 1500 ms: killed with all it started"}
	if diff := cmp.Diff(want, refusalOf(<-done)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	go func() {
		_, err := f.run(t, proto.ProcRunParams{Program: "fake", Args: []string{"exit", "0"}})
		done <- err
	}()
	if tm := <-f.clock.created; tm.d != MaxTimeout {
		t.Errorf("the default limit is %v, want %v", tm.d, MaxTimeout)
	}
	<-done
}

// TestCloseKills: Close kills a program still running.
func TestCloseKills(t *testing.T) {
	f := newFixture(t)
	done := make(chan error, 1)
	go func() {
		_, err := f.run(t, proto.ProcRunParams{Program: "fake", Args: []string{"sleep"}})
		done <- err
	}()
	<-f.clock.created
	f.svc.Close()
	if diff := cmp.Diff(refusal{-32004, "fake: the instance ended"}, refusalOf(<-done)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
