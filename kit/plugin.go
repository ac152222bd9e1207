package kit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/vocab"
)

// HandlerFunc serves one method: params are the raw params of the call (nil
// when the host sent none), and the result is marshalled as JSON.
type HandlerFunc func(ctx context.Context, params json.RawMessage) (any, error)

// EventFunc serves one event notification; it has no answer.
type EventFunc func(ctx context.Context, params json.RawMessage)

// DefaultStopGrace is how long Serve waits, once it stops, for handlers
// still running to return when Options.StopGrace is zero.
const DefaultStopGrace = time.Second

// The methods the kit serves itself; Handle refuses them.
const (
	methodInitialize = vocab.MethodInitialize
	methodShutdown   = vocab.MethodShutdown
	methodAttach     = vocab.MethodAgentAttach
	eventPrefix      = vocab.MethodPrefixEvent
)

// Options configure a Plugin. The zero value reads no environment, traces
// on os.Stderr and waits DefaultStopGrace for handlers when it stops.
type Options struct {
	// Env is what the host put in the environment; New reads it from the
	// process.
	Env Env
	// Stderr receives the kit's own traces: a handler that panicked, a bad
	// line from the host, a Log made while not connected. Nil means
	// os.Stderr. Never stdout: it carries the protocol.
	Stderr io.Writer
	// StopGrace bounds how long Serve waits for handlers still running
	// after shutdown or the end of input; their contexts have ended by
	// then. Zero means DefaultStopGrace.
	StopGrace time.Duration
}

// Plugin is one plugin's program: the methods and events it serves, and
// its connection to the host while it runs. Register handlers before Run;
// the host may call any of them as soon as Run starts.
type Plugin struct {
	env       Env
	stderr    io.Writer
	stopGrace time.Duration

	mu      sync.Mutex
	methods map[string]HandlerFunc
	events  map[string]EventFunc
	attach  HandlerFunc
	init    InitParams
	host    hostPeer // the host while Serve runs, else nil
	serving bool     // a Serve runs
	timers  timers   // what After and AfterFunc started
	waits   waits    // what the handlers wait on (a module's turn check)
}

// New returns a plugin configured from the process environment
// (ESCOUADE_PLUGIN_ID, ESCOUADE_PLUGIN_API, ESCOUADE_VERSION, ESCOUADE_LANG).
func New() *Plugin {
	return NewWithOptions(Options{Env: ReadEnv(os.Getenv)})
}

// NewWithOptions returns a plugin configured by opts.
func NewWithOptions(opts Options) *Plugin {
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = DefaultStopGrace
	}
	return &Plugin{
		env:       opts.Env,
		stderr:    &lockedWriter{w: opts.Stderr},
		stopGrace: opts.StopGrace,
		methods:   make(map[string]HandlerFunc),
		events:    make(map[string]EventFunc),
		init:      initFromEnv(opts.Env),
		timers:    timers{hostKeeps: moduleBuild},
	}
}

// Handle registers fn for method. Like http.ServeMux it panics on a
// programming error: an empty method, a nil fn, a method registered twice,
// or a method the kit serves itself (initialize, shutdown, agent/attach —
// use OnAttach —, event/… — use OnEvent — and timer/fired).
func (p *Plugin) Handle(method string, fn HandlerFunc) {
	switch {
	case method == "" || fn == nil:
		panic("kit: Handle needs a method name and a function")
	case method == methodInitialize || method == methodShutdown:
		panic("kit: Handle(" + method + "): the kit answers " + method + " itself")
	case method == methodAttach:
		panic("kit: Handle(" + method + "): use OnAttach")
	case strings.HasPrefix(method, eventPrefix):
		panic("kit: Handle(" + method + "): use OnEvent(" + strings.TrimPrefix(method, eventPrefix) + ")")
	case method == methodTimerFired:
		panic("kit: Handle(" + method + "): the kit serves it for After and AfterFunc")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, dup := p.methods[method]; dup {
		panic("kit: Handle(" + method + ") called twice")
	}
	p.methods[method] = fn
}

// OnEvent registers fn for the notification event/<name>, which the host
// sends for the fact event:<name> of the manifest's activation list. It
// panics on an empty name, a nil fn, a name registered twice, or a name
// given with its event/ prefix.
func (p *Plugin) OnEvent(name string, fn EventFunc) {
	if name == "" || fn == nil || strings.HasPrefix(name, eventPrefix) {
		panic(fmt.Sprintf("kit: OnEvent(%q) needs a name without %q and a function", name, eventPrefix))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, dup := p.events[name]; dup {
		panic("kit: OnEvent(" + name + ") called twice")
	}
	p.events[name] = fn
}

// OnAttach registers fn for agent/attach: an agent attached to the plugin,
// with the params the app gave (agent, session, mode, model…). After a
// restart the host sends every attach again, in order, before anything
// else. Without OnAttach the kit answers agent/attach with -32601. It
// panics on a nil fn or a second call.
func (p *Plugin) OnAttach(fn HandlerFunc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if fn == nil || p.attach != nil {
		panic("kit: OnAttach needs a function and takes one")
	}
	p.attach = fn
}

// Init returns what initialize said: protocol version, app version, plugin
// id and version, language and the host's capabilities. Before initialize
// arrives it holds what the environment said (no plugin version then).
func (p *Plugin) Init() InitParams {
	p.mu.Lock()
	defer p.mu.Unlock()
	init := p.init
	init.Capabilities = maps.Clone(init.Capabilities)
	return init
}

// Env returns what the host put in the environment.
func (p *Plugin) Env() Env { return p.env }

// lookup returns the handler of a method, or nil.
func (p *Plugin) lookup(method string) HandlerFunc {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.methods[method]
}

// lookupEvent returns the handler of an event, or nil.
func (p *Plugin) lookupEvent(name string) EventFunc {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.events[name]
}

// attachHandler returns the OnAttach handler, or nil.
func (p *Plugin) attachHandler() HandlerFunc {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.attach
}

// setInit records the params of initialize.
func (p *Plugin) setInit(init InitParams) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.init = init
}

// capabilities is what the kit answers initialize with: it takes batches
// (jsonrpc.Conn answers them) and agent/attach when OnAttach was called.
func (p *Plugin) capabilities() Capabilities {
	return Capabilities{"batch": true, "attach": p.attachHandler() != nil}
}

// tracef writes one of the kit's own lines on stderr.
func (p *Plugin) tracef(format string, args ...any) {
	fmt.Fprintf(p.stderr, "kit: "+format+"\n", args...)
}

// lockedWriter keeps lines written from concurrent handlers whole.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
