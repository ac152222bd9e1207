package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/net/netutil"
)

// Defaults of [Options].
const (
	DefaultAddr    = "127.0.0.1:0"
	DefaultVersion = "dev"
	// DefaultHeaderTimeout bounds the reading of a request's headers: a
	// connection that sends none (or a byte at a time) is closed, so that
	// half-open connections cannot pile up.
	DefaultHeaderTimeout = 10 * time.Second
	// DefaultIdleTimeout closes a kept-alive connection with no request in
	// flight. Streams (an open GET, a call waiting for the user) are
	// requests in flight, never idle.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultMaxConns bounds the connections served at once; more wait to
	// be accepted.
	DefaultMaxConns = 256
	// DefaultMaxSessions bounds the MCP sessions of one token: opening one
	// more closes the agent's oldest.
	DefaultMaxSessions = 8
)

// maxHeaderBytes bounds a request's headers: a bearer token and MCP's few
// headers need far less.
const maxHeaderBytes = 64 << 10

// ServerName is the name the server goes by, in serverInfo and in the
// session's mcpServers entry.
const ServerName = "escouade"

// endpointPath is where MCP is served; every other path is 404 (after the
// token check, so that nothing is told to a caller without a token).
const endpointPath = "/mcp"

// An Asker shows a question card for agent and waits for the user's answers:
// one list of chosen labels (or typed text) per question, in order.
// questions is the "questions" value of the tool call, as the agent sent it.
// It must return once ctx ends (the agent revoked, the call cancelled, the
// server closed), with ctx's error: Revoke and Close wait for it.
type Asker func(ctx context.Context, agent string, questions json.RawMessage) (answers [][]string, err error)

// Options configures [Start]. The zero value, but for Ask, means the
// documented defaults.
type Options struct {
	// Addr is the "host:port" to listen on; default DefaultAddr. The host
	// must be a loopback IP or localhost: anything else is refused.
	Addr string
	// Ask answers the tool ask_question. Required.
	Ask Asker
	// Version is the serverInfo version; default DefaultVersion.
	Version string
	// HeaderTimeout, IdleTimeout, MaxConns and MaxSessions: zero means
	// DefaultHeaderTimeout, DefaultIdleTimeout, DefaultMaxConns and
	// DefaultMaxSessions.
	HeaderTimeout time.Duration
	IdleTimeout   time.Duration
	MaxConns      int
	MaxSessions   int
}

func (o Options) withDefaults() Options {
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	if o.Version == "" {
		o.Version = DefaultVersion
	}
	o.HeaderTimeout = cmp.Or(o.HeaderTimeout, DefaultHeaderTimeout)
	o.IdleTimeout = cmp.Or(o.IdleTimeout, DefaultIdleTimeout)
	o.MaxConns = cmp.Or(o.MaxConns, DefaultMaxConns)
	o.MaxSessions = cmp.Or(o.MaxSessions, DefaultMaxSessions)
	return o
}

// Server is the running MCP server. Its methods are safe for concurrent use.
type Server struct {
	opts   Options
	url    string
	agents *registry
	http   *http.Server

	served   chan struct{} // closed when the HTTP server's Serve returns
	serveErr error         // Serve's error, read after served is closed

	closeOnce sync.Once
	closeErr  error

	tokenDirOnce sync.Once // the folder of token files for stdio bridges
	tokenDir     string
	tokenDirErr  error
	tokenFiles   tokenFiles // the files no bridge read yet, by agent
}

// Start listens on opts.Addr and serves MCP until [Server.Close]. ctx bounds
// the start only.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	opts = opts.withDefaults()
	if opts.Ask == nil {
		return nil, errors.New("mcp: Options.Ask is nil")
	}
	if err := checkLoopbackAddr(opts.Addr); err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	if err := checkListener(ln); err != nil {
		ln.Close()
		return nil, fmt.Errorf("mcp: %w", err)
	}
	s := &Server{
		opts:   opts,
		url:    "http://" + ln.Addr().String() + endpointPath,
		agents: newRegistry(),
		served: make(chan struct{}),
	}
	s.http = &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: opts.HeaderTimeout,
		IdleTimeout:       opts.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
	go s.serve(netutil.LimitListener(ln, opts.MaxConns))
	return s, nil
}

func (s *Server) serve(ln net.Listener) {
	defer close(s.served)
	if err := s.http.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		s.serveErr = err
	}
}

// handler checks the bearer token, then hands the request to the SDK's
// streamable transport, which serves the token's agent.
func (s *Server) handler() http.Handler {
	mcpHandler := sdk.NewStreamableHTTPHandler(s.agentServer, nil)
	mux := http.NewServeMux()
	mux.Handle(endpointPath, newOwners(s.opts.MaxSessions, s.agentSession).guard(mcpHandler, s.live))
	requireToken := auth.RequireBearerToken(s.verifyToken, &auth.RequireBearerTokenOptions{
		// Tokens live until revoked; they carry no expiry.
		AllowMissingExpiration: true,
	})
	return requireToken(mux)
}

// agentServer is the SDK's getServer: the MCP server of the agent whose
// token the request carries, or nil when it was revoked meanwhile (the
// guard answers 401 before, but a revocation can fall in between).
func (s *Server) agentServer(r *http.Request) *sdk.Server {
	a := s.agents.byUserID(auth.TokenInfoFromContext(r.Context()))
	if a == nil {
		return nil
	}
	return a.mcp
}

// agentSession is the live MCP session id of the agent user speaks for,
// or nil.
func (s *Server) agentSession(user, id string) *sdk.ServerSession {
	a := s.agents.byUserID(&auth.TokenInfo{UserID: user})
	if a == nil {
		return nil
	}
	for ss := range a.mcp.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	return nil
}

// live tells whether the agent user speaks for still holds a token.
func (s *Server) live(user string) bool {
	return s.agents.byUserID(&auth.TokenInfo{UserID: user}) != nil
}

// URL is the MCP endpoint, e.g. "http://127.0.0.1:43123/mcp".
func (s *Server) URL() string { return s.url }

// Close stops the server: pending questions are cancelled, sessions closed,
// connections closed. It returns once the server has stopped serving.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.agents.closeAll()
		if s.tokenDir != "" {
			os.RemoveAll(s.tokenDir) // token files no bridge read
		}
		err := s.http.Close()
		<-s.served
		s.closeErr = errors.Join(err, s.serveErr)
	})
	return s.closeErr
}
