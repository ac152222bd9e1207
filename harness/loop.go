package harness

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/process"
)

// loopState is what the loop keeps of the turn and of the agent's end.
type loopState struct {
	stopCancelTimer func() bool
	stopReason      string // the notice of an agent the harness stopped
	closing         bool
	saveFailed      bool
	cards           []string // requests of the cards shown and not answered yet
	closed          bool     // the closed item went out: nothing follows it
}

// exitAfterOutputGrace is how long the end of the agent's stdout waits for
// its exit, which normally follows at once and tells why it ended; an agent
// still running then lingers with nothing to say, and the turn ends.
const exitAfterOutputGrace = 100 * time.Millisecond

// begin builds the ACP client, starts the goroutines and sends initialize.
func (s *Session) begin(notices []string) {
	s.client = acp.NewClient(s.clientOptions())
	readerDone := make(chan struct{})
	s.wg.Add(3)
	go func() {
		defer s.wg.Done()
		defer close(readerDone)
		readLines(s.proc.Stdout(), s.opts.MaxLineBytes, s.lines)
		close(s.lines)
	}()
	go func() {
		defer s.wg.Done()
		s.watchExit(readerDone)
	}()
	go func() {
		defer s.wg.Done()
		s.run(notices)
	}()
}

func (s *Session) clientOptions() acp.Options {
	a := s.harness.ACP
	o := acp.Options{
		ClientVersion:   s.opts.AppVersion,
		FS:              a.FS(),
		Cwd:             s.fence.own,
		SessionID:       s.sessionToResume(),
		Modes:           a.Modes,
		ReadOnlyMode:    a.ReadOnlyMode,
		ModelOption:     a.ModelOption,
		Tools:           a.Tools,
		SubagentTools:   a.SubagentTools,
		QuestionsInText: a.QuestionsInText,
		Cursor:          a.HasExtension(manifest.ExtensionCursor),
		Lang:            s.opts.Lang,
	}
	if s.opts.MCP != nil {
		s.opts.MCP.NewToken(s.opts.Agent)
		o.MCPServers = []acp.MCPServer{{
			Server:   s.opts.MCP.HTTPEntry(s.opts.Agent),
			Fallback: s.opts.MCP.StdioEntry(s.opts.Agent, s.executable()),
		}}
	}
	return o
}

func (s *Session) executable() string {
	if s.opts.Executable != "" {
		return s.opts.Executable
	}
	exe, err := os.Executable()
	if err != nil {
		return "escouade-plugin" // found in PATH by the agent, the best left
	}
	return exe
}

// run is the session's goroutine: it owns the client until the agent ends.
func (s *Session) run(notices []string) {
	defer s.finish()
	for _, n := range notices {
		s.emit(noticeItem(n))
	}
	s.stdin.send(outLines(s.client.Start())...)
	s.startMode()
	lines := s.lines
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				s.outputEnded()
				return
			}
			s.feed(l)
		case exit := <-s.exited:
			if lines != nil {
				for l := range lines {
					s.feed(l) // what the agent wrote before it ended comes first
				}
			}
			s.agentExited(exit)
			return
		case <-s.work.Ready():
			s.runQueued()
		}
	}
}

// startMode asks for the app mode and the model the agent starts with;
// the client sends them once the session is open.
func (s *Session) startMode() {
	_, mapped := s.harness.ACP.Modes[s.mode]
	if mapped || s.mode == acp.ReadOnly && s.harness.ACP.ReadOnlyMode != "" {
		s.take(s.client.SetMode(s.mode))
	}
	if s.opts.Model != "" {
		s.take(s.client.SetModel(s.opts.Model))
	}
}

// watchExit tells the loop that the agent ended, once its stdout is read
// to the end. A child that keeps stdout open past the drain grace is
// killed with the group, so the end always comes.
func (s *Session) watchExit(readerDone <-chan struct{}) {
	<-s.proc.Done()
	select {
	case <-readerDone:
	case <-time.After(s.opts.DrainGrace):
		s.proc.KillGroup()
		s.proc.Stdout().Close()
		<-readerDone
	}
	s.exited <- s.proc.Exit()
}

func (s *Session) runQueued() {
	for _, f := range s.work.Drain() {
		f()
	}
}

func (s *Session) feed(l line) {
	if l.dropped > 0 {
		s.emit(noticeItem(fmt.Sprintf(noticeLineTooLongFormat, l.dropped, s.opts.MaxLineBytes)))
		return
	}
	s.take(s.client.Feed(l.data))
}

// take writes the client's lines and handles its items.
func (s *Session) take(items []acp.Item, outs []acp.Out) {
	s.stdin.send(outLines(outs)...)
	// The totals are kept before the items go out: whoever sees a turn
	// item and then asks for Totals must find that turn counted.
	s.mu.Lock()
	s.totals = s.client.Totals()
	s.mu.Unlock()
	for _, it := range items {
		s.handle(it)
	}
	if s.client.Ended() {
		s.stopAgent()
	}
}

func (s *Session) handle(it acp.Item) {
	switch it.Type {
	case acp.TypePermission:
		s.onPermission(it)
		return
	case acp.TypeFSRead, acp.TypeFSWrite:
		s.emit(it)
		s.serveFS(it)
		return
	case acp.TypeTurn:
		s.turnEnded()
	case acp.TypeMode:
		it.AppMode = s.appModeOf(it.Mode)
		s.saveAgent(func(r *AgentRecord) { r.Mode = s.mode })
	case acp.TypeModel:
		s.saveAgent(func(r *AgentRecord) { r.Model = it.Model })
	case acp.TypeSession:
		s.saveAgent(func(r *AgentRecord) { r.SessionID = it.SessionID })
	case acp.TypeSessionInfo:
		if title := boundTitle(it.Title); title != "" {
			s.saveAgent(func(r *AgentRecord) { r.Title = title })
		}
	}
	s.emit(it)
	s.noticeCauses(it)
	if it.Type == acp.TypeTool || it.Type == acp.TypeToolDone {
		s.noticeUnfenced(it)
	}
	if it.Type == acp.TypeMode {
		s.noticeOwnMode(it)
	}
}

// noticeOwnMode says when the agent's mode is not the one of the app mode
// the host applies: the agent switched itself, and what the host asks
// before a tool (its policy, policy.go) follows its own mode still.
func (s *Session) noticeOwnMode(it acp.Item) {
	want := s.harness.ACP.Modes[s.mode]
	if s.mode == acp.ReadOnly && s.harness.ACP.ReadOnlyMode != "" {
		want = s.harness.ACP.ReadOnlyMode
	}
	if want == "" || it.Mode == want {
		return
	}
	mapped := ""
	if it.AppMode != "" {
		mapped = fmt.Sprintf(" (the app mode %s)", it.AppMode)
	}
	s.emit(noticeItem(fmt.Sprintf(noticeOwnModeFormat, s.speaker(), it.Mode, mapped, s.mode)))
}

// emit gives an item to the app and to the store. It keeps the order the
// app relies on: every card shown is answered before closed (a card left
// waiting when the agent dies is answered cancelled), and closed is the
// last item.
func (s *Session) emit(it acp.Item) {
	if s.loop.closed {
		return
	}
	if it.Type == acp.TypeNotice {
		it.Text = s.ownNotice(it.Text)
	}
	switch it.Type {
	case acp.TypePermission, acp.TypeQuestion:
		s.loop.cards = append(s.loop.cards, it.Request)
	case acp.TypeAnswered:
		s.loop.cards = slices.DeleteFunc(s.loop.cards, func(r string) bool { return r == it.Request })
	case acp.TypeClosed:
		s.cancelAsks()
		for _, request := range s.loop.cards {
			s.deliver(acp.Item{Type: acp.TypeAnswered, Request: request, Outcome: acp.OutcomeCancelled})
		}
		s.loop.cards = nil
		s.loop.closed = true
	}
	s.deliver(it)
}

// deliver stores an item, then shows it: an item a person saw is one the
// conversation kept, even if the host is killed between the two.
func (s *Session) deliver(it acp.Item) {
	if s.opts.Store != nil {
		if err := s.opts.Store.Append(s.opts.Agent, it); err != nil && !s.loop.saveFailed {
			s.loop.saveFailed = true
			defer s.opts.OnItem(noticeItem(fmt.Sprintf("cannot save the conversation: %v", err)))
		}
	}
	s.opts.OnItem(it)
}

// appModeOf is the app mode that acp.modes (or readOnlyMode) maps to the
// agent's mode, "" when none does or the harness does not offer it
// (CheckMode); the one asked for wins a tie.
func (s *Session) appModeOf(agentMode string) string {
	a := s.harness.ACP
	if agentMode == "" {
		return ""
	}
	if a.Modes[s.mode] == agentMode || s.mode == acp.ReadOnly && a.ReadOnlyMode == agentMode {
		return s.mode
	}
	offered := OfferedModes(s.harness)
	if a.ReadOnlyMode == agentMode && slices.Contains(offered, acp.ReadOnly) {
		return acp.ReadOnly
	}
	for _, app := range slices.Sorted(maps.Keys(a.Modes)) {
		if a.Modes[app] == agentMode && slices.Contains(offered, app) {
			return app
		}
	}
	return ""
}

func (s *Session) setMode(mode string) {
	s.mode = mode
	s.take(s.client.SetMode(mode))
}

func (s *Session) cancel() {
	s.take(s.client.Cancel())
	s.cancelAsks()
	if s.client.CancelPending() && s.loop.stopCancelTimer == nil {
		s.loop.stopCancelTimer = s.after(s.opts.CancelGrace, s.cancelTimedOut)
	}
}

// cancelTimedOut stops an agent that ignored the cancel.
func (s *Session) cancelTimedOut() {
	s.loop.stopCancelTimer = nil
	if !s.client.CancelPending() {
		return
	}
	s.loop.stopReason = fmt.Sprintf(noticeCancelIgnoredFormat, s.speaker(), s.opts.CancelGrace)
	s.proc.KillGroup()
}

func (s *Session) turnEnded() {
	if stop := s.loop.stopCancelTimer; stop != nil {
		stop()
		s.loop.stopCancelTimer = nil
	}
}

func (s *Session) closeSession(ctx context.Context) {
	if s.loop.closing {
		return
	}
	s.loop.closing = true
	s.closeCtx = ctx
	s.cancelAsks()
	s.take(s.client.Close())
	s.stopAgent()
}

// stopAgent closes the agent's stdin once the client's last lines are
// written, then stops its process group after the close grace.
func (s *Session) stopAgent() {
	if s.stopping {
		return
	}
	s.stopping = true
	s.stdin.closeInput()
	ctx, grace := s.closeCtx, s.opts.CloseGrace
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		select {
		case <-s.stdin.done:
		case <-s.proc.Done():
		}
		s.proc.Stop(ctx, grace)
	}()
}

// outputEnded ends the session once the agent's stdout has ended: nothing
// can come from it any more, so its turn ends now, whether or not its
// process has exited. The exit, if it follows within a short grace, gives
// the reason; a process that lingers is stopped by finish.
func (s *Session) outputEnded() {
	timer := time.NewTimer(exitAfterOutputGrace)
	defer timer.Stop()
	select {
	case exit := <-s.exited:
		s.agentExited(exit)
	case <-timer.C:
		reason := s.loop.stopReason
		if reason == "" && !s.loop.closing && !s.client.Ended() {
			reason = fmt.Sprintf(noticeOutputEndedFormat, s.speaker())
		}
		s.agentStopped(reason)
	}
}

// agentExited ends the client: a crash, or the harness's own stop, is a
// notice.
func (s *Session) agentExited(exit process.Exit) {
	reason := s.loop.stopReason
	if reason == "" && !s.loop.closing && !s.client.Ended() {
		reason = crashNotice(s.speaker(), exit, s.proc.LastStderr())
	}
	s.agentStopped(reason)
}

func (s *Session) agentStopped(reason string) {
	for _, it := range s.client.AgentStopped(reason) {
		s.handle(it)
	}
}

func crashNotice(speaker string, exit process.Exit, stderr []string) string {
	n := fmt.Sprintf(noticeCrashFormat, speaker, exit)
	if len(stderr) > 0 {
		n += ": " + strings.Join(stderr[max(0, len(stderr)-crashStderrLines):], " / ")
	}
	return n
}

// crashStderrLines is how many last stderr lines a crash notice quotes.
const crashStderrLines = 3

// finish releases what the session holds once the agent has ended.
func (s *Session) finish() {
	s.work.Close()
	s.turnEnded()
	s.cancelAsks()
	if s.opts.MCP != nil {
		s.opts.MCP.Revoke(s.opts.Agent)
	}
	s.stdin.closeInput()
	s.proc.Stop(context.Background(), 0)
	s.proc.Stdout().Close()
	close(s.done)
}

func outLines(outs []acp.Out) [][]byte {
	lines := make([][]byte, len(outs))
	for i, o := range outs {
		lines[i] = o.Line
	}
	return lines
}

func noticeItem(text string) acp.Item { return acp.Item{Type: acp.TypeNotice, Text: text} }
