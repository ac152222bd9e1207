package conformance

import (
	"context"
	"encoding/json"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/services"
)

// moduleServices are the module-only services of one bench run, made by
// the host's own makers (Options.ModuleServices: modules.Services for the
// CLI), so that a module is served on the bench what the host serves it:
// real timers, the network behind the same egress guard, files and
// programs as its manifest asks (the bench grants all it asks).
type moduleServices struct {
	cancel context.CancelFunc
	owned  []services.Service
}

// newModuleServices makes the services for the program of m, or returns
// nil for a process (which is served none of them). A maker that fails is
// a refusal in the host's journal; on the bench, a note on stderr's rows.
func newModuleServices(ctx context.Context, m *manifest.Manifest, opts Options, note func(string), peer services.Peer) (*moduleServices, map[string]services.Handler) {
	kind := m.Run.Kind()
	if (kind != manifest.RunWASM && kind != manifest.RunJS) || len(opts.ModuleServices) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	ms := &moduleServices{cancel: cancel}
	env := host.ServiceEnv{
		Manifest: m,
		Granted:  m.Permissions,
		Journal:  func(tag, text string) {},
		Peer:     peer,
		Attached: func(string) (json.RawMessage, bool) { return nil, false },
		Home:     opts.Home,
	}
	methods := map[string]services.Handler{}
	for _, make := range opts.ModuleServices {
		svc, err := make(ctx, env)
		if err != nil {
			note("a service could not start: " + err.Error())
			continue
		}
		ms.owned = append(ms.owned, svc)
		for name, h := range svc.Methods() {
			methods[name] = h
		}
	}
	return ms, methods
}

// close releases the timers, sockets and streams of the run.
func (ms *moduleServices) close() {
	if ms == nil {
		return
	}
	ms.cancel()
	for _, svc := range ms.owned {
		_ = svc.Close()
	}
}
