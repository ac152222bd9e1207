package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/transport"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// instance is one life of a plugin's program, from launch to exit. Its
// goroutine (run) owns the program; done is closed when it has ended.
type instance struct {
	p        *Plugin
	manifest *manifest.Manifest // the manifest it was started with
	prog     transport.Program
	conn     *jsonrpc.Conn
	svc      *serviceSet
	// ctx is the instance's life: cancelled when it has ended, it cancels
	// its launch, its host calls and its services.
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	// launched is closed once prog and conn are set, or launching failed.
	launched chan struct{}
	// phase is where it stands, and greeted whether it answered
	// initialize well (only then may shutdown be sent); guarded by p.mu,
	// changed by decide.
	phase   phase
	greeted bool
	// decisions counts the permissions/… calls pending on it: a module's
	// turn is shorter while it holds one.
	decisions atomic.Int32
	// writing is held while a request is written to the program, so that
	// the flush of the queue hands over to what comes next in order.
	writing sync.Mutex
	// launchedAt is when its program was launched, after the start's
	// check: what changed in its folder before is not the program's doing.
	launchedAt time.Time
	// noAttach is set when the program's initialize answer says
	// capabilities.attach false: agent/attach is then never written to it.
	noAttach atomic.Bool
}

// holdsDecision reports whether a decision an agent waits for is pending
// on the instance.
func (i *instance) holdsDecision() bool { return i.decisions.Load() > 0 }

// holdDecision counts a call of method as a decision the instance holds,
// when it is one (permissions/…), until its answer is taken or its delay d
// has run, whichever comes first; the returned func releases it early.
func (i *instance) holdDecision(method string, d time.Duration) (release func()) {
	if !strings.HasPrefix(method, vocab.MethodPrefixPermissions) {
		return func() {}
	}
	i.decisions.Add(1)
	once := sync.OnceFunc(func() { i.decisions.Add(-1) })
	t := time.AfterFunc(d, once)
	return func() {
		t.Stop()
		once()
	}
}

func (i *instance) run(spec transport.LaunchSpec) {
	defer close(i.done)
	defer i.cancel()
	p := i.p
	if !i.launch(spec) {
		return
	}
	p.journal.Write(journal.TagStart, "started, "+i.prog.ID())
	if i.handshake() {
		p.settle(i.manifest, i.launchedAt, journal.TagReady)
	}
	i.waitEnd()
	i.conn.Close()
	i.svc.close()
	_ = i.prog.Stop(stoppedNow(), transport.StopOptions{})
	p.settle(i.manifest, i.launchedAt, journal.TagStop)
	p.mu.Lock()
	p.decide(i, event{kind: evExited})
	p.mu.Unlock()
}

// launch starts the program and opens its wire, or ends the instance with
// the reason it could not start.
func (i *instance) launch(spec transport.LaunchSpec) bool {
	p := i.p
	program, err := p.admitStart(i.manifest)
	if err != nil {
		return i.launchFailed(err.Error())
	}
	spec.Program = program
	i.launchedAt = time.Now()
	prog, err := p.h.transportFor(i.manifest.Run.Kind()).Launch(i.ctx, spec)
	if err != nil {
		return i.launchFailed("could not start: " + err.Error())
	}
	// The services are made on the connection (Bind) before it reads, and
	// outside the plugin's lock: a maker is the app's code.
	i.svc = p.servicesFor(i)
	conn := jsonrpc.NewConn(prog.Stdout(), prog.Stdin(), jsonrpc.Options{
		Handle:       i.svc.handle,
		Bind:         i.svc.bind,
		InOrder:      i.svc.inOrder,
		OnEvent:      p.onWireEvent,
		WriteTimeout: p.h.opts.WriteTimeout,
		Context:      i.ctx,
	})
	p.mu.Lock()
	i.prog = prog
	i.conn = conn
	p.decide(i, event{kind: evLaunched})
	p.mu.Unlock()
	if tell := p.h.opts.Decisions; tell != nil {
		tell(prog, i.holdsDecision)
	}
	close(i.launched)
	return true
}

// launchFailed ends an instance that did not start, the plugin stopped
// with reason; it returns false for launch.
func (i *instance) launchFailed(reason string) bool {
	close(i.launched)
	i.p.mu.Lock()
	i.p.decide(i, event{kind: evLaunchFailed, reason: reason})
	i.p.mu.Unlock()
	return false
}

// stoppedNow is a context already done: a Stop with no graces left.
func stoppedNow() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// waitEnd returns once the program has ended and its stdout has been read
// to its end, so an answer written just before the exit is kept. A program
// whose stdout ends is ending (or can no longer be spoken to): from then on
// what the app sends waits for the next program instead of going to a dead
// pipe, and a program that lingers without stdout is stopped after a grace.
// A stdout still held open by something the program left behind is given
// up after the same grace.
func (i *instance) waitEnd() {
	p := i.p
	grace := p.h.opts.StopGrace
	select {
	case <-i.prog.Done():
		p.mu.Lock()
		p.decide(i, event{kind: evOutputEnded})
		p.mu.Unlock()
		select {
		case <-i.conn.Done():
		case <-time.After(grace):
		}
		return
	case <-i.conn.Done():
	}
	p.mu.Lock()
	p.decide(i, event{kind: evOutputEnded})
	p.mu.Unlock()
	select {
	case <-i.prog.Done():
	case <-time.After(grace):
		ctx, cancel := context.WithTimeout(context.Background(), 2*grace)
		_ = i.prog.Stop(ctx, transport.StopOptions{})
		cancel()
		<-i.prog.Done()
	}
}

// handshake sends initialize and, once it is answered well, re-sends the
// attaches and the queue; it reports whether it was answered well.
func (i *instance) handshake() bool {
	p := i.p
	method := vocab.MethodInitialize
	d := p.h.delay(method)
	ctx, cancel := context.WithTimeout(i.ctx, d)
	defer cancel()
	call := i.conn.Go(ctx, method, p.h.initializeParams(i.manifest))
	go i.watchMemory() // once initialize is on its way: nothing delays the first line
	res, err := call.Wait()
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		i.stopForGood(journal.TagStop, fmt.Sprintf("no answer to initialize within %s", protocol.FormatDuration(d)))
		return false
	case errors.Is(err, jsonrpc.ErrClosed), errors.Is(err, context.Canceled):
		return false // it ended: run sees it exit
	case err != nil:
		i.stopForGood(journal.TagStop, "its answer to initialize is an error: "+err.Error())
		return false
	}
	if reason := protocol.VersionProblem(res); reason != "" {
		i.stopForGood(journal.TagStop, reason)
		return false
	}
	noAttach := declinesAttach(res)
	i.noAttach.Store(noAttach)
	p.mu.Lock()
	greeted := p.decide(i, event{kind: evGreeted})
	sayNoAttach := noAttach && !p.saidNoAttach
	p.saidNoAttach = noAttach
	p.mu.Unlock()
	if !greeted {
		return false
	}
	p.journal.Write(journal.TagReady, "initialize answered: "+string(res))
	if sayNoAttach {
		p.journal.Write(journal.TagReady, noAttachJournal)
	}
	i.replayAttaches()
	i.flush()
	return true
}

// replayAttaches sends again every attach an earlier program had, latest
// params, in first-attach order, before anything queued. An attach of the
// app for those agents still waiting in the queue is answered by this send
// rather than sent twice; the attaches of new agents stay in the queue, in
// the order the app sent them.
func (i *instance) replayAttaches() {
	if i.noAttach.Load() {
		return // what waits in the queue is answered declined by flush
	}
	p := i.p
	p.mu.Lock()
	var attaches []attachment
	agents := map[string]bool{}
	for _, a := range p.attaches {
		if a.delivered {
			attaches = append(attaches, a)
			agents[a.agent] = true
		}
	}
	waiting := p.queue.takeAttaches(agents)
	p.mu.Unlock()
	for _, a := range attaches {
		r := newRequest(kindCall, vocab.MethodAgentAttach, a.params)
		i.send(r)
		answer := sync.OnceValue(r.wait)
		for _, q := range waiting[a.agent] {
			q.written(answer)
		}
		if len(waiting[a.agent]) == 0 {
			go answer() // nobody waits; a timeout is still journaled
		}
	}
}

// flush sends the queue in order. The plugin is ready as the last queued
// request is taken: writes hold i.writing, taken before the plugin's lock
// is released, so whatever is submitted from then on is written after it
// and nothing can overtake what waited.
func (i *instance) flush() {
	p := i.p
	for {
		p.mu.Lock()
		if p.inst != i || i.phase != serving {
			p.mu.Unlock()
			return
		}
		r, ok := p.queue.pop()
		if !ok {
			p.decide(i, event{kind: evFlushed})
			p.mu.Unlock()
			return
		}
		p.markDelivered(r)
		last := len(p.queue.items) == 0
		if last {
			p.decide(i, event{kind: evFlushed})
		}
		i.writing.Lock()
		p.mu.Unlock()
		i.write(r)
		i.writing.Unlock()
		if last {
			return
		}
	}
}

// send writes r to the program now and finishes it when the answers come.
// The write happens before send returns, so order is kept.
func (i *instance) send(r *request) {
	i.writing.Lock()
	defer i.writing.Unlock()
	i.write(r)
}

// write is send with i.writing held.
func (i *instance) write(r *request) {
	if r.method == vocab.MethodAgentAttach && i.noAttach.Load() {
		r.finish(defaultOutcome(Declined, noAttachReason))
		return
	}
	switch r.kind {
	case kindNotify:
		i.conn.Notify(r.method, r.params)
		r.finish(Outcome{})
	case kindCall:
		d := i.p.h.delay(r.method)
		release := i.holdDecision(r.method, d)
		call := i.conn.GoTimeout(context.Background(), r.method, r.params, d)
		r.written(func() []Outcome {
			res, err := call.Wait()
			release()
			return []Outcome{i.outcome(r.method, d, res, err)}
		})
	case kindBatch:
		i.sendBatch(r)
	}
}

// sendBatch writes a batch; each of its calls keeps the delay of its own
// method.
func (i *instance) sendBatch(r *request) {
	calls := make([]jsonrpc.BatchCall, len(r.batch))
	delays := map[string]time.Duration{} // looked up once per method
	for k, c := range r.batch {
		d, ok := delays[c.Method]
		if !ok {
			d = i.p.h.delay(c.Method)
			delays[c.Method] = d
		}
		c.Timeout = d
		calls[k] = c
	}
	releases := make([]func(), 0, len(calls))
	for _, c := range calls {
		if !c.Notify {
			releases = append(releases, i.holdDecision(c.Method, c.Timeout))
		}
	}
	call := i.conn.GoBatch(context.Background(), calls)
	r.written(func() []Outcome {
		results := call.Wait()
		for _, release := range releases {
			release()
		}
		outs := make([]Outcome, len(results))
		for k, res := range results {
			if !calls[k].Notify {
				outs[k] = i.outcome(calls[k].Method, calls[k].Timeout, res.Result, res.Err)
			}
		}
		return outs
	})
}

// outcome turns a wire answer into an Outcome, journaling what is missing.
func (i *instance) outcome(method string, d time.Duration, res json.RawMessage, err error) Outcome {
	switch {
	case err == nil:
		return Outcome{Result: res}
	case errors.Is(err, context.DeadlineExceeded):
		text := fmt.Sprintf("%s: no answer within %s", method, protocol.FormatDuration(d))
		i.p.journal.Write(journal.TagTimeout, text)
		return defaultOutcome(TimedOut, text)
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return Outcome{Error: rpcErr}
	}
	i.p.mu.Lock()
	stopping := i.phase == stopping
	i.p.mu.Unlock()
	if stopping {
		return defaultOutcome(Stopped, method+": the plugin was stopped")
	}
	return defaultOutcome(Crashed, method+": "+i.crashReason())
}

// crashReason says why the calls of a program that ended got no answer:
// the mechanism that ended a module's instance (its turn limit, its memory)
// when that is what did, for every call of that turn alike. The program's
// exit is known once it is done; its stdout may end a moment before, so
// this waits for it at most one stop grace.
func (i *instance) crashReason() string {
	timer := time.NewTimer(i.p.h.opts.StopGrace)
	defer timer.Stop()
	select {
	case <-i.prog.Done():
	case <-timer.C:
		return "the plugin crashed"
	}
	exit := i.prog.Exit()
	switch exit.Kind {
	case transport.TurnTooLong:
		return fmt.Sprintf("the plugin crashed: its turn ran past its limit of %s, and Escouade stopped its instance", protocol.FormatDuration(exit.Limit))
	case transport.OutOfMemory:
		return fmt.Sprintf("the plugin crashed: its instance ran out of its %d MB of memory", exit.Memory>>20)
	}
	return "the plugin crashed"
}

// watchMemory reads the program's memory every period and stops it, without
// restart, past the limit. Only programs that can tell their memory are
// watched: a module's 64 MB is its transport's to enforce.
func (i *instance) watchMemory() {
	mem, ok := i.prog.(transport.MemoryReader)
	if !ok {
		return
	}
	o := i.p.h.opts
	t := time.NewTicker(o.MemoryPeriod)
	defer t.Stop()
	for {
		select {
		case <-i.prog.Done():
			return
		case <-t.C:
		}
		used, err := mem.Memory()
		if err != nil || used <= o.MemoryLimit {
			continue
		}
		i.stopForGood(journal.TagMemory, fmt.Sprintf("stopped: %d MB of memory, past the limit of %d MB", used/MB, o.MemoryLimit/MB))
		return
	}
}

// stopForGood stops the instance with a reason and no restart.
func (i *instance) stopForGood(tag, reason string) {
	p := i.p
	p.mu.Lock()
	stop := p.decide(i, event{kind: evStopForGood, tag: tag, reason: reason})
	p.mu.Unlock()
	if stop {
		_ = i.prog.Stop(i.ctx, transport.StopOptions{})
	}
}

// What a program that declines agent/attach is told and the journal says.
const (
	noAttachJournal = "agent/attach is not sent to it: its initialize answer says capabilities.attach false"
	noAttachReason  = "agent/attach: not sent, the plugin does not take attaches (its initialize answer says capabilities.attach false)"
)

// declinesAttach reports whether an initialize answer says, with an
// explicit false, that the plugin does not take agent/attach. Said of
// nothing, it is sent, as before plugins could say it.
func declinesAttach(res json.RawMessage) bool {
	var answer struct {
		Capabilities struct {
			Attach *bool `json:"attach"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(res, &answer) != nil {
		return false
	}
	a := answer.Capabilities.Attach
	return a != nil && !*a
}
