package conformance

import (
	"encoding/json"
	"os"
	"time"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// Defaults used where an Options field is left at its zero value.
const (
	DefaultAppVersion  = host.AppVersion
	DefaultLang        = "en"
	DefaultQuietWait   = 300 * time.Millisecond
	DefaultExitGrace   = time.Second
	DefaultStopGrace   = protocol.StopGrace
	DefaultMemoryLimit = protocol.ProgramMemory
	DefaultStderrKeep  = protocol.CrashStderrLines
)

// Options tune a bench run. The zero value plays the host as Escouade does,
// with the delays of the protocol schema.
type Options struct {
	// AppVersion is the app version the plugin is told, and the one
	// escouade.min is checked against; empty means DefaultAppVersion.
	AppVersion string
	// Lang is initialize.lang and ESCOUADE_LANG; empty means DefaultLang.
	Lang string
	// Env is the app's environment the program's is made from, before the
	// ESCOUADE_* variables; nil means the bench's own. The process
	// transport keeps only what docs/protocol.md#plugin-env lists, as the
	// host's does.
	Env []string
	// Transports start programs by the kind of their run (give
	// modules.Transports'); a run.command program without one here gets
	// the registry's (modules.DefaultTransport).
	Transports map[manifest.RunKind]transport.Transport
	// ModuleServices make the services only modules are served (timer/*,
	// net/*, ws/*, fs/*, proc/*), as host.Options.ModuleServices does for
	// the host: give modules.Services so the bench serves what the host
	// serves. Without them a module's request for one answers -32601.
	ModuleServices []host.ServiceMaker
	// Home is the home the module services keep their folders in (the
	// plugin's temp folder).
	Home string
	// Delays overrides the delay of a method's calls, by exact method name.
	Delays map[string]time.Duration
	// QuietWait is how long the bench listens to conclude that nothing
	// answers (a notification-only batch); zero means DefaultQuietWait.
	QuietWait time.Duration
	// ExitGrace is how long the program has to exit after answering
	// shutdown; zero means DefaultExitGrace.
	ExitGrace time.Duration
	// StopGrace is each grace of the final stop (stdin closed, then
	// terminate, then kill); zero means DefaultStopGrace.
	StopGrace time.Duration
	// MemoryLimit is the most resident memory at idle that passes, in
	// bytes; zero means DefaultMemoryLimit.
	MemoryLimit uint64
	// Secrets are values served for secrets/get by key, before those of
	// escouade-bench.json; a granted key with no value reads as
	// "bench-secret:<key>".
	Secrets map[string]string
	// Settings are the user's values served by settings/get, in place of
	// those of escouade-bench.json.
	Settings map[string]json.RawMessage
	// Projects maps a project id to the folder of its .escouade.yml, for
	// settings/get with a project.
	Projects map[string]string
	// StderrKeep is how many last stderr lines a failure quotes; zero
	// means DefaultStderrKeep.
	StderrKeep int
}

func (o Options) withDefaults() Options {
	if o.AppVersion == "" {
		o.AppVersion = DefaultAppVersion
	}
	if o.Lang == "" {
		o.Lang = DefaultLang
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	if o.QuietWait <= 0 {
		o.QuietWait = DefaultQuietWait
	}
	if o.ExitGrace <= 0 {
		o.ExitGrace = DefaultExitGrace
	}
	if o.StopGrace <= 0 {
		o.StopGrace = DefaultStopGrace
	}
	if o.MemoryLimit == 0 {
		o.MemoryLimit = DefaultMemoryLimit
	}
	if o.StderrKeep <= 0 {
		o.StderrKeep = DefaultStderrKeep
	}
	return o
}

// delay is how long the bench waits for the answer to a call of method.
func (o Options) delay(method string) time.Duration {
	if d, ok := o.Delays[method]; ok && d > 0 {
		return d
	}
	return protocol.Delay(method)
}
