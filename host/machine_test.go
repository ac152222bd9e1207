package host

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// drawing is the machine as the package doc draws it, written here a
// second time, by hand: every pair of a state and an event that changes
// something. Any pair not here must change nothing.
var drawing = map[State]map[eventKind]edge{
	StateIdle: {
		evCall: {StateStarting, actStart}, evStart: {StateStarting, actStart},
		evFlushed: {StateReady, actNone}, evLaunchFailed: {StateStopped, actStopForGood}, evStopForGood: {StateStopped, actStopForGood},
		evDisable: {StateDisabled, actHalt}, evRestart: {StateIdle, actHalt}, evChange: {StateIdle, actHalt}, evClose: {StateStopped, actHalt},
	},
	StateStarting: {
		evFlushed: {StateReady, actNone}, evLaunchFailed: {StateStopped, actStopForGood}, evStopForGood: {StateStopped, actStopForGood},
		evCrashed: {StateRestarting, actStart}, evCrashLimit: {StateStopped, actStopForGood},
		evDisable: {StateDisabled, actHalt}, evRestart: {StateIdle, actHalt}, evChange: {StateIdle, actHalt}, evClose: {StateStopped, actHalt},
	},
	StateReady: {
		evFlushed: {StateReady, actNone}, evLaunchFailed: {StateStopped, actStopForGood}, evStopForGood: {StateStopped, actStopForGood},
		evOutputEnded: {StateRestarting, actNone}, evWireEnded: {StateRestarting, actNone},
		evCrashed: {StateRestarting, actStart}, evCrashLimit: {StateStopped, actStopForGood},
		evDisable: {StateDisabled, actHalt}, evRestart: {StateIdle, actHalt}, evChange: {StateIdle, actHalt}, evClose: {StateStopped, actHalt},
	},
	StateRestarting: {
		evFlushed: {StateReady, actNone}, evLaunchFailed: {StateStopped, actStopForGood}, evStopForGood: {StateStopped, actStopForGood},
		evCrashed: {StateRestarting, actStart}, evCrashLimit: {StateStopped, actStopForGood},
		evDisable: {StateDisabled, actHalt}, evRestart: {StateIdle, actHalt}, evChange: {StateIdle, actHalt}, evClose: {StateStopped, actHalt},
	},
	StateStopped: {
		evFlushed: {StateReady, actNone}, evLaunchFailed: {StateStopped, actStopForGood}, evStopForGood: {StateStopped, actStopForGood},
		evReviewed: {StateIdle, actForget},
		evDisable:  {StateDisabled, actHalt}, evRestart: {StateIdle, actHalt}, evChange: {StateIdle, actHalt}, evClose: {StateStopped, actHalt},
	},
	StateDisabled: {
		evFlushed: {StateReady, actNone}, evLaunchFailed: {StateStopped, actStopForGood}, evStopForGood: {StateStopped, actStopForGood},
		evEnable:  {StateIdle, actNone},
		evDisable: {StateDisabled, actHalt}, evRestart: {keep, actHalt}, evChange: {keep, actHalt}, evClose: {keep, actHalt},
	},
}

// The machine's table is the drawing, cell by cell: every state x every
// event.
func TestMachineIsTheDrawing(t *testing.T) {
	if len(machine) != len(states) {
		t.Fatalf("the machine has %d states, want %d", len(machine), len(states))
	}
	for _, s := range states {
		for k := range eventKinds {
			got, want := machine[s][k], drawing[s][k]
			if got != want {
				t.Errorf("%s --%s--> %s (%s), the drawing says %s (%s)", s, k, orKeep(got.to), got.do, orKeep(want.to), want.do)
			}
		}
	}
}

func orKeep(s State) State {
	if s == keep {
		return "(kept)"
	}
	return s
}

// decide, walked over every state x every event on a plugin set in that
// state: the state it leaves and what it did are the table's.
func TestDecideWalksTheWholeTable(t *testing.T) {
	for _, s := range states {
		for k := range eventKinds {
			t.Run(fmt.Sprintf("%s/%s", s, k), func(t *testing.T) {
				walkCell(t, s, k)
			})
		}
	}
}

func walkCell(t *testing.T, from State, k eventKind) {
	p := machinePlugin(t)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.state = from
	queued := newRequest(kindCall, "test/queued", nil)
	p.queue.push(queued)
	p.crashes.add(time.Now(), time.Minute)
	var i *instance
	if k.ofInstance() {
		i = &instance{p: p, prog: newMemProgram(nil), phase: phaseFor(k), done: make(chan struct{}), launched: make(chan struct{})}
		p.inst = i
	}
	want := expected(from, k)
	ev := event{kind: k, tag: "test", reason: "why"}
	if !p.decide(i, ev) {
		t.Fatalf("%s on %s did not stand", k, from)
	}
	wantState := want.to
	if wantState == keep {
		wantState = from
	}
	if p.state != wantState {
		t.Errorf("state %s, want %s", p.state, wantState)
	}
	if got := actionSeen(p, i, queued); got != want.do {
		t.Errorf("did %s, want %s", got, want.do)
	}
	switch {
	case p.inst == i:
		p.inst = nil // the walk's own instance, which never ran
	case p.inst != nil:
		p.inst.cancel() // the instance decide started: its launch ends at once
	}
}

// expected is the table's edge for a cell. An exit is no row of its own:
// in a running state it is a crash (the walk's crash log holds one, below
// the limit), in a halted one it is only noted.
func expected(from State, k eventKind) edge {
	if k == evExited {
		if from == StateStarting || from == StateReady || from == StateRestarting {
			return drawing[from][evCrashed]
		}
		return edge{}
	}
	return drawing[from][k]
}

// phaseFor is the phase an instance is in when the event can happen to it.
func phaseFor(k eventKind) phase {
	switch k {
	case evLaunched, evLaunchFailed:
		return launching
	case evGreeted:
		return greeting
	}
	return serving
}

// actionSeen tells, from what it left, which action decide took: a new
// instance (start), the queue ended and the instance stopping (halt), the
// queue ended and the reason journaled (stop for good), the crash log
// emptied (forget), or none of that.
func actionSeen(p *Plugin, before *instance, queued *request) action {
	ended := isClosed(queued.ready)
	switch {
	case p.inst != nil && p.inst != before:
		return actStart
	case ended && before != nil && before.phase == stopping && !journaled(p, "why"):
		return actHalt
	case ended && journaled(p, "why"):
		return actStopForGood
	case ended && before == nil:
		return actHalt
	case len(p.crashes.times) == 0:
		return actForget
	}
	return actNone
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// journaled reports whether a journal line, whatever its tag, says text.
func journaled(p *Plugin, text string) bool {
	lines, _ := p.journal.Tail(100)
	for _, l := range lines {
		if strings.HasSuffix(l, " "+text) {
			return true
		}
	}
	return false
}

// machinePlugin is a plugin whose launches wait for their instance's end.
func machinePlugin(t *testing.T) *Plugin {
	t.Helper()
	launch := launchFunc(func(ctx context.Context, _ transport.LaunchSpec) (transport.Program, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	h := New(Options{Home: t.TempDir(), Transports: memTransports(launch)})
	t.Cleanup(func() { h.Close(context.Background()) })
	m := &manifest.Manifest{ID: "dev.test.machine", Version: "1.0.0", Run: &manifest.Run{WASM: "x"},
		Activation: []string{"onCall"}, Dir: t.TempDir()}
	p, err := h.Add(m, folderConfig(m))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// FuzzDecide plays any sequence of events on a plugin, each instance
// event on the current instance (or on a new one in the phase the input
// says), and checks what must hold after each: the state is one of the
// machine's, a stop leaves nothing queued, the current instance is never
// gone, and the state is the edge's.
func FuzzDecide(f *testing.F) {
	f.Add([]byte{byte(evCall), byte(evLaunched), byte(evGreeted), byte(evFlushed), byte(evExited)})
	f.Add([]byte{byte(evDisable), byte(evFlushed), byte(evEnable), byte(evCall), byte(evLaunchFailed), byte(evReviewed)})
	f.Add([]byte{byte(evCall), byte(evOutputEnded), byte(evWireEnded), byte(evExited), byte(evExited), byte(evExited), byte(evExited)})
	f.Fuzz(func(t *testing.T, steps []byte) {
		if len(steps) > 64 {
			steps = steps[:64]
		}
		p := machinePlugin(t)
		p.mu.Lock()
		defer p.mu.Unlock()
		var started []*instance
		defer func() {
			for _, i := range started {
				if i.cancel != nil {
					i.cancel()
				}
			}
			p.inst = nil
		}()
		for n, b := range steps {
			k := eventKind(b) % eventKinds
			p.queue.push(newRequest(kindCall, "test/queued", nil))
			var i *instance
			if k.ofInstance() {
				if p.inst == nil {
					p.inst = &instance{p: p, prog: newMemProgram(nil), phase: phase(int(b>>5) % int(gone)), done: make(chan struct{}), launched: make(chan struct{})}
				}
				i = p.inst
				if i.prog == nil { // one decide started: as launched, for the events that need a program
					i.prog = newMemProgram(nil)
				}
			}
			from, before := p.state, p.inst
			p.decide(i, event{kind: k, tag: "test", reason: "why"})
			if p.inst != nil && p.inst != before {
				started = append(started, p.inst)
			}
			checkAfter(t, p, n, from, k)
		}
	})
}

func checkAfter(t *testing.T, p *Plugin, n int, from State, k eventKind) {
	t.Helper()
	if _, ok := machine[p.state]; !ok {
		t.Fatalf("step %d (%s from %s): state %q is none of the machine's", n, k, from, p.state)
	}
	if p.inst != nil && p.inst.phase == gone {
		t.Fatalf("step %d (%s from %s): the current instance is gone", n, k, from)
	}
	edges := []edge{machine[from][k]}
	if k == evExited { // an exit is taken as a crash, or the crash past the limit
		edges = []edge{machine[from][evCrashed], machine[from][evCrashLimit]}
	}
	for _, e := range edges {
		if p.state != from && p.state == orFrom(e.to, from) {
			if (e.do == actHalt || e.do == actStopForGood) && len(p.queue.items) > 0 {
				t.Fatalf("step %d (%s from %s): %d requests still queued after a stop", n, k, from, len(p.queue.items))
			}
			return
		}
	}
	if p.state != from {
		t.Fatalf("step %d (%s from %s): state %s, which no edge of the table gives", n, k, from, p.state)
	}
}

func orFrom(to, from State) State {
	if to == keep {
		return from
	}
	return to
}
