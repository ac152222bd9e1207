package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/services"
)

// ServiceEnv is what a per-instance service is bound to: the plugin as it
// was started, what the user granted and chose then, its journal and its
// connection.
type ServiceEnv struct {
	Manifest *manifest.Manifest
	Granted  manifest.Permissions
	// Settings are the values the user chose in the app.
	Settings map[string]json.RawMessage
	Journal  func(tag, text string)
	// Mask masks a secret value handed out in every later journal line.
	Mask func(secret string)
	// Peer is this instance's connection, open before the program's first
	// line is read: a service may notify the program from the start.
	Peer services.Peer
	// Attached gives the latest agent/attach params of an agent, by id.
	Attached func(agent string) (json.RawMessage, bool)
	// Home is the host's home folder.
	Home string
}

// ServiceMaker makes one service for one instance of a program; ctx ends
// with the instance.
type ServiceMaker func(ctx context.Context, env ServiceEnv) (services.Service, error)

// offer is one service the host makes for every instance of the kinds
// it is offered to: the built-in one to all, the module services to
// modules only (a program the OS runs has its own network, clock and disk, and gets
// -32601 for their methods).
type offer struct {
	modulesOnly bool
	make        ServiceMaker
}

// offers lists, in order, every service an instance may be given: one
// registration path for the host's own and the app's.
func (h *Host) offers() []offer {
	all := []offer{{make: h.builtinServer}}
	for _, make := range h.opts.ModuleServices {
		all = append(all, offer{modulesOnly: true, make: make})
	}
	return all
}

// builtinServer is the service every plugin gets: secrets/get,
// settings/get, log and files/read.
func (h *Host) builtinServer(_ context.Context, env ServiceEnv) (services.Service, error) {
	return &services.Server{
		PluginID: env.Manifest.ID,
		Dir:      env.Manifest.Dir,
		Keychain: h.opts.Keychain,
		Granted:  env.Granted,
		Declared: env.Manifest.Contributes.Settings,
		User:     env.Settings,
		Project:  h.opts.Projects,
		Journal:  env.Journal,
		Mask:     env.Mask,
	}, nil
}

// serviceSet is what one instance may ask of the host: the methods of its
// services, registered by the kind of its program, with the params check
// and the refusal journal applied once around them. Its services are made
// when the instance's connection opens (bind), before anything is read,
// and closed when the instance ends.
type serviceSet struct {
	p       *Plugin
	ctx     context.Context
	env     ServiceEnv
	module  bool
	conn    *jsonrpc.Conn
	methods map[string]services.Handler
	ordered map[string]bool // methods served in the order of the lines
	owned   []services.Service
}

// servicesFor prepares the services of a new instance; bind makes them.
func (p *Plugin) servicesFor(i *instance) *serviceSet {
	p.mu.Lock()
	granted, settings := p.granted, p.settings
	p.mu.Unlock()
	env := ServiceEnv{Manifest: i.manifest, Granted: granted, Settings: settings, Journal: p.journal.Write,
		Mask: p.journal.Mask, Attached: p.attached, Home: p.h.opts.Home}
	return &serviceSet{p: p, ctx: i.ctx, env: env, module: isModule(i.manifest.Run.Kind()),
		methods: map[string]services.Handler{}, ordered: map[string]bool{}}
}

// isModule reports whether programs of kind run inside the host.
func isModule(kind manifest.RunKind) bool {
	return kind == manifest.RunWASM || kind == manifest.RunJS
}

// bind makes the instance's services on its connection, which calls it
// before reading the program's first line (jsonrpc.Options.Bind): each is
// bound to the connection it serves and answers through it, now or later.
func (s *serviceSet) bind(conn *jsonrpc.Conn) {
	s.conn = conn
	s.env.Peer = conn
	for _, o := range s.p.h.offers() {
		if o.modulesOnly && !s.module {
			continue
		}
		svc, err := o.make(s.ctx, s.env)
		if err != nil {
			s.p.journal.Write(journal.TagRefused, "a service could not start: "+err.Error())
			continue
		}
		s.owned = append(s.owned, svc)
		for name, h := range svc.Methods() {
			s.methods[name] = h
		}
		if o, ok := svc.(services.Ordered); ok {
			for _, name := range o.InOrder() {
				s.ordered[name] = true
			}
		}
	}
}

// inOrder reports whether a method is served in the order of the lines;
// bind wrote the set before the first line was read.
func (s *serviceSet) inOrder(method string) bool { return s.ordered[method] }

// close releases what the services hold for the instance.
func (s *serviceSet) close() {
	for _, svc := range s.owned {
		if err := svc.Close(); err != nil {
			s.p.journal.Write(journal.TagRefused, "a service did not close cleanly: "+err.Error())
		}
	}
}

// handle serves one request or notification of the program. A handler
// that answers later (services.Later) frees the connection at once: the
// answer goes through Respond when it comes, journaled the same way. A
// handler that panics answers -32603 and is journaled: it never takes the
// host down.
func (s *serviceSet) handle(ctx context.Context, m *jsonrpc.Message) (result any, err error) {
	handler, ok := s.methods[m.Method]
	if !ok {
		handler = services.NoSuchMethod
	} else if err := s.p.checkParams(m); err != nil {
		return nil, err
	}
	defer func() {
		if v := recover(); v != nil {
			s.p.journal.Write(journal.TagRefused, fmt.Sprintf("%s: the host failed serving it: %v; %s", m.Method, v, firstFrame(debug.Stack())))
			result, err = nil, jsonrpc.ErrInternal
		}
	}()
	method, id := m.Method, m.ID
	result, err, now := services.Serve(ctx, handler, m.Params, func(result any, err error) {
		_ = s.conn.Respond(id, result, s.refused(method, err)) // ErrClosed: the instance ended first
	})
	if !now {
		return nil, jsonrpc.ErrAsyncResponse
	}
	return result, s.refused(method, err)
}

// refused journals a refusal and turns it into the wire error; nil stays
// nil.
func (s *serviceSet) refused(method string, err error) error {
	if err == nil {
		return nil
	}
	s.p.journal.Write(journal.TagRefused, services.RefusalLine(method, err))
	return wireError(err)
}

// firstFrame is the first line of a stack that is not the runtime's or
// this file's, to say where a handler panicked.
func firstFrame(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for k, l := range lines {
		if strings.HasPrefix(l, "panic(") && k+2 < len(lines) {
			return strings.TrimSpace(lines[k+2])
		}
	}
	return "no stack"
}

// checkParams validates the params of a request the host serves against
// the protocol schema (-32602 naming the field). Notifications (log) are
// left to their service: no answer can carry a refusal, so it keeps what it
// can of them and journals the rest.
func (p *Plugin) checkParams(m *jsonrpc.Message) error {
	meth, ok := protocol.Lookup(m.Method)
	if !ok || meth.Direction != protocol.DirPluginToHost || m.IsNotification() {
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
	case jsonrpc.EventBound:
		p.journal.Write(journal.TagRefused, ev.Text)
	case jsonrpc.EventAnswerTooLong:
		p.journal.Write(journal.TagRefused, ev.Method+": "+ev.Text)
	case jsonrpc.EventHandlerPanic:
		p.journal.Write(journal.TagRefused, fmt.Sprintf("%s: the host failed serving it: %s", ev.Method, ev.Text))
	}
}
