package host

import (
	"fmt"
	"time"

	"github.com/escouade-dev/escouade-plugin/journal"
)

// The life of a plugin is decided in one place, decide, with the plugin's
// lock held: every event of an instance goes through it, and it alone
// changes the plugin's state. The package doc draws the machine.

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

// eventKind is what happened to an instance.
type eventKind int

const (
	evLaunched     eventKind = iota // the program runs and its wire is open
	evLaunchFailed                  // it could not start: stopped, no restart would help
	evGreeted                       // initialize was answered well
	evFlushed                       // the queue is sent: the plugin is ready
	evOutputEnded                   // its stdout ended without the host asking
	evStopForGood                   // a reason to stop it without restart (handshake, memory)
	evExited                        // it has ended: a crash unless it was stopping
)

// event is one thing that happened to an instance, with its journal line.
type event struct {
	kind   eventKind
	tag    string // journal tag of reason, for evStopForGood
	reason string
}

// decide applies ev of instance i to the plugin and reports whether i was
// still the plugin's current instance (an old instance's events change
// nothing). Called with p.mu held; it never blocks.
func (p *Plugin) decide(i *instance, ev event) bool {
	if p.inst != i {
		return false
	}
	switch ev.kind {
	case evLaunched:
		// A stop asked while it launched (a Restart, a change) stands: its
		// end is then no crash.
		if i.phase == launching {
			i.phase = greeting
		}
	case evLaunchFailed:
		p.inst = nil
		i.phase = gone
		p.journal.Write(journal.TagStop, ev.reason)
		p.stopLocked(StateStopped, ev.reason)
	case evGreeted:
		if i.phase != greeting {
			return false
		}
		i.phase, i.greeted = serving, true
	case evFlushed:
		if i.phase != serving {
			return false
		}
		p.setState(StateReady, "")
	case evOutputEnded:
		if i.phase == stopping || i.phase == gone {
			return true
		}
		i.phase = ending
		if p.state == StateReady {
			p.setState(StateRestarting, "")
		}
	case evStopForGood:
		if i.phase == stopping || i.phase == gone {
			return false
		}
		i.phase = stopping
		p.journal.Write(ev.tag, ev.reason)
		p.stopLocked(StateStopped, ev.reason)
	case evExited:
		p.exitedLocked(i)
	}
	return true
}

// exitedLocked ends instance i: a crash, restarted within the limits,
// unless the host asked it to stop.
func (p *Plugin) exitedLocked(i *instance) {
	p.inst = nil
	asked := i.phase == stopping
	i.phase = gone
	if asked {
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
		p.stopLocked(StateStopped, reason)
		return
	}
	p.startLocked(StateRestarting)
}

// stopLocked puts the plugin in state s (stopped or disabled) and ends
// what waited in the queue with the default answer. Called with p.mu held.
func (p *Plugin) stopLocked(s State, reason string) {
	p.setState(s, reason)
	p.failQueueLocked(defaultOutcome(Stopped, reason))
}

// askStopLocked marks the current instance as stopping at the host's
// request and moves the plugin to state s; it returns the instance to shut
// down, or nil. A program already dying keeps its crash entry. Called with
// p.mu held.
func (p *Plugin) askStopLocked(s State, reason string) *instance {
	i := p.inst
	if i != nil && !i.dyingLocked() && i.phase != gone {
		i.phase = stopping
	}
	if p.state != StateDisabled || s == StateDisabled {
		p.setState(s, reason)
	}
	p.failQueueLocked(defaultOutcome(Stopped, reason))
	return i
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
