package host

import "time"

// Status is a plugin's state as the app and the CLI show it.
type Status struct {
	State  State  `json:"state"`
	Reason string `json:"reason"` // "" when there is nothing to say
	// Program names the program now, as its transport does ("pid 4242",
	// "instance 3"); "" when none runs. How the app spells it is the
	// app's.
	Program string `json:"-"`
	// PID is the process id of a program the operating system runs, 0
	// for one that runs inside the host or when none runs.
	PID     int `json:"-"`
	Crashes int `json:"crashes"`
}

// systemProcess is implemented by programs the operating system runs (the
// process transport's): the seam names a program only by its ID, and
// what only a process has is read here, for the app's Status.
type systemProcess interface{ PID() int }

// Status is the plugin's state now.
func (p *Plugin) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.statusLocked()
}

func (p *Plugin) statusLocked() Status {
	s := Status{State: p.state, Reason: p.reason, Crashes: p.crashes.count(time.Now(), p.h.opts.RestartWindow)}
	if p.inst != nil && p.inst.prog != nil {
		s.Program = p.inst.prog.ID()
		if sys, ok := p.inst.prog.(systemProcess); ok {
			s.PID = sys.PID()
		}
	}
	return s
}
