// Package modules gives a host what it needs to run every kind of plugin:
// the registry of run kinds (kinds.go: processes for run.command, the WASM
// transport with the JS engine inside it for run.wasm and run.js), and the
// services only modules get (timers, the network behind the egress guard,
// files under granted roots, programs). An app embedding the host, the
// CLI, the bench and the Plugins view all set them up here, the same way,
// as Example shows.
package modules

import (
	"context"
	"path/filepath"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/jsrt"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
	"github.com/escouade-dev/escouade-plugin/services"
	fssvc "github.com/escouade-dev/escouade-plugin/services/fs"
	netsvc "github.com/escouade-dev/escouade-plugin/services/net"
	procsvc "github.com/escouade-dev/escouade-plugin/services/proc"
	timersvc "github.com/escouade-dev/escouade-plugin/services/timer"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// Options are the app's settings the module plugins depend on.
type Options struct {
	// Home is the host's home: compiled code is kept in <home>/wasm-cache,
	// each plugin's temp folder in <home>/plugin-temp/<id>. Configure takes
	// the host's (host.Options.Home) when it is empty.
	Home string
	// HostVersion names the compile cache's folder, so that a new host
	// recompiles; empty is the app version.
	HostVersion string
	// AccountHosts are the hosts of the accounts the user typed
	// ({account}), host[:port]; LocalShared the harnesses' local servers
	// (local:shared), host:port.
	AccountHosts []string
	LocalShared  []string
	// Proxy is the app's network proxy URL, or "".
	Proxy string
	// ProxyNow, when set, is asked at each start instead of Proxy, so that
	// a proxy changed in Settings › Network holds from the next start.
	ProxyNow func() string
	// FirstCompile, when set, hears of a module's first compile into the
	// cache, before and after (wasm.Options.FirstCompile).
	FirstCompile func(line string)
}

// proxy is the proxy a start uses.
func (o Options) proxy() string {
	if o.ProxyNow != nil {
		return o.ProxyNow()
	}
	return o.Proxy
}

// CacheDir is where compiled modules are kept under home.
func CacheDir(home string) string { return filepath.Join(home, "wasm-cache") }

// TempDir is the temporary folder of a plugin under home.
func TempDir(home, id string) string { return filepath.Join(home, "plugin-temp", id) }

// NewTransport makes the WASM transport, with the JS engine, for a host.
func NewTransport(ctx context.Context, o Options) (*wasm.Transport, error) {
	version := o.HostVersion
	if version == "" {
		version = host.AppVersion
	}
	return wasm.New(ctx, wasm.Options{
		CacheDir:     CacheDir(o.Home),
		HostVersion:  version,
		JS:           jsrt.New(),
		FirstCompile: o.FirstCompile,
	})
}

// Compiler checks and compiles a module or a bundle into the compile
// cache of home, as its first start would (the bundle's check, then the
// module's compile); a process or a declarative plugin has nothing to
// compile. It is what registry.InstallOptions.Compile takes: a module the
// host would refuse is not installed. hostVersion is as in Options.
func Compiler(home, hostVersion string) func(ctx context.Context, m *manifest.Manifest, progress func(string)) error {
	return func(ctx context.Context, m *manifest.Manifest, progress func(string)) error {
		if err := BuildOf(m).Missing(); err != nil {
			return err
		}
		switch m.Run.Kind() {
		case manifest.RunJS:
			if _, err := jsrt.New().Bundle(m); err != nil {
				return err
			}
		case manifest.RunWASM:
		default:
			return nil
		}
		t, err := NewTransport(ctx, Options{Home: home, HostVersion: hostVersion})
		if err != nil {
			return err
		}
		defer t.Close(ctx)
		return t.Precompile(ctx, m, progress)
	}
}

// Configure sets in opts the registry's transports (the WASM transport,
// behind the app-version gate of opts.AppVersion, for run.wasm and run.js;
// the process transport unless opts gives one), the module services, and
// the WASM transport's turn policy (Options.Decisions); it returns the
// WASM transport. The host owns the transports and closes them.
func Configure(ctx context.Context, opts *host.Options, o Options) (*wasm.Transport, error) {
	if o.Home == "" {
		o.Home = opts.Home // one home for the host and its modules
	}
	if o.Home == "" {
		o.Home = host.DefaultHome()
	}
	all, wt, err := Transports(ctx, o, opts.StopGrace, opts.AppVersion)
	if err != nil {
		return nil, err
	}
	if opts.Transports == nil {
		opts.Transports = map[manifest.RunKind]transport.Transport{}
	}
	for kind, t := range all {
		if _, given := opts.Transports[kind]; !given || kind != manifest.RunProcess {
			opts.Transports[kind] = t
		}
	}
	opts.Decisions = wt.Decisions
	opts.ModuleServices = append(opts.ModuleServices, Services(o)...)
	return wt, nil
}

// Services are the makers of the module-only services.
func Services(o Options) []host.ServiceMaker {
	return []host.ServiceMaker{
		func(_ context.Context, env host.ServiceEnv) (services.Service, error) {
			return timersvc.New(timersvc.Config{Peer: env.Peer, Journal: env.Journal}), nil
		},
		func(_ context.Context, env host.ServiceEnv) (services.Service, error) {
			return netsvc.New(netsvc.Config{
				PluginID:     env.Manifest.ID,
				Granted:      env.Granted,
				Limits:       env.Manifest.Limits,
				Journal:      env.Journal,
				Peer:         env.Peer,
				AccountHosts: o.AccountHosts,
				LocalShared:  o.LocalShared,
				Proxy:        o.proxy(),
			})
		},
		func(_ context.Context, env host.ServiceEnv) (services.Service, error) {
			return fssvc.New(fssvc.Config{
				PluginID:  env.Manifest.ID,
				Granted:   env.Granted,
				Roots:     fssvc.RootsFromAttach(env.Attached),
				TempDir:   TempDir(env.Home, env.Manifest.ID),
				PluginDir: env.Manifest.Dir,
				Home:      env.Home,
				Installed: installedFolders(env.Home),
			}), nil
		},
		func(_ context.Context, env host.ServiceEnv) (services.Service, error) {
			return procsvc.New(procsvc.Config{
				PluginID: env.Manifest.ID,
				Granted:  env.Granted,
				Roots:    fssvc.RootsFromAttach(env.Attached),
				TempDir:  TempDir(env.Home, env.Manifest.ID),
				Journal:  env.Journal,
			}), nil
		},
	}
}

// installedFolders gives the folders of the plugins installed under home,
// which fs/* keeps every module out of (docs/protocol.md#fs-plugin-folders);
// nil without a home.
func installedFolders(home string) fssvc.InstalledFunc {
	if home == "" {
		return nil
	}
	return registry.NewFolders(home).List
}
