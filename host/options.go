package host

import (
	"os"
	"time"

	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/registry"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// AppVersion is the Escouade version this host stands for unless
// Options.AppVersion says otherwise.
const AppVersion = "2.2.0"

// Options configures a Host. The zero value means the documented defaults.
type Options struct {
	// Home holds plugin-logs/ and state; default ~/.escouade.
	Home string
	// AppVersion is given to plugins as ESCOUADE_VERSION and in initialize;
	// default AppVersion.
	AppVersion string
	// Lang is the interface language given to plugins; default "en".
	Lang string
	// Keychain serves secrets/get; nil answers -32002 (out of reach).
	Keychain keychain.Keychain
	// Projects maps a project id to its folder (for .escouade.yml).
	Projects func(id string) (dir string, ok bool)
	// Env is the app's environment, of which a run.command program gets
	// only what docs/protocol.md#plugin-env lists (its transport filters
	// it); default os.Environ().
	Env []string
	// Delays overrides the delay of host→plugin calls by method name (tests).
	Delays map[string]time.Duration
	// MemoryLimit stops a program that tells its memory
	// (transport.MemoryReader) past this many bytes; default
	// protocol.ProgramMemory.
	MemoryLimit uint64
	// MemoryPeriod is how often memory is read; default
	// protocol.MemoryPeriod.
	MemoryPeriod time.Duration
	// MaxRestarts within RestartWindow are allowed; the next crash stops the
	// plugin. Defaults protocol.MaxRestarts and protocol.CrashWindow.
	MaxRestarts   int
	RestartWindow time.Duration
	// QueueSize bounds what waits while a plugin starts; default
	// protocol.QueueSize.
	QueueSize int
	// ShutdownWait is how long Close waits for shutdown answers, all plugins
	// together; default protocol.ShutdownWait.
	ShutdownWait time.Duration
	// WriteTimeout ends a program that has not taken a message from its
	// stdin for that long (it stopped reading): a crash, rather than every
	// sender blocked for ever; default protocol.WriteTimeout.
	WriteTimeout time.Duration
	// StopGrace is each step of stopping a program (stdin closed, then
	// asked to end, then forced), the graces Close allows; default
	// protocol.StopGrace.
	// The transports are given theirs by whoever makes them.
	StopGrace time.Duration
	// Transports start programs by the kind of their run (package modules
	// gives every kind's); a kind missing gets a plain refusal. The host
	// owns them: Close closes them once every program has stopped.
	Transports map[manifest.RunKind]transport.Transport
	// Decisions is told each program the host launched, with a way to ask
	// whether it holds a decision an agent waits for (a permissions/…
	// call): a transport whose programs run in turns shortens them then
	// (package modules gives the WASM transport's). Nil tells nobody.
	Decisions func(prog transport.Program, holds func() bool)
	// ModuleServices are made for each instance of a module program
	// (run.wasm, run.js): the module-only services (timer/*, net/*, ws/*,
	// fs/*, proc/*). A run.command program never gets them: its
	// calls answer -32601.
	ModuleServices []ServiceMaker
	// OnState is told every state change, in order, with the plugin's lock
	// held: it must be quick and must not call the plugin back.
	OnState func(id string, s Status)
}

// MB is the unit memory is reported in (a mebibyte, as the OS tools show it).
const MB = 1 << 20

func (o Options) withDefaults() Options {
	if o.Home == "" {
		o.Home = DefaultHome()
	}
	if o.AppVersion == "" {
		o.AppVersion = AppVersion
	}
	if o.Lang == "" {
		o.Lang = "en"
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	o.protocolDefaults()
	return o
}

// protocolDefaults sets each zero field that applies a rule of the protocol
// to the protocol's number (docs/protocol.md#numbers).
func (o *Options) protocolDefaults() {
	setDefault(&o.MemoryLimit, protocol.ProgramMemory)
	setDefault(&o.MemoryPeriod, protocol.MemoryPeriod)
	setDefault(&o.MaxRestarts, protocol.MaxRestarts)
	setDefault(&o.RestartWindow, protocol.CrashWindow)
	setDefault(&o.QueueSize, protocol.QueueSize)
	setDefault(&o.ShutdownWait, protocol.ShutdownWait)
	setDefault(&o.WriteTimeout, protocol.WriteTimeout)
	setDefault(&o.StopGrace, protocol.StopGrace)
}

// setDefault sets *v to def when it is zero.
func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// DefaultHome is $ESCOUADE_HOME, else ~/.escouade.
func DefaultHome() string { return registry.DefaultHome() }
