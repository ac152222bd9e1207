//go:build linux

package hardening

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The view answers only the Host spellings its docs name: the loopback
// address it listens on as printed, or localhost, with the port. Other
// spellings of the same address are refused with 421 and a sentence.
func TestViewRefusesOddHostSpellings(t *testing.T) {
	v := serveHome(t, t.TempDir())
	u, _ := url.Parse(v.base)
	port := u.Port()
	get := func(host string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, v.base+"/", nil)
		req.Host = host
		return v.send(t, req)
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port} {
		if code, _ := get(host); code != http.StatusOK {
			t.Errorf("Host %s: %d, want 200", host, code)
		}
	}
	for _, host := range []string{
		"[::ffff:127.0.0.1]:" + port, "[::ffff:7f00:1]:" + port, "[127.0.0.1]:" + port,
		"127.0.0.1.:" + port, "localhost.:" + port, "LOCALHOST:" + port,
		"127.000.000.001:" + port, "0177.0.0.1:" + port, "2130706433:" + port, "127.1:" + port,
		"127.0.0.1:0" + port, "evil.example:" + port,
	} {
		code, body := get(host)
		if code != http.StatusMisdirectedRequest || !strings.Contains(body, "is not the loopback address this view serves") {
			t.Errorf("Host %s: %d %q, want 421 and the rule", host, code, body)
		}
	}
}
