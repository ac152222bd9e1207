package mcp

import (
	"net/http"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionHeader names the MCP session of a streamable HTTP request.
const sessionHeader = "Mcp-Session-Id"

// owners remembers which agent opened each live MCP session, so that
// another agent's token on it is refused as a token (401: it does not open
// this session), before the SDK would answer 403. It also bounds the
// sessions of each agent: opening one more than max closes its oldest.
// A session is forgotten once it ends, never while it lives.
type owners struct {
	max  int
	find func(user, id string) *sdk.ServerSession // the live session, or nil

	mu     sync.Mutex
	byID   map[string]string   // session id → user id of the token that opened it
	byUser map[string][]string // user id → its session ids, oldest first
}

func newOwners(max int, find func(user, id string) *sdk.ServerSession) *owners {
	return &owners{max: max, find: find, byID: map[string]string{}, byUser: map[string][]string{}}
}

// guard wraps the MCP handler: it refuses with 401 a token whose agent was
// revoked since the token check, and a session of another agent; and it
// notes the owner of each session it sees opened.
func (o *owners) guard(next http.Handler, live func(user string) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user := ""
		if info := auth.TokenInfoFromContext(r.Context()); info != nil {
			user = info.UserID
		}
		if !live(user) {
			unauthorized(w, "unknown or revoked token")
			return
		}
		if id := r.Header.Get(sessionHeader); id != "" && !o.owns(id, user) {
			unauthorized(w, "this token does not open that session")
			return
		}
		next.ServeHTTP(&notingWriter{ResponseWriter: w, owners: o, user: user}, r)
	})
}

func unauthorized(w http.ResponseWriter, why string) {
	w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	http.Error(w, why, http.StatusUnauthorized)
}

// owns reports whether user may use session id: it opened it, or the
// session is not a live one (the SDK then answers 404).
func (o *owners) owns(id, user string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	owner, known := o.byID[id]
	return !known || owner == user
}

// note records that user opened session id; past max sessions of user,
// the oldest is closed.
func (o *owners) note(id, user string) {
	o.mu.Lock()
	if _, known := o.byID[id]; known {
		o.mu.Unlock()
		return
	}
	o.byID[id] = user
	o.byUser[user] = append(o.byUser[user], id)
	var evicted []string
	if ids := o.byUser[user]; len(ids) > o.max {
		evicted = slices.Clone(ids[:len(ids)-o.max])
	}
	o.mu.Unlock()
	// A session not found yet stays noted (the bound above keeps such
	// entries few): forgetting a live one would let another token reach it.
	if ss := o.find(user, id); ss != nil {
		go func() {
			ss.Wait()
			o.forget(id)
		}()
	}
	for _, old := range evicted {
		if ss := o.find(user, old); ss != nil {
			ss.Close() // its Wait then forgets it
		} else {
			o.forget(old)
		}
	}
}

// forget drops an ended session.
func (o *owners) forget(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	user, known := o.byID[id]
	if !known {
		return
	}
	delete(o.byID, id)
	o.byUser[user] = slices.DeleteFunc(o.byUser[user], func(s string) bool { return s == id })
	if len(o.byUser[user]) == 0 {
		delete(o.byUser, user)
	}
}

// sessions counts the live sessions of user known here.
func (o *owners) sessions(user string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.byUser[user])
}

// notingWriter notes the session id a response gives, with its user.
type notingWriter struct {
	http.ResponseWriter
	owners *owners
	user   string
	noted  bool
}

func (w *notingWriter) WriteHeader(code int) {
	w.noteSession()
	w.ResponseWriter.WriteHeader(code)
}

func (w *notingWriter) Write(b []byte) (int, error) {
	w.noteSession()
	return w.ResponseWriter.Write(b)
}

// Flush keeps streaming responses streaming.
func (w *notingWriter) Flush() {
	w.noteSession()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *notingWriter) noteSession() {
	if w.noted {
		return
	}
	w.noted = true
	if id := w.Header().Get(sessionHeader); id != "" {
		w.owners.note(id, w.user)
	}
}
