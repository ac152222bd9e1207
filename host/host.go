package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// Host holds every plugin of the app.
type Host struct {
	opts Options

	mu      sync.Mutex
	plugins map[string]*Plugin
	closed  bool
}

// New makes a host; nothing runs until a plugin is activated.
func New(opts Options) *Host {
	opts = opts.withDefaults()
	return &Host{opts: opts, plugins: map[string]*Plugin{}}
}

// Config is what the user chose for a plugin.
type Config struct {
	// Granted is what the user granted; nil grants nothing. An installed
	// plugin's is its registry entry's (AddInstalled reads it).
	Granted *manifest.Permissions
	// Settings holds the values the user chose in the app, by key.
	Settings map[string]json.RawMessage
	// Disabled adds the plugin switched off.
	Disabled bool
	// Admit is asked before every start of the program, with the manifest
	// it would run: an error keeps the program from starting, and the
	// plugin is stopped with the error's text as its reason. Nil is the
	// consent check of the host's home (registry.Admit): the plugin must
	// be installed from that very folder, and the folder be what the
	// person consented to; what the plugin's program then writes into its
	// own folder as it runs is recorded as its own (registry.Settle).
	// registry.AnyFolder starts a folder the person runs themselves
	// (escouade-plugin run DIR), checked by nothing and recording nothing.
	Admit func(*manifest.Manifest) error
	// Admitted, when set, is told the outcome of each start's consent
	// check when Admit is nil (the view marks a plugin "needs review").
	Admitted func(m *manifest.Manifest, err error)
}

// initialState is where a plugin added with cfg starts: the machine's
// first state, idle, or disabled when the user switched it off.
func (cfg Config) initialState() State {
	if cfg.Disabled {
		return StateDisabled
	}
	return StateIdle
}

// Add registers a plugin. Its program starts on its first activation.
func (h *Host) Add(m *manifest.Manifest, cfg Config) (*Plugin, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	if _, dup := h.plugins[m.ID]; dup {
		return nil, fmt.Errorf("plugin %s %w", m.ID, ErrAlreadyAdded)
	}
	j, err := journal.Open(h.opts.Home, m.ID, journal.Options{})
	if err != nil {
		return nil, err
	}
	p := &Plugin{h: h, id: m.ID, journal: j, m: m, settings: cfg.Settings, state: cfg.initialState(), admit: cfg.Admit, admitted: cfg.Admitted}
	p.queue.max = h.opts.QueueSize
	if cfg.Granted != nil {
		p.granted = m.Permissions.Intersect(*cfg.Granted)
	}
	h.plugins[m.ID] = p
	return p, nil
}

// Plugin returns the plugin of that id.
func (h *Host) Plugin(id string) (*Plugin, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.plugins[id]
	return p, ok
}

// Journal returns the journal of the plugin of that id, for Tail(500).
func (h *Host) Journal(id string) (*journal.Journal, bool) {
	p, ok := h.Plugin(id)
	if !ok {
		return nil, false
	}
	return p.journal, true
}

// Plugins lists the plugins by id.
func (h *Host) Plugins() []*Plugin {
	h.mu.Lock()
	defer h.mu.Unlock()
	list := make([]*Plugin, 0, len(h.plugins))
	for _, p := range h.plugins {
		list = append(list, p)
	}
	sort.Slice(list, func(a, b int) bool { return list[a].id < list[b].id })
	return list
}

// Fact tells every plugin a fact happened (docs/protocol.md#2-starting-the-program).
func (h *Host) Fact(name string, params any) {
	for _, p := range h.Plugins() {
		p.Fact(name, params)
	}
}

// closeMargin is kept from Close's deadline for killing and reaping what
// did not end within its grace.
const closeMargin = 100 * time.Millisecond

// Close sends shutdown to every running plugin at once, waits for their
// answers ShutdownWait at most for all of them together, then stops each
// program and all it started, and closes the journals.
func (h *Host) Close(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	plugins := h.Plugins()
	answers, cancel := context.WithTimeoutCause(ctx, h.opts.ShutdownWait, waitRanOut(h.opts.ShutdownWait))
	defer cancel()
	// One deadline for all of it: ShutdownWait for the answers, then one
	// grace for the programs to end before they are killed, less a margin
	// for the kills themselves, so that closing takes ShutdownWait plus
	// StopGrace at most, however many plugins there are.
	stop, cancelStop := context.WithTimeout(context.WithoutCancel(ctx), h.opts.ShutdownWait+h.opts.StopGrace-closeMargin)
	defer cancelStop()
	var wg sync.WaitGroup
	for _, p := range plugins {
		wg.Go(func() { p.haltBy(answers, stop, event{kind: evClose, reason: "the host closed"}) })
	}
	wg.Wait()
	errs := []error{h.closeTransports(ctx)}
	for _, p := range plugins {
		errs = append(errs, p.journal.Close())
	}
	return errors.Join(errs...)
}

// delay is how long the host waits for a plugin's answer to method.
func (h *Host) delay(method string) time.Duration {
	if d, ok := h.opts.Delays[method]; ok {
		return d
	}
	return protocol.Delay(method)
}

// initializeParams is the first message to a program (docs/protocol.md#4-the-handshake).
func (h *Host) initializeParams(m *manifest.Manifest) proto.InitializeParams {
	return InitializeParams(m, h.opts.AppVersion, h.opts.Lang)
}
