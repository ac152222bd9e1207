package host

import (
	"context"
	"errors"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/services"
)

// handler serves what a program asks of the host, with the manifest,
// permissions and settings it was started with.
func (p *Plugin) handler(spec LaunchSpec) func(context.Context, *jsonrpc.Message) (any, error) {
	p.mu.Lock()
	srv := &services.Server{
		PluginID: spec.Manifest.ID,
		Dir:      spec.Manifest.Dir,
		Keychain: p.h.opts.Keychain,
		Granted:  p.granted,
		Declared: spec.Manifest.Contributes.Settings,
		User:     p.settings,
		Project:  p.h.opts.Projects,
		Journal:  p.journal.Write,
		Mask:     p.journal.Mask,
	}
	p.mu.Unlock()
	return func(ctx context.Context, m *jsonrpc.Message) (any, error) {
		if err := p.checkParams(m); err != nil {
			return nil, err
		}
		res, err := srv.Handle(ctx, m.Method, m.Params)
		return res, wireError(err)
	}
}

// checkParams validates the params of a request the host serves a process
// against the protocol schema (-32602 naming the field). Methods it does
// not serve are left to the services, which refuse them with -32601, and so
// are notifications (log): no answer can carry a refusal, so the services
// keep what they can of them and journal the rest.
func (p *Plugin) checkParams(m *jsonrpc.Message) error {
	meth, ok := protocol.Lookup(m.Method)
	if !ok || meth.WASMOnly || meth.Direction != protocol.DirPluginToHost || m.IsNotification() {
		return nil
	}
	err := protocol.ValidateParams(m.Method, m.Params)
	if err == nil {
		return nil
	}
	p.journal.Write(journal.TagRefused, fmt.Sprintf("%s: params do not hold: %v", m.Method, err))
	return jsonrpc.ErrInvalidParams.WithReason(err.Error())
}

// wireError turns a services refusal into the wire error.
func wireError(err error) error {
	var se *services.Error
	if !errors.As(err, &se) {
		return err
	}
	e := jsonrpc.NewError(se.Code, se.Message)
	if se.Reason != "" {
		e = e.WithReason(se.Reason)
	}
	return e
}

// onWireEvent journals what the connection noticed.
func (p *Plugin) onWireEvent(ev jsonrpc.Event) {
	switch ev.Kind {
	case jsonrpc.EventBadLine:
		p.journal.Write(journal.TagRefused, "stdout: not a JSON-RPC message: "+ev.Text)
	case jsonrpc.EventTooLong:
		p.journal.Write(journal.TagRefused, "stdout: a line past the 8 MiB limit: "+ev.Text)
	case jsonrpc.EventLate:
		p.journal.Write(journal.TagLate, ev.Method+": late answer ignored")
	case jsonrpc.EventUnknownResponse:
		p.journal.Write(journal.TagLate, "an answer to no call ignored (id "+ev.ID.String()+")")
	case jsonrpc.EventPeerError:
		p.journal.Write(journal.TagRefused, "the plugin answered an error to no call: "+ev.Text)
	}
}
