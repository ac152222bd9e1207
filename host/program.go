package host

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// transportFor is the transport of a run kind: the one Options gave, else
// one that refuses plainly.
func (h *Host) transportFor(kind manifest.RunKind) transport.Transport {
	if t, ok := h.opts.Transports[kind]; ok {
		return t
	}
	return missingTransport{kind}
}

// missingTransport refuses a kind of program this host was given no
// transport for.
type missingTransport struct{ kind manifest.RunKind }

func (t missingTransport) Launch(_ context.Context, spec transport.LaunchSpec) (transport.Program, error) {
	return nil, fmt.Errorf("%s: run.%s programs are not supported by this host", filepath.Join(spec.Dir, manifest.FileName), t.kind)
}

func (missingTransport) Close(context.Context) error { return nil }

// closeTransports closes every transport the host owns, once their
// programs have stopped.
func (h *Host) closeTransports(ctx context.Context) error {
	var errs []error
	for _, t := range h.opts.Transports {
		errs = append(errs, t.Close(ctx))
	}
	return errors.Join(errs...)
}

// launchSpecLocked snapshots what a new program gets: the manifest and
// environment of now (a transport whose programs take no environment, a
// module's, leaves it).
func (p *Plugin) launchSpecLocked() transport.LaunchSpec {
	spec := LaunchSpecOf(p.m)
	spec.Env = p.h.pluginEnv(p.m.ID)
	spec.Stderr = func(line string) { p.journal.Write(journal.TagStderr, line) }
	spec.Journal = p.journal.Write
	return spec
}

// LaunchSpecOf is what m says of its program, in the seam's terms: the
// plugin's id and folder, its run's kind, command and file. The caller
// adds the environment and where the program's lines go.
func LaunchSpecOf(m *manifest.Manifest) transport.LaunchSpec {
	spec := transport.LaunchSpec{Name: m.ID, Dir: m.Dir, Kind: string(m.Run.Kind())}
	if m.Run != nil {
		spec.Command, spec.File = m.Run.Command, m.Run.JS
	}
	return spec
}
