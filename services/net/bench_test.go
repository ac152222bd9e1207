package net

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// The guard's cost on a fetch: the same 1 KiB GET against the same
// loopback TLS server, through net/fetch (URL judged, name resolved by an
// injected resolver, address judged in Control, params and answer in
// JSON shapes) and with a plain net/http client. Both reuse connections,
// as a plugin's fetches to one host do.
//
//	go test -run XXX -bench Fetch -benchmem ./services/net/

func benchServer(b *testing.B) *httptest.Server {
	body := make([]byte, 1024)
	for i := range body {
		body[i] = 'a'
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	b.Cleanup(srv.Close)
	return srv
}

func BenchmarkFetchGuarded(b *testing.B) {
	srv := benchServer(b)
	connect := &redirectConnect{to: srv.Listener.Addr().String()}
	s, err := New(Config{PluginID: pluginID,
		Granted:  manifest.Permissions{Network: []string{"example.com"}},
		Resolver: &fakeResolver{answers: map[string][]string{"example.com": {publicAddr}}},
		Connect:  connect.connect, TLS: trust(srv)})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	params := []byte(`{"url":"https://example.com/bench"}`)
	fetch := s.Methods()["net/fetch"]
	b.ResetTimer()
	for b.Loop() {
		got, err := services.Call(b.Context(), fetch, params)
		if err != nil || len(got.(proto.FetchResult).Body) != 1024 {
			b.Fatalf("%v %v", got, err)
		}
	}
}

func BenchmarkFetchDirect(b *testing.B) {
	srv := benchServer(b)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: trust(srv), ForceAttemptHTTP2: true}}
	defer client.CloseIdleConnections()
	url := fmt.Sprintf("https://%s/bench", srv.Listener.Addr())
	b.ResetTimer()
	for b.Loop() {
		resp, err := client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || len(data) != 1024 {
			b.Fatalf("%d bytes, %v", len(data), err)
		}
	}
}
