package conformance

import (
	"errors"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// errNoTransport reports a program kind this bench was given no transport
// for.
var errNoTransport = errors.New("this bench cannot run it: it was given no transport for it")

// transportFor returns the transport of the manifest's run: the one the
// options give for its kind, else the registry's default (run.command's,
// modules.DefaultTransport). The bench starts programs through the host's
// own seam and registry, so it runs them exactly as the host does.
func (o Options) transportFor(m *manifest.Manifest) (transport.Transport, error) {
	kind := m.Run.Kind()
	if t, ok := o.Transports[kind]; ok {
		return t, nil
	}
	if t, ok := modules.DefaultTransport(kind, o.StopGrace); ok {
		return t, nil
	}
	return nil, fmt.Errorf("run.%s: %w", kind, errNoTransport)
}
