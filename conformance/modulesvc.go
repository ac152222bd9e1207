package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"

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
	peer   *wirePeer
}

// newModuleServices makes the services for the program of m, or returns
// nil for a process (which is served none of them). A maker that fails is
// a refusal in the host's journal; on the bench, a note on stderr's rows.
func newModuleServices(ctx context.Context, m *manifest.Manifest, opts Options, note func(string)) (*moduleServices, map[string]services.Handler) {
	kind := m.Run.Kind()
	if (kind != manifest.RunWASM && kind != manifest.RunJS) || len(opts.ModuleServices) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	ms := &moduleServices{cancel: cancel, peer: &wirePeer{}}
	env := host.ServiceEnv{
		Manifest: m,
		Granted:  m.Permissions,
		Journal:  func(tag, text string) {},
		Peer:     ms.peer,
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

// wirePeer is the services' end of the bench's wire: timer/fired,
// net/chunk and ws/message go to the program's stdin like the host's.
type wirePeer struct{ w atomic.Pointer[wire] }

// errNoWire refuses a notification sent before the wire opened.
var errNoWire = errors.New("the program's stdin is not open yet")

func (p *wirePeer) Notify(method string, params any) error {
	w := p.w.Load()
	if w == nil {
		return errNoWire
	}
	return w.writeJSON(notification(method, params))
}
