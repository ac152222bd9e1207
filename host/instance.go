package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
)

// instance is one life of a plugin's program, from launch to exit. Its
// goroutine (run) owns the program; done is closed when it has ended.
type instance struct {
	p        *Plugin
	manifest *manifest.Manifest // the manifest it was started with
	prog     Program
	conn     *jsonrpc.Conn
	done     chan struct{}
	// launched is closed once prog and conn are set, or launching failed.
	launched chan struct{}
	// initialized is set (under p.mu) once initialize was answered well:
	// before it, nothing else may be sent, shutdown included.
	initialized bool

	// stopping is set (under p.mu) when the host asked it to end, so its
	// exit is not a crash and calls under way end as "stopped".
	stopping bool
}

// startLocked launches a new instance. Called with p.mu held.
func (p *Plugin) startLocked(s State) {
	inst := &instance{p: p, manifest: p.m, done: make(chan struct{}), launched: make(chan struct{})}
	p.inst = inst
	p.setState(s, "")
	go inst.run(p.launchSpecLocked())
}

func (i *instance) run(spec LaunchSpec) {
	defer close(i.done)
	p := i.p
	prog, err := p.h.opts.Launch(context.Background(), spec)
	if err != nil {
		close(i.launched)
		p.giveUp(i, "could not start: "+err.Error())
		return
	}
	handle := p.handler(spec)
	p.mu.Lock()
	i.prog = prog
	i.conn = jsonrpc.NewConn(prog.Stdout(), prog.Stdin(), jsonrpc.Options{
		Handle:       handle,
		OnEvent:      p.onWireEvent,
		WriteTimeout: p.h.opts.WriteTimeout,
	})
	p.mu.Unlock()
	close(i.launched)
	p.journal.Write(journal.TagStart, "started, "+prog.Describe())
	go i.watchMemory()
	i.handshake()
	i.waitEnd()
	i.conn.Close()
	prog.KillGroup()
	p.ended(i)
}

// waitEnd returns once the program has ended. A program whose stdout ends
// is ending (or can no longer be spoken to): from then on what the app sends
// waits for the next program instead of going to a dead pipe, and a program
// that lingers without stdout is stopped after a grace.
func (i *instance) waitEnd() {
	p := i.p
	select {
	case <-i.prog.Done():
		return
	case <-i.conn.Done():
	}
	p.mu.Lock()
	if p.inst == i && !i.stopping && p.state == StateReady {
		p.setState(StateRestarting, "")
	}
	p.mu.Unlock()
	select {
	case <-i.prog.Done():
	case <-time.After(p.h.opts.StopGrace):
		i.prog.Stop(context.Background(), p.h.opts.StopGrace)
		<-i.prog.Done()
	}
}

// handshake sends initialize and, once it is answered well, re-sends the
// attaches and the queue.
func (i *instance) handshake() {
	p := i.p
	method := "initialize"
	d := p.h.delay(method)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	res, err := i.conn.Call(ctx, method, p.h.initializeParams(i.manifest))
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		i.stopFor(journal.TagStop, fmt.Sprintf("no answer to initialize within %s", protocol.FormatDuration(d)))
		return
	case errors.Is(err, jsonrpc.ErrClosed):
		return // it ended: run sees it exit
	case err != nil:
		i.stopFor(journal.TagStop, "its answer to initialize is an error: "+err.Error())
		return
	}
	if reason := checkVersion(res); reason != "" {
		i.stopFor(journal.TagStop, reason)
		return
	}
	p.mu.Lock()
	i.initialized = true
	p.mu.Unlock()
	p.journal.Write(journal.TagReady, "initialize answered: "+string(res))
	i.replayAttaches()
	i.flush()
}

// checkVersion returns why an initialize answer is refused, or "".
func checkVersion(res json.RawMessage) string {
	var ans struct {
		ProtocolVersion json.RawMessage `json:"protocolVersion"`
	}
	if json.Unmarshal(res, &ans) != nil || len(ans.ProtocolVersion) == 0 || string(ans.ProtocolVersion) == "null" {
		return "its answer to initialize has no protocol version"
	}
	var version int64
	if json.Unmarshal(ans.ProtocolVersion, &version) != nil {
		return fmt.Sprintf("its answer to initialize has no protocol version (protocolVersion is %s, not a number)", ans.ProtocolVersion)
	}
	if version != protocol.Version {
		return fmt.Sprintf("it speaks version %d of the protocol; this Escouade speaks version %d", version, protocol.Version)
	}
	return ""
}

// replayAttaches sends again every attach an earlier program had, latest
// params, in first-attach order, before anything queued. An attach of the
// app for those agents still waiting in the queue is answered by this send
// rather than sent twice; the attaches of new agents stay in the queue, in
// the order the app sent them.
func (i *instance) replayAttaches() {
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
		r := newRequest(kindCall, "agent/attach", a.params)
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

// flush sends the queue in order; the plugin is ready once it is empty, so
// nothing sent meanwhile can overtake what waited.
func (i *instance) flush() {
	p := i.p
	for {
		p.mu.Lock()
		if p.inst != i || i.stopping {
			p.mu.Unlock()
			return
		}
		r, ok := p.queue.pop()
		if !ok {
			p.setState(StateReady, "")
			p.mu.Unlock()
			return
		}
		p.markDelivered(r)
		p.mu.Unlock()
		i.send(r)
	}
}

// send writes r to the program now and finishes it when the answers come.
// The write happens before send returns, so order is kept.
func (i *instance) send(r *request) {
	switch r.kind {
	case kindNotify:
		i.conn.Notify(r.method, r.params)
		r.finish(Outcome{})
	case kindCall:
		d := i.p.h.delay(r.method)
		ctx, cancel := context.WithTimeout(context.Background(), d)
		call := i.conn.Go(ctx, r.method, r.params)
		r.written(func() []Outcome {
			defer cancel()
			res, err := call.Wait()
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
	for k, c := range r.batch {
		c.Timeout = i.p.h.delay(c.Method)
		calls[k] = c
	}
	call := i.conn.GoBatch(context.Background(), calls)
	r.written(func() []Outcome {
		results := call.Wait()
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
	stopping := i.stopping
	i.p.mu.Unlock()
	if stopping {
		return defaultOutcome(Stopped, method+": the plugin was stopped")
	}
	return defaultOutcome(Crashed, method+": the plugin crashed")
}

// watchMemory reads the program's memory every period and stops it, without
// restart, past the limit.
func (i *instance) watchMemory() {
	o := i.p.h.opts
	t := time.NewTicker(o.MemoryPeriod)
	defer t.Stop()
	for {
		select {
		case <-i.prog.Done():
			return
		case <-t.C:
		}
		used, err := i.prog.Memory()
		if err != nil || used <= o.MemoryLimit {
			continue
		}
		i.stopFor(journal.TagMemory, fmt.Sprintf("stopped: %d MB of memory, past the limit of %d MB", used/MB, o.MemoryLimit/MB))
		return
	}
}

// stopFor stops the instance for good with a reason: no restart.
func (i *instance) stopFor(tag, reason string) {
	p := i.p
	p.mu.Lock()
	if p.inst != i || i.stopping {
		p.mu.Unlock()
		return
	}
	i.stopping = true
	p.setState(StateStopped, reason)
	p.failQueueLocked(defaultOutcome(Stopped, reason))
	p.mu.Unlock()
	p.journal.Write(tag, reason)
	i.prog.Stop(context.Background(), p.h.opts.StopGrace)
}

// giveUp ends an instance that could not even launch: not a crash, since
// nothing ran, and no restart would help.
func (p *Plugin) giveUp(i *instance, reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inst != i {
		return
	}
	p.inst = nil
	p.journal.Write(journal.TagStop, reason)
	p.setState(StateStopped, reason)
	p.failQueueLocked(defaultOutcome(Stopped, reason))
}

// ended is called once the program of i has exited: a crash unless the host
// asked it to stop.
func (p *Plugin) ended(i *instance) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inst != i {
		return
	}
	p.inst = nil
	if i.stopping {
		return
	}
	p.journal.Write(journal.TagCrash, crashText(i.prog))
	if !p.running() {
		return // halted meanwhile: the crash is recorded, no restart
	}
	o := p.h.opts
	if n := p.crashes.add(time.Now(), o.RestartWindow); n > o.MaxRestarts {
		reason := fmt.Sprintf("stopped after %d crashes within %s", n, spell(o.RestartWindow))
		p.journal.Write(journal.TagStop, reason)
		p.setState(StateStopped, reason)
		p.failQueueLocked(defaultOutcome(Stopped, reason))
		return
	}
	p.startLocked(StateRestarting)
}

// dying reports whether the program's stdout has ended while nobody asked
// it to stop: it is crashing. Called with p.mu held.
func (i *instance) dying() bool {
	return i.conn != nil && i.conn.Ended()
}

// running reports whether the plugin is meant to be running (not halted by
// the user or the host). Called with p.mu held.
func (p *Plugin) running() bool {
	return p.state == StateStarting || p.state == StateReady || p.state == StateRestarting
}

func crashText(prog Program) string {
	var b strings.Builder
	b.WriteString("crashed: " + prog.ExitText())
	if lines := prog.LastStderr(); len(lines) == 1 {
		b.WriteString("; last line of stderr:")
	} else if len(lines) > 1 {
		fmt.Fprintf(&b, "; last %d lines of stderr:", len(lines))
	}
	if lines := prog.LastStderr(); len(lines) > 0 {
		for _, l := range lines {
			b.WriteString("\n| " + l)
		}
	}
	return b.String()
}
