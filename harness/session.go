package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/internal/bqueue"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/process"
)

// ErrClosed reports a call on a session whose agent has ended.
var ErrClosed = errors.New("the agent's session has ended")

// Session is one agent of a described harness, from its launch to its end.
// Its methods are safe for concurrent use: they queue work for the
// session's goroutine, which alone touches the ACP client.
type Session struct {
	opts    Options
	harness *manifest.Harness
	id      string
	fence   *Fence
	proc    *process.Process
	stdin   *stdinWriter

	// Owned by the loop goroutine.
	client  *acp.Client
	mode    string
	loop    loopState
	asks    map[string]chan askReply
	noticed map[string]bool // tool calls already noticed as unfenced accesses

	causesNoticed map[string]bool // known causes already noticed (causes.go)
	stopping      bool

	work     *bqueue.Queue[func()] // for the loop; closed once the agent has ended
	mu       sync.Mutex
	askSeq   int
	totals   acp.Usage
	lines    chan line
	exited   chan process.Exit
	done     chan struct{}
	wg       sync.WaitGroup
	closeCtx context.Context
	program  string // the agent's program, as found in PATH
}

// Start finds, checks and launches the agent and opens its session. ctx
// bounds the start only (the version probe); Close ends the session.
func Start(ctx context.Context, opts Options) (*Session, error) {
	opts = opts.withDefaults()
	h, err := pickHarness(opts.Manifest, opts.Harness)
	if err != nil {
		return nil, err
	}
	if err := opts.admit(opts.Manifest); err != nil {
		return nil, err
	}
	if err := CheckMode(h, opts.Mode); err != nil {
		return nil, err
	}
	s := &Session{opts: opts, harness: h, id: ID(opts.Manifest.ID, h.ID), mode: opts.Mode,
		asks: map[string]chan askReply{}, noticed: map[string]bool{},
		work: bqueue.New[func()](0, bqueue.Refuse), lines: make(chan line, linesBuffered),
		exited: make(chan process.Exit, 1), done: make(chan struct{}), closeCtx: context.Background()}
	if st, err := os.Stat(opts.Cwd); err != nil || !st.IsDir() {
		// Said here, the folder is named; launched, the failure would name
		// the agent's program instead.
		return nil, fmt.Errorf(refuseNoFolderFormat, opts.Cwd)
	}
	if s.fence, err = NewFence(opts.Cwd, opts.Fences); err != nil {
		return nil, err
	}
	if !h.ACP.FS() && s.fence.InPrivateProject() {
		return nil, fmt.Errorf(refusePrivateFormat, s.speaker())
	}
	appEnv := opts.Env
	if appEnv == nil {
		appEnv = os.Environ()
	}
	path, err := Locate(h, appEnv)
	if err != nil {
		return nil, err
	}
	s.program = path
	notices := s.versionNotices(ctx, path, appEnv)
	if err := s.launch(path, agentEnv(appEnv, h, opts.AccountDir)); err != nil {
		return nil, err
	}
	s.begin(notices)
	return s, nil
}

// linesBuffered is how many agent lines wait for the loop; the reader then
// waits, and so does the agent: back pressure instead of memory.
const linesBuffered = 16

func pickHarness(m *manifest.Manifest, id string) (*manifest.Harness, error) {
	if m == nil {
		return nil, errors.New("no manifest")
	}
	for i := range m.Contributes.Harnesses {
		h := &m.Contributes.Harnesses[i]
		if h.Described() && (id == "" || h.ID == id) {
			return h, nil
		}
	}
	if id != "" {
		return nil, fmt.Errorf("%s has no described harness %q", m.ID, id)
	}
	return nil, fmt.Errorf("%s describes no ACP harness", m.ID)
}

// speaker is the name of the agent in texts.
func (s *Session) speaker() string {
	return or(s.harness.Speaker.In(s.opts.Lang), s.harness.Name.In(s.opts.Lang))
}

// versionNotices reads the agent's version to compare it with the tested
// range; a version outside it is a notice, not a refusal. Nothing is read
// for a harness without a range, or whose versionArgs is []. A version
// that cannot be read is a notice only when the harness gave versionArgs:
// the default --version is a guess, and an agent without it (codex-acp)
// would otherwise bring the same notice at every start
// (docs/harness.md#finding-checking-and-launching-the-agent).
func (s *Session) versionNotices(ctx context.Context, path string, env []string) []string {
	h := s.harness
	if !h.ReadsVersion() || h.Tested == (manifest.Tested{}) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.VersionTimeout)
	defer cancel()
	v, err := ReadVersion(ctx, path, h.VersionArgs(), env)
	if err != nil {
		if !h.SaysVersionArgs() {
			return nil
		}
		return []string{fmt.Sprintf(noticeNoVersionFormat, h.Name.In(s.opts.Lang), err)}
	}
	n := TestedNotice(s.harness.Name.In(s.opts.Lang), v, s.harness.Tested)
	if n == "" {
		return nil
	}
	if old := s.harness.Tested.Oldest; old != "" && compareVersions(v, old) < 0 && s.harness.UpdateCommand != "" {
		n += fmt.Sprintf(" (update it with: %s)", s.harness.UpdateCommand) // older than tried: an update is what helps
	}
	return []string{n}
}

func (s *Session) launch(path string, env []string) error {
	p, err := process.Start(process.Spec{
		Dir:     s.opts.Cwd,
		Command: append([]string{path}, s.harness.ACP.Args...),
		Env:     env,
		Stderr:  s.opts.Stderr,
	})
	if err != nil {
		return err
	}
	s.proc = p
	s.stdin = newStdinWriter(p.Stdin())
	return nil
}

// ID is the harness id, plugin:<plugin>:<harness>.
func (s *Session) ID() string { return s.id }

// Agent is the agent's name.
func (s *Session) Agent() string { return s.opts.Agent }

// Done is closed once the agent has ended and every item was given.
func (s *Session) Done() <-chan struct{} { return s.done }

// Wait waits for the end of the session.
func (s *Session) Wait() { <-s.done; s.wg.Wait() }

// Totals gives the tokens counted over the session's turns.
func (s *Session) Totals() acp.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.totals
}

// Prompt sends a user message, which starts a turn.
func (s *Session) Prompt(text string) error {
	return s.post(func() { s.take(s.client.Prompt(text)) })
}

// Busy reports whether the session is opening, a turn runs or a prompt
// waits for one (false once the session has ended).
func (s *Session) Busy() bool {
	answer := make(chan bool, 1)
	if s.post(func() { answer <- s.client.Opening() || s.client.TurnPending() }) != nil {
		return false
	}
	select {
	case busy := <-answer:
		return busy
	case <-s.Done():
		return false
	}
}

// AnswerOption answers a permission card with the option of that id.
func (s *Session) AnswerOption(request, optionID string) error {
	return s.post(func() { s.take(s.client.AnswerPermissionOption(request, optionID)) })
}

// Answer answers a permission card by option kind (allow_once,
// allow_always, reject_once, reject_always) or option id.
func (s *Session) Answer(request, kindOrOption string) error {
	return s.post(func() { s.take(s.client.AnswerPermission(request, kindOrOption)) })
}

// AnswerQuestion answers a question card, of the agent's text or of the
// MCP tool ask_question.
func (s *Session) AnswerQuestion(request string, answers [][]string) error {
	return s.post(func() { s.answerQuestion(request, answers) })
}

// Cancel cancels the running turn; an agent that has not ended it
// Options.CancelGrace later is stopped.
func (s *Session) Cancel() error { return s.post(s.cancel) }

// SetMode changes the app mode: the agent's ACP mode and the permission
// policy. A mode the harness does not offer (CheckMode) is refused.
func (s *Session) SetMode(mode string) error {
	if err := CheckMode(s.harness, mode); err != nil {
		return err // refused here, it reaches neither the agent nor the policy
	}
	return s.post(func() { s.setMode(mode) })
}

// SetModel changes the model.
func (s *Session) SetModel(model string) error {
	return s.post(func() { s.take(s.client.SetModel(model)) })
}

// Close ends the session (session/close when offered, stdin closed, the
// process group stopped after Options.CloseGrace) and waits for its end.
// ctx cut short skips the graces.
func (s *Session) Close(ctx context.Context) error {
	_ = s.post(func() { s.closeSession(ctx) }) // an ended session has nothing left to close
	select {
	case <-s.done:
	case <-ctx.Done():
		s.proc.KillGroup()
		<-s.done
	}
	s.wg.Wait()
	return nil
}

// post queues work for the loop; ErrClosed once the session has ended.
func (s *Session) post(f func()) error {
	if _, _, err := s.work.Push(f); err != nil {
		return ErrClosed
	}
	return nil
}

// after runs f on the loop once d has passed; stop cancels it.
func (s *Session) after(d time.Duration, f func()) (stop func() bool) {
	t := time.AfterFunc(d, func() { _ = s.post(f) }) // a session that ended has nothing to time
	return t.Stop
}
