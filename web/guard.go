package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// SecretHeader carries the start's secret on every change.
const SecretHeader = "X-Escouade-Secret"

// SecretParam carries the secret in the URL the command prints.
const SecretParam = "secret"

// NewSecret makes the secret of one start: 32 random bytes, URL-safe.
func NewSecret() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// URL is the address to open: the page with the start's secret.
func URL(addr, secret string) string {
	return "http://" + addr + "/?" + SecretParam + "=" + url.QueryEscape(secret)
}

// guard refuses what does not come from this start's page, then hands the
// request to next:
//   - the Host header must be the loopback address the connection came to
//     (or localhost with its port): a page of another site whose name
//     resolves to 127.0.0.1 (DNS rebinding) is refused;
//   - the secret must be there: in the URL (then kept in a cookie, and the
//     URL cleaned), in the cookie, or in the header;
//   - a change (any method but GET and HEAD) must carry the secret in the
//     header, which no other site's page can set without our consent, and
//     no Origin but ours.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w)
		if !hostAllowed(r) {
			http.Error(w, "refused: the Host header "+quote(r.Host)+" is not the loopback address this view serves", http.StatusMisdirectedRequest)
			return
		}
		if v := r.URL.Query().Get(SecretParam); v != "" && s.secretOK(v) && isRead(r) {
			s.setCookie(w, r)
			clean := *r.URL
			q := clean.Query()
			q.Del(SecretParam)
			clean.RawQuery = q.Encode()
			http.Redirect(w, r, clean.RequestURI(), http.StatusSeeOther)
			return
		}
		if !isRead(r) {
			if !s.secretOK(r.Header.Get(SecretHeader)) {
				http.Error(w, "refused: a change needs the secret of this start in the "+SecretHeader+" header", http.StatusForbidden)
				return
			}
			if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
				http.Error(w, "refused: a change from another origin ("+quote(o)+")", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if !s.secretOK(r.Header.Get(SecretHeader)) && !s.cookieOK(r) {
			http.Error(w, "refused: open the address escouade-plugin serve printed; it holds the secret of this start", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func isRead(r *http.Request) bool { return r.Method == http.MethodGet || r.Method == http.MethodHead }

func (s *Server) secretOK(v string) bool {
	return v != "" && subtle.ConstantTimeCompare([]byte(v), []byte(s.secret)) == 1
}

// cookieName holds the port: browsers share cookies between the ports of
// one host, and two views may run side by side.
func cookieName(r *http.Request) string {
	_, port, _ := net.SplitHostPort(r.Host)
	return "escouade_view_" + port
}

func (s *Server) setCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName(r), Value: s.secret, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
}

func (s *Server) cookieOK(r *http.Request) bool {
	c, err := r.Cookie(cookieName(r))
	return err == nil && s.secretOK(c.Value)
}

// hostAllowed reports whether the Host header is one of the spellings of
// the loopback address the request was accepted on: the address as Go
// writes it (127.0.0.1:7777, [::1]:7777) or localhost:7777, byte for byte.
// Every other spelling of the same address (an IPv4-mapped IPv6 literal, a
// trailing dot, upper case, zero-padded or decimal-integer IPs, brackets
// round IPv4, a zone) is refused: no browser sends one for the printed
// address, and a lenient parse is what DNS rebinding tricks lean on.
func hostAllowed(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	tcp, ok := local.(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return false
	}
	return slices.Contains(hostSpellings(tcp), r.Host)
}

// hostSpellings are the Host headers accepted for a view listening on
// addr. Port 80 may also come without it, as HTTP allows.
func hostSpellings(addr *net.TCPAddr) []string {
	port := itoa(addr.Port)
	ip := addr.IP.String()
	out := []string{net.JoinHostPort(ip, port), net.JoinHostPort("localhost", port)}
	if addr.Port == 80 {
		if strings.Contains(ip, ":") {
			ip = "[" + ip + "]"
		}
		out = append(out, ip, "localhost")
	}
	return out
}

func setSecurityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
}
