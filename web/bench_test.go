package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// BenchmarkListPage renders the list of 20 installed plugins, as each
// visit and each plugin that comes or goes does.
func BenchmarkListPage(b *testing.B) {
	home := b.TempDir()
	for i := range 20 {
		m := strings.Replace(fixtureManifest("1.0.0"), fixtureID, fixtureID+itoa(i), 1)
		installed(b, home, pluginFolder(b, m))
	}
	srv, err := New(Options{Host: host.Options{Home: home, Keychain: keychain.NewMemory(),
		Transports: map[manifest.RunKind]transport.Transport{manifest.RunProcess: modules.ProcessTransport(0)}}})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close(b.Context())
	for b.Loop() {
		rec := httptest.NewRecorder()
		srv.pageList(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}
