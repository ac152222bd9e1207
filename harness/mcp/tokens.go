package mcp

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// tokenBytes is the entropy of a token: 256 bits.
const tokenBytes = 32

// NewToken gives agent a new bearer token (32 random bytes, base64url
// without padding) and returns it. It replaces the agent's previous token,
// which then gets 401; the agent's open MCP sessions stay usable with the
// new token.
func (s *Server) NewToken(agent string) string {
	return s.agents.issue(agent, newToken(), false, s.newAgentServer)
}

// liveToken is the agent's token, issued now if it has none.
func (s *Server) liveToken(agent string) string {
	return s.agents.issue(agent, newToken(), true, s.newAgentServer)
}

// Revoke ends agent's token: its requests get 401 from now on, its pending
// questions are cancelled and its MCP sessions closed. Revoking an agent
// without a token does nothing.
func (s *Server) Revoke(agent string) {
	if a := s.agents.revoke(agent); a != nil {
		a.stop(errRevoked)
	}
	s.tokenFiles.remove(agent) // a revoked token has nothing left to carry
}

// tokenFiles remembers the token files written for each agent, so that
// Revoke removes those no bridge read (an agent that took the HTTP form).
type tokenFiles struct {
	mu      sync.Mutex
	byAgent map[string][]string
}

func (t *tokenFiles) add(agent, path string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byAgent == nil {
		t.byAgent = map[string][]string{}
	}
	t.byAgent[agent] = append(t.byAgent[agent], path)
}

func (t *tokenFiles) remove(agent string) {
	t.mu.Lock()
	paths := t.byAgent[agent]
	delete(t.byAgent, agent)
	t.mu.Unlock()
	for _, p := range paths {
		os.Remove(p) // already gone when its bridge read it
	}
}

func newToken() string {
	b := make([]byte, tokenBytes)
	rand.Read(b) // never fails (crypto/rand documents it)
	return base64.RawURLEncoding.EncodeToString(b)
}

// verifyToken is the SDK's bearer token check: a live agent's token, else
// auth.ErrInvalidToken (401).
func (s *Server) verifyToken(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	a := s.agents.byToken(token)
	if a == nil {
		return nil, fmt.Errorf("%w: unknown or revoked token", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{UserID: userIDPrefix + a.name}, nil
}
