//go:build linux

package hardening

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// largeBodyBundle answers big/get {url} with the size of the body its
// fetch's arrayBuffer() read and three of its bytes, or the failure's text.
const largeBodyBundle = `import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
createInterface({ input: process.stdin }).on('line', async (l) => {
  const m = JSON.parse(l);
  if (m.method === 'initialize') return send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1 } });
  if (m.method !== 'big/get') return;
  try {
    const b = new Uint8Array(await (await fetch(m.params.url)).arrayBuffer());
    send({ jsonrpc: '2.0', id: m.id, result: { size: b.length, first: b[0], middle: b[5 << 20], last: b[b.length - 1] } });
  } catch (e) {
    send({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: e.cause ? e.cause.message : String(e), data: { reason: e.cause && e.cause.data ? e.cause.data.reason : '' } } });
  }
});
`

// A bundle's fetch reads a body past the 4 MiB a net/fetch answer carries
// through net/stream, within its limits.netMaxBytes: 10 MiB of bytes that
// are not UTF-8 arrive whole; a body past netMaxBytes still fails.
func TestAFetchReadsALargeBodyThroughNetStream(t *testing.T) {
	body := make([]byte, 10<<20)
	for i := range body {
		body[i] = byte(i % 251)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := len(body)
		if r.URL.Path == "/huge" {
			n = 12 << 20
		}
		w.Header().Set("Content-Length", strconv.Itoa(n))
		for sent := 0; sent < n; sent += len(body) {
			_, _ = w.Write(body[:min(len(body), n-sent)])
		}
	}))
	defer srv.Close()
	dir := plugin{
		id:    "dev.escouade.hardening.large-body",
		files: map[string]string{"dist/plugin.mjs": largeBodyBundle},
		manifest: map[string]any{
			"name": "large-body", "run": map[string]any{"js": "dist/plugin.mjs"},
			"permissions": map[string]any{"network": []string{"local:shared"}},
			"limits":      map[string]any{"netMaxBytes": 11 << 20},
		},
	}.write(t)
	s := run(t, dir, "--shared-host", strings.TrimPrefix(srv.URL, "http://"), "--delay", "big/get=120s")
	defer s.close()
	a := s.call("big", "big/get", map[string]any{"url": srv.URL + "/big"})
	res, _ := a["result"].(map[string]any)
	want := map[string]any{"size": float64(10 << 20), "first": float64(0), "middle": float64((5 << 20) % 251), "last": float64((10<<20 - 1) % 251)}
	for k, v := range want {
		if res[k] != v {
			t.Errorf("big/get: %s = %v, want %v (answer %v)", k, res[k], v, a)
		}
	}
	a = s.call("huge", "big/get", map[string]any{"url": srv.URL + "/huge"})
	e, _ := a["error"].(map[string]any)
	if msg, _ := e["message"].(string); !strings.Contains(msg+" "+toString(e["data"]), "over the limit of 11534336 bytes") {
		t.Errorf("huge/get: %v, want the limit of netMaxBytes", a)
	}
}

func toString(v any) string {
	m, _ := v.(map[string]any)
	r, _ := m["reason"].(string)
	return r
}
