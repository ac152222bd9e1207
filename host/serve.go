package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"github.com/escouade-dev/escouade-plugin/host/transport"
	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/services"
)

// ServiceEnv is what a per-instance service is bound to: the plugin as it
// was started, what the user granted then, its journal and its connection.
type ServiceEnv struct {
	Manifest *manifest.Manifest
	Granted  manifest.Permissions
	Journal  func(tag, text string)
	// Peer sends notifications to this instance of the program.
	Peer services.Peer
	// Attached gives the latest agent/attach params of an agent, by id.
	Attached func(agent string) (json.RawMessage, bool)
	// Home is the host's home folder.
	Home string
}

// ServiceMaker makes one service for one instance of a program; ctx ends
// with the instance.
type ServiceMaker func(ctx context.Context, env ServiceEnv) (services.Service, error)

// serviceSet is what one instance may ask of the host: the methods of its
// services, registered by the kind of its program, with the params check
// and the refusal journal applied once around them. It closes the services
// when the instance ends.
type serviceSet struct {
	p       *Plugin
	methods map[string]services.Handler
	owned   []services.Service
	peer    *connPeer
}

// servicesFor binds the services of a new instance: those every plugin
// gets, and for a module (run.wasm, run.js) the module-only ones.
func (p *Plugin) servicesFor(i *instance, spec transport.LaunchSpec) *serviceSet {
	p.mu.Lock()
	granted, settings := p.granted, p.settings
	p.mu.Unlock()
	set := &serviceSet{p: p, methods: map[string]services.Handler{}, peer: newConnPeer()}
	set.add(&services.Server{
		PluginID: spec.Manifest.ID,
		Dir:      spec.Manifest.Dir,
		Keychain: p.h.opts.Keychain,
		Granted:  granted,
		Declared: spec.Manifest.Contributes.Settings,
		User:     settings,
		Project:  p.h.opts.Projects,
		Journal:  p.journal.Write,
		Mask:     p.journal.Mask,
	})
	if isModule(spec.Manifest.Run.Kind()) {
		env := ServiceEnv{Manifest: spec.Manifest, Granted: granted, Journal: p.journal.Write, Peer: set.peer, Attached: p.attached, Home: p.h.opts.Home}
		for _, make := range p.h.opts.ModuleServices {
			svc, err := make(i.ctx, env)
			if err != nil {
				p.journal.Write(journal.TagRefused, "a service could not start: "+err.Error())
				continue
			}
			set.add(svc)
		}
	}
	return set
}

// isModule reports whether programs of kind run inside the host.
func isModule(kind manifest.RunKind) bool {
	return kind == manifest.RunWASM || kind == manifest.RunJS
}

func (s *serviceSet) add(svc services.Service) {
	s.owned = append(s.owned, svc)
	for name, h := range svc.Methods() {
		s.methods[name] = h
	}
}

// bind gives the services their connection.
func (s *serviceSet) bind(conn *jsonrpc.Conn) { s.peer.bind(conn) }

// close releases what the services hold for the instance.
func (s *serviceSet) close() {
	for _, svc := range s.owned {
		if err := svc.Close(); err != nil {
			s.p.journal.Write(journal.TagRefused, "a service did not close cleanly: "+err.Error())
		}
	}
}

// handle serves one request or notification of the program. A handler that
// panics answers -32603 and is journaled: it never takes the host down.
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
	result, err = handler(ctx, m.Params)
	if err != nil {
		s.p.journal.Write(journal.TagRefused, services.RefusalLine(m.Method, err))
	}
	return result, wireError(err)
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

// connPeer is the services' end of an instance's connection. The
// connection binds it before it reads anything (jsonrpc.Options.Bind), so a
// handler always finds it set; only a service that notified while it was
// being made would not.
type connPeer struct{ conn atomic.Pointer[jsonrpc.Conn] }

func newConnPeer() *connPeer { return &connPeer{} }

func (c *connPeer) bind(conn *jsonrpc.Conn) { c.conn.Store(conn) }

// errNotConnected refuses a notification sent before the connection opened.
var errNotConnected = errors.New("the program's connection is not open yet")

// Notify sends a notification to the program.
func (c *connPeer) Notify(method string, params any) error {
	conn := c.conn.Load()
	if conn == nil {
		return errNotConnected
	}
	return conn.Notify(method, params)
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
