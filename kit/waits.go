package kit

import (
	"slices"
	"strings"
	"sync"
)

// waits keeps what the plugin's handlers wait on, so that a module can
// name a handler blocked outside the host: a module runs only during its
// turns, and its Go timers (time.Sleep, time.After, time.Ticker) do not
// wake it between them, so a handler sleeping on one answers late, if at
// all; the host sees only "no answer within 5 s".
type waits struct {
	mu        sync.Mutex
	running   map[string]int  // handlers under way, by method
	hostCalls int             // calls to the host awaiting their answer
	told      map[string]bool // methods already named on stderr
}

// enter and leave bracket one handler of method.
func (w *waits) enter(method string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running == nil {
		w.running = map[string]int{}
	}
	w.running[method]++
}

func (w *waits) leave(method string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running[method]--; w.running[method] <= 0 {
		delete(w.running, method)
	}
}

// calling brackets one call to the host.
func (w *waits) calling(delta int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.hostCalls += delta
}

// blockedOutside returns the methods whose handlers are still under way at
// the end of a turn while nothing of the host can wake them (no call to
// the host awaiting its answer, no host timer pending), each method once
// per Serve.
func (w *waits) blockedOutside(hostTimers int) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.running) == 0 || w.hostCalls > 0 || hostTimers > 0 {
		return nil
	}
	var out []string
	for method := range w.running {
		if !w.told[method] {
			if w.told == nil {
				w.told = map[string]bool{}
			}
			w.told[method] = true
			out = append(out, method)
		}
	}
	slices.Sort(out)
	return out
}

// noteBlocked writes on stderr, which the host journals, the handlers a
// turn ended with that wait on nothing the host serves.
func (p *Plugin) noteBlocked() {
	methods := p.waits.blockedOutside(p.timers.pending())
	if len(methods) == 0 {
		return
	}
	p.tracef("%s still under way at the end of a turn, waiting on nothing the host serves: "+
		"the turn waited on the clock (a time.Sleep, time.After or time.Ticker), and a module's Go timers do not run between turns; "+
		"wait with plugin.Sleep, After or AfterFunc (timer/set) instead", strings.Join(methods, ", "))
}
