package host

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// Plugin supervises one plugin: it starts its program on activation, holds
// the queue while it starts, restarts it after a crash, and stops it for
// good past the limits. All of its state is guarded by mu.
type Plugin struct {
	h        *Host
	id       string // never changes: an update keeps the id
	journal  *journal.Journal
	admit    func(*manifest.Manifest) error  // Config.Admit, asked before every start
	admitted func(*manifest.Manifest, error) // Config.Admitted

	mu       sync.Mutex
	m        *manifest.Manifest
	granted  manifest.Permissions
	settings map[string]json.RawMessage
	state    State
	reason   string
	inst     *instance // the program now, nil when none runs
	queue    queue
	attaches []attachment // latest params per agent, in first-attach order
	crashes  crashLog
	// saidNoAttach is set while the last program declined agent/attach
	// and the journal said so: a restart that declines again says nothing.
	saidNoAttach bool
}

type attachment struct {
	agent  string
	params json.RawMessage
	// delivered is set once an attach of the agent went to a program: only
	// those are sent again to the next one. Guarded by p.mu.
	delivered bool
}

// ID is the plugin id.
func (p *Plugin) ID() string { return p.id }

// Manifest is the manifest the plugin runs with now.
func (p *Plugin) Manifest() *manifest.Manifest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m
}

// Journal is the plugin's journal.
func (p *Plugin) Journal() *journal.Journal { return p.journal }

// setState changes the state and tells the app. Called with mu held, by
// decide's edges only (take).
func (p *Plugin) setState(s State, reason string) {
	p.state, p.reason = s, reason
	if p.h.opts.OnState != nil {
		p.h.opts.OnState(p.id, p.statusLocked())
	}
}

// Call sends a call to the plugin and waits for its outcome: the plugin's
// result or error, or the default answer with its reason.
func (p *Plugin) Call(ctx context.Context, method string, params any) Outcome {
	return p.Go(method, params).Wait(ctx)
}

// Pending is a call the plugin took (answered by default, queued or sent,
// in the order Go was called), whose outcome Wait gives.
type Pending struct{ r *request }

// Go submits a call now and leaves the waiting to Wait, so a caller can keep
// the order of what it sends without waiting for each answer in turn.
func (p *Plugin) Go(method string, params any) *Pending {
	r := newRequest(kindCall, method, params)
	p.submit(r)
	return &Pending{r}
}

// Wait returns the call's outcome, or the default answer when ctx ends
// before the call could be sent; once sent, the delay of its method bounds
// the wait, not ctx.
func (c *Pending) Wait(ctx context.Context) Outcome {
	return c.r.result(ctx)[0]
}

// Notify sends a notification; it waits in the queue while the program
// starts.
func (p *Plugin) Notify(method string, params any) {
	p.submit(newRequest(kindNotify, method, params))
}

// Batch sends the calls as one JSON-RPC batch and returns one outcome per
// call, in order (a notification's stays zero).
func (p *Plugin) Batch(ctx context.Context, calls []jsonrpc.BatchCall) []Outcome {
	return p.GoBatch(calls).Wait(ctx)
}

// PendingBatch is a batch the plugin took, whose outcomes Wait gives.
type PendingBatch struct{ r *request }

// GoBatch submits a batch now; Wait gives its outcomes.
func (p *Plugin) GoBatch(calls []jsonrpc.BatchCall) *PendingBatch {
	r := newRequest(kindBatch, "", nil)
	r.batch = calls
	p.submit(r)
	return &PendingBatch{r}
}

// Wait returns one outcome per call, in order (a notification's stays
// zero), or default answers when ctx ends first.
func (b *PendingBatch) Wait(ctx context.Context) []Outcome {
	return b.r.result(ctx)
}

// Fact tells the plugin a fact happened. It starts the program when its
// activation names the fact, and delivers event/<name>. It reports whether
// the plugin listens to it.
func (p *Plugin) Fact(name string, params any) bool {
	p.mu.Lock()
	listens := p.m.Activates(name)
	p.mu.Unlock()
	if listens {
		p.submit(newRequest(kindNotify, vocab.MethodPrefixEvent+name, params))
	}
	return listens
}

// Attach sends agent/attach with params plus "agent"; it is kept (latest per
// agent) and sent again, in order, to every new program before anything
// else.
func (p *Plugin) Attach(ctx context.Context, agent string, params json.RawMessage) (Outcome, error) {
	pending, err := p.GoAttach(agent, params)
	if err != nil {
		return Outcome{}, err
	}
	return pending.Wait(ctx), nil
}

// GoAttach is Attach that submits now and leaves the waiting to Wait. The
// attach is remembered and submitted under one lock, so a restart never
// sees one without the other.
func (p *Plugin) GoAttach(agent string, params json.RawMessage) (*Pending, error) {
	full, err := withAgent(params, agent)
	if err != nil {
		return nil, err
	}
	r := newRequest(kindCall, vocab.MethodAgentAttach, full)
	r.agent = agent
	p.mu.Lock()
	p.remember(agent, full)
	inst := p.submitLocked(r)
	p.mu.Unlock()
	if inst != nil {
		inst.send(r)
	}
	return &Pending{r}, nil
}

// markDelivered notes that r, when an attach, goes to a program now.
// Called with p.mu held.
func (p *Plugin) markDelivered(r *request) {
	for i := range p.attaches {
		if r.agent != "" && p.attaches[i].agent == r.agent {
			p.attaches[i].delivered = true
		}
	}
}

// attached gives the latest attach params of an agent.
func (p *Plugin) attached(agent string) (json.RawMessage, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range p.attaches {
		if a.agent == agent {
			return a.params, true
		}
	}
	return nil, false
}

func (p *Plugin) remember(agent string, params json.RawMessage) {
	for i := range p.attaches {
		if p.attaches[i].agent == agent {
			p.attaches[i].params = params
			return
		}
	}
	p.attaches = append(p.attaches, attachment{agent: agent, params: params})
}

// withAgent adds "agent" to an object of params (null or absent = {}).
func withAgent(params json.RawMessage, agent string) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if len(params) > 0 && string(params) != "null" {
		if err := json.Unmarshal(params, &obj); err != nil {
			return nil, fmt.Errorf("attach params must be a JSON object: %v", err)
		}
	}
	obj["agent"], _ = json.Marshal(agent)
	return json.Marshal(obj)
}

// submit routes a request by state: answered by default at once, queued
// while the program starts, or sent now.
func (p *Plugin) submit(r *request) {
	p.mu.Lock()
	inst := p.submitLocked(r)
	p.mu.Unlock()
	if inst != nil {
		inst.send(r)
	}
}

// submitLocked answers r by default, queues it, or returns the instance to
// send it to once the lock is released (a write may block). Called with
// p.mu held.
func (p *Plugin) submitLocked(r *request) *instance {
	if o, refuse := p.refusalLocked(r); refuse {
		r.finish(o)
		return nil
	}
	switch p.state {
	case StateIdle:
		p.decide(nil, event{kind: evCall})
		p.enqueueLocked(r)
	case StateStarting, StateRestarting:
		p.enqueueLocked(r)
	case StateReady:
		if !p.inst.conn.Ended() {
			p.markDelivered(r)
			return p.inst
		}
		// The program is ending: what comes now waits for the next one.
		p.decide(nil, event{kind: evWireEnded})
		p.enqueueLocked(r)
	}
	return nil
}

// refusalLocked is the default answer for a plugin that cannot take r.
func (p *Plugin) refusalLocked(r *request) (Outcome, bool) {
	switch {
	case p.state == StateDisabled:
		return defaultOutcome(Stopped, "disabled"), true
	case p.state == StateStopped:
		return defaultOutcome(Stopped, p.reason), true
	case p.m.Run.Kind() == manifest.RunNone:
		return defaultOutcome(NotStarted, "not started: it has no program"), true
	case len(p.m.Activation) == 0:
		p.journal.Write(journal.TagStop, "not started: it has no activation")
		return defaultOutcome(NotStarted, "not started: it has no activation"), true
	}
	return Outcome{}, false
}

func (p *Plugin) enqueueLocked(r *request) {
	if old := p.queue.push(r); old != nil {
		p.journal.Write(journal.TagDropped, "queue full: dropped "+old.label())
		old.finish(defaultOutcome(Dropped, "queue full: dropped "+old.label()))
	}
}

// failQueueLocked ends everything queued with the default answer.
func (p *Plugin) failQueueLocked(o Outcome) {
	for _, r := range p.queue.drain() {
		r.finish(o)
	}
}
