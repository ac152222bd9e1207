package mcp

import "net/http"

// bearer adds the agent's token to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// withBearer is a copy of c (default: a client that never uses a proxy,
// so the token goes straight to loopback) that sends token.
func withBearer(c *http.Client, token string) *http.Client {
	var out http.Client
	if c != nil {
		out = *c
	}
	base := out.Transport
	if base == nil {
		direct := http.DefaultTransport.(*http.Transport).Clone()
		direct.Proxy = nil
		base = direct
	}
	out.Transport = bearer{token: token, base: base}
	return &out
}
