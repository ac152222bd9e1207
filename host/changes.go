package host

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/transport"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// halt takes ev, a halt (disable, restart, change, close), and shuts the
// running program down (shutdown call first, within ctx and its delay,
// then stopped with all it started): the way every user change and a
// restart stop a program.
func (p *Plugin) halt(ctx context.Context, ev event) {
	p.haltBy(ctx, context.Background(), ev)
}

// haltBy is halt whose stop of the program, after shutdown, ends by stop's
// deadline (Close's, shared by every plugin).
func (p *Plugin) haltBy(ctx, stop context.Context, ev event) {
	p.mu.Lock()
	inst := p.inst
	p.decide(nil, ev)
	p.mu.Unlock()
	if inst == nil {
		return
	}
	inst.shutdown(ctx, stop)
	<-inst.done
	p.journal.Write(journal.TagStop, "stopped: "+ev.reason)
}

// shutdown asks the program to end, then stops it and all it started,
// by stop's deadline if it has one.
func (i *instance) shutdown(ctx, stop context.Context) {
	<-i.launched
	i.p.mu.Lock()
	greeted := i.greeted
	i.p.mu.Unlock()
	if greeted {
		i.askShutdown(ctx)
	}
	if i.prog != nil {
		_ = i.prog.Stop(stop, transport.StopOptions{AlreadyAsked: greeted})
	}
}

// askShutdown sends shutdown and waits for its answer within ctx and the
// delay of shutdown. The call runs on a goroutine of its own: a program that
// stopped reading its stdin blocks the write, and the stop that follows
// must not wait for it (closing stdin ends that write).
//
// A wait that runs out is journaled as every other delay that runs out
// (docs/protocol.md#5-calls-delays-and-the-default-answer): its own delay,
// or Close's wait for all plugins together when that one ends first. A
// caller's context that ends first is the caller's, and says nothing.
func (i *instance) askShutdown(ctx context.Context) {
	wait := i.p.h.delay(vocab.MethodShutdown)
	ctx, cancel := context.WithTimeoutCause(ctx, wait, waitRanOut(wait))
	defer cancel()
	answered := make(chan struct{})
	var err error
	go func() {
		defer close(answered)
		_, err = i.conn.Call(ctx, vocab.MethodShutdown, nil)
	}()
	select {
	case <-answered:
		if !errors.Is(err, context.DeadlineExceeded) {
			return // answered, or the program ended first
		}
	case <-ctx.Done():
	}
	var ran waitRanOut
	if errors.As(context.Cause(ctx), &ran) {
		i.p.journal.Write(journal.TagTimeout, fmt.Sprintf("%s: no answer within %s", vocab.MethodShutdown, protocol.FormatDuration(time.Duration(ran))))
	}
}

// waitRanOut is the cause of a wait for shutdown answers that ended by
// its own length: the shutdown delay, or Close's wait.
type waitRanOut time.Duration

func (w waitRanOut) Error() string {
	return "no answer within " + protocol.FormatDuration(time.Duration(w))
}

// Disable stops the program; calls get the default answer until Enable.
func (p *Plugin) Disable(ctx context.Context) {
	p.halt(ctx, event{kind: evDisable, reason: "disabled"})
}

// Enable switches a disabled plugin back on; it starts on its next
// activation.
func (p *Plugin) Enable() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.decide(nil, event{kind: evEnable})
}

// Restart stops the program if it runs and starts it again now, its crash
// history forgotten.
func (p *Plugin) Restart(ctx context.Context) error {
	if p.Status().State == StateDisabled {
		return ErrDisabled
	}
	p.mu.Lock()
	switch {
	case p.m.Run.Kind() == manifest.RunNone:
		p.mu.Unlock()
		return fmt.Errorf("plugin %s %w", p.id, ErrNoProgram)
	case len(p.m.Activation) == 0:
		p.mu.Unlock()
		return fmt.Errorf("plugin %s %w", p.id, ErrNoActivation)
	}
	p.mu.Unlock()
	p.halt(ctx, event{kind: evRestart, reason: "restart asked"})
	p.mu.Lock()
	defer p.mu.Unlock()
	p.crashes.forget()
	p.decide(nil, event{kind: evStart})
	return nil
}

// SetGranted changes what the user granted; a running program restarts with
// the permissions of now.
func (p *Plugin) SetGranted(ctx context.Context, granted manifest.Permissions) error {
	return p.change(ctx, "permissions changed", func() error {
		p.granted = granted
		return nil
	})
}

// Granted is what the user granted now.
func (p *Plugin) Granted() manifest.Permissions {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.granted
}

// Update installs a new version of the plugin; a running program restarts
// with the manifest of now, a stopped plugin is idle again. Permissions granted before stay granted where
// the new manifest still asks them.
func (p *Plugin) Update(ctx context.Context, m *manifest.Manifest) error {
	if m.ID != p.ID() {
		return fmt.Errorf("the update is plugin %s, not %s", m.ID, p.ID())
	}
	return p.change(ctx, "updated to "+m.Version, func() error {
		p.granted = p.granted.Intersect(m.Permissions)
		p.m = m
		// The user reviewed and said yes to this version: a plugin stopped
		// (its folder changed since install, its crashes) gets its start
		// again at its next activation.
		p.decide(nil, event{kind: evReviewed})
		return nil
	})
}

// change applies a user change: the program stops (shutdown first) and, if
// it was running, starts again with what is true now.
func (p *Plugin) change(ctx context.Context, reason string, apply func() error) error {
	p.mu.Lock()
	running := p.inst != nil
	disabled := p.state == StateDisabled
	p.mu.Unlock()
	if running {
		p.halt(ctx, event{kind: evChange, reason: reason})
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := apply(); err != nil {
		return err
	}
	if running && !disabled {
		p.decide(nil, event{kind: evStart})
	}
	return nil
}

// pluginEnv is the app's environment plus the four ESCOUADE_ variables.
func (h *Host) pluginEnv(id string) []string {
	return PluginEnv(h.opts.Env, id, h.opts.AppVersion, h.opts.Lang)
}
