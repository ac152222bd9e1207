package kit

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// session is one Serve: it routes the host's messages to the plugin's
// handlers and tells Serve when shutdown has come.
type session struct {
	plugin *Plugin
	// shutdown is closed when the host asks the plugin to stop.
	shutdown     chan struct{}
	shutdownOnce sync.Once
	// ctx is the parent of the connection's handler contexts: it ends when
	// Serve stops, so handlers stop with it.
	ctx  context.Context
	stop context.CancelFunc
	// ready is closed once the plugin is connected, so that a handler
	// never runs before it can call the host.
	ready chan struct{}
}

func newSession(ctx context.Context, p *Plugin) *session {
	ctx, stop := context.WithCancel(ctx)
	return &session{plugin: p, shutdown: make(chan struct{}), ctx: ctx, stop: stop, ready: make(chan struct{})}
}

// waitEnd waits until shutdown has come, the connection has ended or ctx
// has; it returns ctx's error in the last case.
func (s *session) waitEnd(ctx context.Context, conn *jsonrpc.Conn) error {
	select {
	case <-s.shutdown:
		return nil
	case <-conn.Done():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// handle is the jsonrpc.Conn handler of every request and notification.
func (s *session) handle(ctx context.Context, m *jsonrpc.Message) (result any, err error) {
	<-s.ready // ctx is the connection's, a child of s.ctx: it ends with Serve
	defer s.recoverPanic(m.Method, &err)
	return s.route(ctx, m)
}

// route sends a message to the kit's own method or to the plugin's handler.
func (s *session) route(ctx context.Context, m *jsonrpc.Message) (any, error) {
	p := s.plugin
	switch {
	case m.Method == methodInitialize:
		return s.initialize(m.Params)
	case m.Method == methodShutdown:
		// Serve stops taking messages, and its answer, null, goes out
		// with those of the calls under way before the connection closes.
		s.shutdownOnce.Do(func() { close(s.shutdown) })
		return nil, nil
	case m.Method == methodAttach:
		p.waits.enter(m.Method)
		defer p.waits.leave(m.Method)
		return call(ctx, p.attachHandler(), m)
	case m.Method == methodTimerFired:
		p.timerFired(m.Params)
		return nil, nil
	case strings.HasPrefix(m.Method, eventPrefix):
		if fn := p.lookupEvent(strings.TrimPrefix(m.Method, eventPrefix)); fn != nil {
			p.waits.enter(m.Method)
			defer p.waits.leave(m.Method)
			fn(ctx, m.Params)
		}
		return nil, nil
	default:
		p.waits.enter(m.Method)
		defer p.waits.leave(m.Method)
		return call(ctx, p.lookup(m.Method), m)
	}
}

// call runs fn, or refuses a method nobody registered.
func call(ctx context.Context, fn HandlerFunc, m *jsonrpc.Message) (any, error) {
	if fn == nil {
		return nil, jsonrpc.ErrMethodNotFound.WithReason("no such method: " + m.Method)
	}
	return fn(ctx, m.Params)
}

// initialize records the host's params and answers the kit's version and
// capabilities.
func (s *session) initialize(params json.RawMessage) (any, error) {
	init, err := decodeInit(params)
	if err != nil {
		return nil, err
	}
	s.plugin.setInit(init)
	return initResult{ProtocolVersion: ProtocolVersion, Capabilities: s.plugin.capabilities()}, nil
}

// recoverPanic turns a handler's panic into -32603 and a stderr trace, so
// that one bad call does not kill the plugin and every call under way.
func (s *session) recoverPanic(method string, err *error) {
	v := recover()
	if v == nil {
		return
	}
	s.plugin.tracef("%s panicked: %v\n%s", method, v, debug.Stack())
	*err = fmt.Errorf("%w: %s panicked", jsonrpc.ErrInternal, method)
}

// trace writes what the connection reports on stderr, where the host
// journals it.
func (s *session) trace(e jsonrpc.Event) {
	switch {
	case e.Text != "":
		s.plugin.tracef("%s from the host: %s", e.Kind, e.Text)
	case e.Method != "":
		s.plugin.tracef("%s to %s (id %s)", e.Kind, e.Method, e.ID)
	default:
		s.plugin.tracef("%s (id %s)", e.Kind, e.ID)
	}
}
