package mcp

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Why an agent's pending questions were cancelled.
var (
	errRevoked      = errors.New("the agent's token was revoked")
	errServerClosed = errors.New("the MCP server was closed")
)

// userIDPrefix makes every agent's SDK user id non-empty: the SDK only
// binds a session to its user when the id is not "", and an agent may be
// named "".
const userIDPrefix = "agent:"

// agent is what the server holds for one agent: its live token and its own
// MCP server, whose tool handlers know the agent by name.
type agent struct {
	name   string
	token  string
	mcp    *sdk.Server
	ctx    context.Context // ends, with a cause, when the agent is revoked
	cancel context.CancelCauseFunc
}

// stop cancels the agent's pending tool calls, then closes its sessions
// (closing a session waits for its calls to return).
func (a *agent) stop(cause error) {
	a.cancel(cause)
	for ss := range a.mcp.Sessions() {
		ss.Close()
	}
}

// digest is what tokens are looked up by: a map lookup on the digest does
// not compare the token's bytes one by one, so timing tells nothing of it.
type digest [sha256.Size]byte

func digestOf(token string) digest { return sha256.Sum256([]byte(token)) }

// registry holds the live agents, by name and by token digest.
type registry struct {
	root   context.Context // parent of every agent's ctx; ends at Close
	cancel context.CancelCauseFunc

	mu       sync.Mutex
	closed   bool
	byName   map[string]*agent
	byDigest map[digest]*agent
}

func newRegistry() *registry {
	root, cancel := context.WithCancelCause(context.Background())
	return &registry{
		root:     root,
		cancel:   cancel,
		byName:   make(map[string]*agent),
		byDigest: make(map[digest]*agent),
	}
}

// issue gives agent name the token, replacing its previous one, or, with
// keep, returns the token it already has. newServer builds a new agent's
// MCP server. Once closed, the token is returned but opens nothing.
func (r *registry) issue(name, token string, keep bool, newServer func(*agent) *sdk.Server) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return token
	}
	a := r.byName[name]
	switch {
	case a != nil && keep:
		return a.token
	case a != nil:
		delete(r.byDigest, digestOf(a.token))
	default:
		a = &agent{name: name}
		a.ctx, a.cancel = context.WithCancelCause(r.root)
		a.mcp = newServer(a)
		r.byName[name] = a
	}
	a.token = token
	r.byDigest[digestOf(token)] = a
	return token
}

// revoke forgets agent name and returns it, or nil if it had no token.
func (r *registry) revoke(name string) *agent {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.byName[name]
	if a == nil {
		return nil
	}
	delete(r.byName, name)
	delete(r.byDigest, digestOf(a.token))
	return a
}

// byToken is the live agent holding token, or nil.
func (r *registry) byToken(token string) *agent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byDigest[digestOf(token)]
}

// byUserID is the live agent a verified request speaks for, or nil.
func (r *registry) byUserID(info *auth.TokenInfo) *agent {
	if info == nil {
		return nil
	}
	name, ok := strings.CutPrefix(info.UserID, userIDPrefix)
	if !ok {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byName[name]
}

// closeAll forgets every agent, so that no request gets past the token
// check any more, and stops them.
func (r *registry) closeAll() {
	r.cancel(errServerClosed)
	r.mu.Lock()
	r.closed = true
	agents := make([]*agent, 0, len(r.byName))
	for _, a := range r.byName {
		agents = append(agents, a)
	}
	clear(r.byName)
	clear(r.byDigest)
	r.mu.Unlock()
	for _, a := range agents {
		a.stop(errServerClosed)
	}
}
