package registry

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSettingsNetworkKeepsAProxyUnderTheHome(t *testing.T) {
	home := t.TempDir()
	if n, err := ReadNetwork(home); err != nil || n.Proxy != "" {
		t.Fatalf("no file: %+v, %v; want no proxy", n, err)
	}
	if err := WriteNetwork(home, Network{Proxy: " http://proxy.example:3128 "}); err != nil {
		t.Fatal(err)
	}
	n, err := ReadNetwork(home)
	if err != nil || n.Proxy != "http://proxy.example:3128" {
		t.Fatalf("read back %+v, %v", n, err)
	}
	if _, err := os.Stat(filepath.Join(home, NetworkFile+".tmp")); err == nil {
		t.Error("the temporary file of the atomic write was left")
	}
}

func TestAProxyThatIsNotOneIsRefusedWithTheFix(t *testing.T) {
	for _, bad := range []string{"proxy.example:3128", "ftp://proxy.example:21", "http://:3128", "http://proxy.example", "http://proxy.example:3128/path", "http://proxy example:1", "socks5://p:1?x=1"} {
		err := CheckProxy(bad)
		if err == nil || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("%q: err %v, want a refusal naming the fix", bad, err)
		}
		if err := WriteNetwork(t.TempDir(), Network{Proxy: bad}); err == nil {
			t.Errorf("%q was written", bad)
		}
	}
	for _, good := range []string{"", "http://proxy.example:3128", "https://10.0.0.1:8443/", "socks5://127.0.0.1:1080", "http://user:pw@proxy.example:3128"} {
		if err := CheckProxy(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
}

func FuzzCheckProxy(f *testing.F) {
	for _, s := range []string{"http://proxy.example:3128", "socks5://[::1]:1080", "http://%zz", "https://a:0/", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if CheckProxy(raw) != nil || raw == "" {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || u.Hostname() == "" || u.Port() == "" {
			t.Fatalf("%q was taken for a proxy's URL", raw)
		}
	})
}
