package proc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/process"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/services"
	fssvc "github.com/escouade-dev/escouade-plugin/services/fs"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// The limits of docs/protocol.md#procrun.
const (
	MaxOutputBytes = protocol.ProcOutputBytes
	MaxTimeout     = protocol.ProcTimeout
)

// Timer is a timer of the service's clock; *time.Timer is one.
type Timer interface{ Stop() bool }

// Config is what a Service is made from.
type Config struct {
	PluginID string
	// Granted is what the user granted now: Programs and Files are read.
	Granted manifest.Permissions
	// Roots gives the folders of an attached agent; TempDir is the
	// plugin's temporary folder (as for fs/*).
	Roots   fssvc.RootsFunc
	TempDir string
	// Journal writes a journal line (tag, text).
	Journal func(tag, text string)

	// LookPath finds a program; nil is exec.LookPath.
	LookPath func(name string) (string, error)
	// Env is the programs' environment; nil is process.Environ of the
	// host's: a plugin's program and the programs it is granted get the
	// same variables (docs/protocol.md#plugin-env).
	// Each call adds its own temporary folder.
	Env []string
	// AfterFunc is the clock of the time limit; nil is time.AfterFunc.
	AfterFunc func(d time.Duration, f func()) Timer
	// WaitDelay bounds the wait for outputs a program's escaped children
	// hold open after it exits; zero is 1 s.
	WaitDelay time.Duration
}

// Service runs the programs of one instance.
type Service struct {
	cfg   Config
	roots *fssvc.Roots

	mu      sync.Mutex
	closed  bool
	running map[*run]struct{}
	// turns holds a place per program running: at most MaxRunning at once,
	// the next waiting for a place (answered later, it holds no slot of the
	// connection meanwhile).
	turns chan struct{}
}

// MaxRunning is how many programs one instance runs at once.
const MaxRunning = protocol.ProcMaxRunning

// runInTurn is proc/run once a place among the MaxRunning is free; the
// instance ending gives up the wait.
func (s *Service) runInTurn(ctx context.Context, params json.RawMessage) (any, error) {
	select {
	case s.turns <- struct{}{}:
	case <-ctx.Done():
		return nil, failed("the instance ended before the program could start")
	}
	defer func() { <-s.turns }()
	return s.run(ctx, params)
}

// New makes the programs' service of one instance.
func New(c Config) *Service {
	return &Service{cfg: c, roots: fssvc.NewRoots(c.PluginID, c.Granted, c.Roots, c.TempDir), running: map[*run]struct{}{}, turns: make(chan struct{}, MaxRunning)}
}

// Methods gives proc/run, answered later: while a program runs, the
// connection that asked holds no goroutine and no request slot for it.
func (s *Service) Methods() map[string]services.Handler {
	return map[string]services.Handler{vocab.MethodProcRun: services.AnswerLater(s.runInTurn)}
}

// Close kills every program still running, with all it started.
func (s *Service) Close() error {
	s.mu.Lock()
	s.closed = true
	runs := make([]*run, 0, len(s.running))
	for r := range s.running {
		runs = append(runs, r)
	}
	s.mu.Unlock()
	for _, r := range runs {
		r.stop(errClosed)
	}
	return nil
}

var (
	errClosed   = errors.New("the instance ended")
	errTimedOut = errors.New("timed out")
)

// run serves proc/run.
func (s *Service) run(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.ProcRunParams
	if bad := services.DecodeParams(params, &p); bad != nil {
		return nil, bad
	}
	path, bad := s.program(p.Program)
	if bad != nil {
		return nil, bad
	}
	dir, bad := s.roots.Folder(p.Cwd.Root, string(p.Cwd.Path), string(p.Agent))
	if bad != nil {
		return nil, bad
	}
	timeout := MaxTimeout
	if p.TimeoutMs > 0 {
		timeout = min(time.Duration(p.TimeoutMs)*time.Millisecond, MaxTimeout)
	}
	tmp, err := callTemp(s.cfg.TempDir)
	if err != nil {
		return nil, failed(fmt.Sprintf("%s: no temporary folder: %v", p.Program, err))
	}
	defer os.RemoveAll(tmp) // after the kill: nothing of the call writes there any more
	r := &run{name: p.Program, timeout: timeout}
	r.cmd = s.command(path, p.Args, dir, p.Stdin, tmp, r)
	result, bad := s.execute(ctx, r)
	if bad != nil {
		return nil, bad
	}
	return result, nil
}

// program judges a program name and finds it in PATH.
func (s *Service) program(name string) (string, *services.Error) {
	switch {
	case name == "":
		return "", services.InvalidParams("params.program is empty")
	case strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, 0):
		return "", forbidden(fmt.Sprintf("%q: a program name, not a path", name))
	case !slices.Contains(s.cfg.Granted.Programs, name):
		return "", forbidden(fmt.Sprintf("%s is not in permissions.programs of %s", name, s.cfg.PluginID))
	}
	look := s.cfg.LookPath
	if look == nil {
		look = exec.LookPath
	}
	path, err := look(name)
	if err != nil {
		return "", failed(fmt.Sprintf("%s is not found in PATH", name))
	}
	return path, nil
}

func (s *Service) command(path string, args []string, dir, stdin, tmp string, r *run) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Args[0] = r.name
	cmd.Dir = dir
	env := s.cfg.Env
	if env == nil {
		env = process.Environ(os.Environ())
	}
	cmd.Env = withTemp(env, tmp)
	cmd.Stdin = strings.NewReader(stdin)
	r.stdout, r.stderr = &capped{max: MaxOutputBytes}, &capped{max: MaxOutputBytes}
	cmd.Stdout, cmd.Stderr = r.stdout, r.stderr
	cmd.WaitDelay = s.cfg.WaitDelay
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = time.Second
	}
	return cmd
}

// execute starts the program, waits for it within its time, and answers.
func (s *Service) execute(ctx context.Context, r *run) (any, *services.Error) {
	if !s.track(r) {
		return nil, failed(r.name + ": " + errClosed.Error())
	}
	defer s.untrack(r)
	if err := r.start(); err != nil {
		return nil, failed(fmt.Sprintf("%s cannot start: %v", r.name, err))
	}
	timer := s.afterFunc(r.timeout, func() { r.stop(errTimedOut) })
	stopOnCancel := context.AfterFunc(ctx, func() { r.stop(errClosed) })
	err := r.cmd.Wait()
	r.family.Exited()
	timer.Stop()
	stopOnCancel()
	r.family.Kill() // what it left running, in its group or out of it
	r.family.Release()
	return s.answer(r, err)
}

func (s *Service) answer(r *run, err error) (any, *services.Error) {
	switch r.reason() {
	case errTimedOut:
		return nil, failed(fmt.Sprintf("%s ran past its limit of %d ms: killed with all it started", r.name, r.timeout.Milliseconds()))
	case errClosed:
		return nil, failed(r.name + ": " + errClosed.Error())
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		return nil, failed(fmt.Sprintf("%s: %v", r.name, err))
	}
	s.noteDropped(r)
	return proto.ProcRunResult{Code: int64(r.family.ExitCode(r.cmd.ProcessState)),
		Stdout: strings.ToValidUTF8(r.stdout.String(), "\uFFFD"), Stderr: strings.ToValidUTF8(r.stderr.String(), "\uFFFD")}, nil
}

func (s *Service) noteDropped(r *run) {
	for name, out := range map[string]*capped{"stdout": r.stdout, "stderr": r.stderr} {
		if out.dropped > 0 && s.cfg.Journal != nil {
			s.cfg.Journal(services.TagDropped, fmt.Sprintf("%s %s: %s past %d MiB, %d bytes dropped", vocab.MethodProcRun, r.name, name, MaxOutputBytes>>20, out.dropped))
		}
	}
}

func (s *Service) track(r *run) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.running[r] = struct{}{}
	return true
}

func (s *Service) untrack(r *run) {
	s.mu.Lock()
	delete(s.running, r)
	s.mu.Unlock()
}

func (s *Service) afterFunc(d time.Duration, f func()) Timer {
	if s.cfg.AfterFunc != nil {
		return s.cfg.AfterFunc(d, f)
	}
	return time.AfterFunc(d, f)
}

// run is one program started by proc/run.
type run struct {
	name    string
	timeout time.Duration
	cmd     *exec.Cmd
	stdout  *capped
	stderr  *capped

	mu      sync.Mutex
	family  *process.Family
	stopped error // why it was killed, if it was
}

// start starts the program as the leader of its family, tracked as a
// plugin's program is; one that cannot be tracked is killed rather than
// left running.
func (r *run) start() error {
	f, err := process.StartFamily(r.cmd)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.family = f
	stopped := r.stopped
	r.mu.Unlock()
	if stopped != nil {
		f.Kill()
	}
	return nil
}

// stop kills the program with all it started, saying why (the first
// reason counts).
func (r *run) stop(why error) {
	r.mu.Lock()
	if r.stopped == nil {
		r.stopped = why
	}
	f := r.family
	r.mu.Unlock()
	if f != nil {
		f.Kill()
	}
}

func (r *run) reason() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}

// capped keeps the first max bytes written and counts the rest. It is
// no io.ReaderFrom, so every write of the copy goes through Write.
type capped struct {
	buf     bytes.Buffer
	max     int
	dropped int64
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	keep := min(max(room, 0), len(p))
	c.buf.Write(p[:keep])
	c.dropped += int64(len(p) - keep)
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }

func forbidden(reason string) *services.Error {
	return &services.Error{Code: services.CodeForbidden, Message: vocab.MessageForbiddenProgram, Reason: reason}
}

func failed(reason string) *services.Error {
	return &services.Error{Code: services.CodeFailed, Message: vocab.MessageProgramFailed, Reason: reason}
}
