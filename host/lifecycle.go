package host

import (
	"context"
	"fmt"
	"time"

	"github.com/escouade-dev/escouade-plugin/journal"
)

// The life of a plugin is decided in one place, decide, with the plugin's
// lock held: every event (an instance's, a user change, a first call, the
// host's close) goes through it, and it alone changes the plugin's state,
// by the table machine below. The package doc draws the same machine.

// phase is where one instance of a program stands.
type phase int

const (
	launching phase = iota // the transport is starting it
	greeting               // it runs; initialize is sent, nothing else may be
	serving                // initialize answered well: calls go to it
	ending                 // its stdout ended by itself: it is crashing
	stopping               // the host asked it to stop: its end is no crash
	gone                   // it has ended
)

// eventKind is what happened to a plugin or to its instance.
type eventKind int

const (
	// Events of an instance, ignored once it is not the current one.
	evLaunched     eventKind = iota // the program runs and its wire is open
	evLaunchFailed                  // it could not start: stopped, no restart would help
	evGreeted                       // initialize was answered well
	evFlushed                       // the queue is sent: the plugin is ready
	evOutputEnded                   // its stdout ended without the host asking
	evStopForGood                   // a reason to stop it without restart (handshake, memory)
	evExited                        // it has ended: a crash unless it was stopping
	evCrashed                       // (from evExited) it crashed, within the crash window
	evCrashLimit                    // (from evExited) it crashed once too often in the window
	evNoted                         // (from another) noted on the instance, nothing for the plugin

	// Events of the plugin.
	evCall      // a request came while idle: its first start
	evWireEnded // a request came while ready, its program's wire ended: it is crashing
	evStart     // a restart or a change starts it again, if idle with no program
	evDisable   // the user switched it off
	evEnable    // the user switched it back on
	evRestart   // the user asked for a restart: its program stops first
	evChange    // permissions or version changed: its program stops first
	evReviewed  // the user said yes to a new version: a stopped plugin may start again
	evClose     // the host closes

	eventKinds // how many there are
)

var eventNames = [eventKinds]string{
	"launched", "launch failed", "greeted", "flushed", "output ended", "stop for good", "exited",
	"crashed", "crash limit", "noted", "call", "wire ended", "start", "disable", "enable", "restart",
	"change", "reviewed", "close",
}

func (k eventKind) String() string { return eventNames[k] }

// ofInstance reports whether the event is an instance's.
func (k eventKind) ofInstance() bool { return k <= evNoted }

// event is one thing that happened, with its journal line.
type event struct {
	kind   eventKind
	tag    string // journal tag of reason, for a stop for good
	reason string // the state's reason, when it leads to one
}

// action is what a transition does besides changing the state.
type action int

const (
	actNone        action = iota
	actStart              // launch a new instance of the program
	actHalt               // ask the current instance to stop; end the queue with the default answer
	actStopForGood        // journal the reason; end the queue with the default answer
	actForget             // forget the crash history
)

func (a action) String() string {
	return [...]string{"none", "start", "halt", "stop for good", "forget crashes"}[a]
}

// keep is an edge's "to" that leaves the state as it is.
const keep State = ""

// anyState is a row's "from" that stands for every state a row of its
// own does not name.
const anyState State = "*"

// edge is where an event leads from a state, and what it does.
type edge struct {
	to State
	do action
}

// row is one line of the machine.
type row struct {
	from State
	on   eventKind
	edge
}

// machine is the plugin's state machine, row by row as the package doc
// draws it. A pair of a state and an event no row names changes nothing.
// The rows of anyState are kept as the host has always behaved: a launch
// that fails or a stop for good stops the plugin whatever it was, and a
// flushed queue makes it ready.
var machine = table([]row{
	{StateIdle, evCall, edge{StateStarting, actStart}},
	{StateIdle, evStart, edge{StateStarting, actStart}},
	{anyState, evFlushed, edge{StateReady, actNone}},
	{anyState, evLaunchFailed, edge{StateStopped, actStopForGood}},
	{anyState, evStopForGood, edge{StateStopped, actStopForGood}},
	{StateReady, evOutputEnded, edge{StateRestarting, actNone}},
	{StateReady, evWireEnded, edge{StateRestarting, actNone}},
	{StateStarting, evCrashed, edge{StateRestarting, actStart}},
	{StateReady, evCrashed, edge{StateRestarting, actStart}},
	{StateRestarting, evCrashed, edge{StateRestarting, actStart}},
	{StateStarting, evCrashLimit, edge{StateStopped, actStopForGood}},
	{StateReady, evCrashLimit, edge{StateStopped, actStopForGood}},
	{StateRestarting, evCrashLimit, edge{StateStopped, actStopForGood}},
	{anyState, evDisable, edge{StateDisabled, actHalt}},
	{StateDisabled, evEnable, edge{StateIdle, actNone}},
	{anyState, evRestart, edge{StateIdle, actHalt}},
	{StateDisabled, evRestart, edge{keep, actHalt}},
	{anyState, evChange, edge{StateIdle, actHalt}},
	{StateDisabled, evChange, edge{keep, actHalt}},
	{anyState, evClose, edge{StateStopped, actHalt}},
	{StateDisabled, evClose, edge{keep, actHalt}},
	{StateStopped, evReviewed, edge{StateIdle, actForget}},
})

// states are every state, in the order of the package doc.
var states = []State{StateIdle, StateStarting, StateReady, StateRestarting, StateStopped, StateDisabled}

// table spreads the rows into a lookup by state and event; a row of its
// own for a state wins over the anyState row of the same event.
func table(rows []row) map[State]map[eventKind]edge {
	t := make(map[State]map[eventKind]edge, len(states))
	for _, s := range states {
		t[s] = map[eventKind]edge{}
	}
	for _, r := range rows {
		if r.from != anyState {
			t[r.from][r.on] = r.edge
		}
	}
	for _, r := range rows {
		for _, s := range states {
			if _, own := t[s][r.on]; r.from == anyState && !own {
				t[s][r.on] = r.edge
			}
		}
	}
	return t
}

// decide applies ev to the plugin: an instance's event first moves that
// instance's phase (and is ignored when i is no longer the plugin's
// current instance, or its phase says it no longer applies), then the
// machine's edge is taken. It reports whether the event stood. Called with
// p.mu held; it never blocks.
func (p *Plugin) decide(i *instance, ev event) bool {
	if ev.kind.ofInstance() {
		var stands bool
		if ev, stands = p.instanceEvent(i, ev); !stands {
			return false
		}
	} else if ev.kind == evStart && p.inst != nil {
		return false // a program runs already
	}
	p.take(machine[p.state][ev.kind], ev)
	return true
}

// take does what an edge says: its action, then the state, then for a
// stop the queue ended with the default answer. Called with p.mu held.
func (p *Plugin) take(e edge, ev event) {
	var started *instance
	switch e.do {
	case actStart:
		started = p.newInstanceLocked()
	case actHalt:
		p.markStoppingLocked()
	case actStopForGood:
		p.journal.Write(ev.tag, ev.reason)
	case actForget:
		p.crashes.forget()
	}
	if e.to != keep {
		p.setState(e.to, ev.reason)
	}
	if e.do == actHalt || e.do == actStopForGood {
		p.failQueueLocked(defaultOutcome(Stopped, ev.reason))
	}
	if started != nil {
		go started.run(p.launchSpecLocked())
	}
}

// instanceEvent moves instance i's phase by ev, and says which event the
// machine then takes (an exit becomes a crash, or the crash past the
// limit; what needs nothing more of the plugin, evNoted) and whether it
// stands at all. Called with p.mu held.
func (p *Plugin) instanceEvent(i *instance, ev event) (event, bool) {
	if p.inst != i {
		return ev, false
	}
	switch ev.kind {
	case evLaunched:
		// A stop asked while it launched (a Restart, a change) stands: its
		// end is then no crash.
		if i.phase == launching {
			i.phase = greeting
		}
	case evLaunchFailed:
		p.inst, i.phase = nil, gone
		ev.tag = journal.TagStop
	case evGreeted:
		if i.phase != greeting {
			return ev, false
		}
		i.phase, i.greeted = serving, true
	case evFlushed:
		return ev, i.phase == serving
	case evOutputEnded:
		if i.phase == stopping || i.phase == gone {
			return event{kind: evNoted}, true // its end is known already
		}
		i.phase = ending
	case evStopForGood:
		if i.phase == stopping || i.phase == gone {
			return ev, false
		}
		i.phase = stopping
	case evExited:
		return p.exitedLocked(i), true
	}
	return ev, true
}

// exitedLocked ends instance i: no more than that when the host asked it
// to stop; else a crash, journaled, that restarts it within the limits
// unless the plugin was halted meanwhile.
func (p *Plugin) exitedLocked(i *instance) event {
	p.inst = nil
	asked := i.phase == stopping
	i.phase = gone
	if asked {
		return event{kind: evNoted}
	}
	p.journal.Write(journal.TagCrash, crashText(i.prog))
	if !p.running() {
		return event{kind: evNoted} // halted meanwhile: the crash is recorded, no restart
	}
	o := p.h.opts
	if n := p.crashes.add(time.Now(), o.RestartWindow); n > o.MaxRestarts {
		reason := fmt.Sprintf("stopped after %d crashes within %s", n, spell(o.RestartWindow))
		return event{kind: evCrashLimit, tag: journal.TagStop, reason: reason}
	}
	return event{kind: evCrashed}
}

// markStoppingLocked marks the current instance as stopping at the host's
// request: its end is then no crash. A program already dying keeps its
// crash entry. Called with p.mu held.
func (p *Plugin) markStoppingLocked() {
	if i := p.inst; i != nil && !i.dyingLocked() && i.phase != gone {
		i.phase = stopping
	}
}

// newInstanceLocked makes the plugin's new current instance, launched by
// take once the state says so. Called with p.mu held.
func (p *Plugin) newInstanceLocked() *instance {
	ctx, cancel := context.WithCancel(context.Background())
	inst := &instance{p: p, manifest: p.m, ctx: ctx, cancel: cancel, done: make(chan struct{}), launched: make(chan struct{})}
	p.inst = inst
	return inst
}

// dyingLocked reports whether the program is ending by itself: its stdout
// ended (the wire notices that before any call under way fails) while
// nobody asked it to stop. Called with p.mu held.
func (i *instance) dyingLocked() bool {
	return i.phase == ending || (i.phase != stopping && i.conn != nil && i.conn.Ended())
}

// running reports whether the plugin is meant to be running (not halted by
// the user or the host). Called with p.mu held.
func (p *Plugin) running() bool {
	return p.state == StateStarting || p.state == StateReady || p.state == StateRestarting
}
