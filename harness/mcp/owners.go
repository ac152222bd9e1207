package mcp

import (
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// sessionHeader names the MCP session of a streamable HTTP request.
const sessionHeader = "Mcp-Session-Id"

// owners remembers which agent opened each MCP session, so that another
// agent's token on it is refused as a token (401: it does not open this
// session), before the SDK would answer 403.
type owners struct {
	mu    sync.Mutex
	byID  map[string]string // session id → user id of the token that opened it
	limit int               // sessions remembered at most; the oldest go first
	order []string
}

func newOwners() *owners { return &owners{byID: map[string]string{}, limit: 4096} }

// guard wraps the MCP handler: it refuses a session of another agent with
// 401 and notes the owner of each session it sees opened.
func (o *owners) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user := ""
		if info := auth.TokenInfoFromContext(r.Context()); info != nil {
			user = info.UserID
		}
		if id := r.Header.Get(sessionHeader); id != "" && !o.owns(id, user) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "this token does not open that session", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(&notingWriter{ResponseWriter: w, owners: o, user: user}, r)
	})
}

// owns reports whether user may use session id: it opened it, or the
// session is not known here (the SDK then says).
func (o *owners) owns(id, user string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	owner, known := o.byID[id]
	return !known || owner == user
}

func (o *owners) note(id, user string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, known := o.byID[id]; known {
		return
	}
	o.byID[id] = user
	o.order = append(o.order, id)
	if len(o.order) > o.limit {
		delete(o.byID, o.order[0])
		o.order = o.order[1:]
	}
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
