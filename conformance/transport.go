package conformance

import (
	"errors"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/host/process"
	"github.com/escouade-dev/escouade-plugin/host/transport"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// errNoTransport reports a program kind this bench was given no transport
// for.
var errNoTransport = errors.New("this bench cannot run it: it was given no transport for it")

// transportFor returns the transport of the manifest's run: the one the
// options give for its kind, else the process transport for run.command.
// The bench starts programs through the host's own seam, so it runs them
// exactly as the host does.
func (o Options) transportFor(m *manifest.Manifest) (transport.Transport, error) {
	kind := m.Run.Kind()
	if t, ok := o.Transports[kind]; ok {
		return t, nil
	}
	if kind == manifest.RunProcess {
		return process.Transport{Grace: o.StopGrace}, nil
	}
	return nil, fmt.Errorf("run.%s: %w", kind, errNoTransport)
}
