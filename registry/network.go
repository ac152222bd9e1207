package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
)

// NetworkFile keeps Settings › Network under the home: the app's proxy,
// used by run, serve and installs from git unless --proxy says otherwise.
const NetworkFile = "network.json"

// Network is Settings › Network.
type Network struct {
	// Proxy is the URL of the app's proxy, or "" for none.
	Proxy string `json:"proxy,omitempty"`
}

// ReadNetwork reads Settings › Network of home; a missing file is no
// proxy.
func ReadNetwork(home string) (Network, error) {
	path := filepath.Join(home, NetworkFile)
	data, err := safefile.Read(path, path, MaxSettingsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return Network{}, nil
	}
	if err != nil {
		return Network{}, err
	}
	var n Network
	if err := json.Unmarshal(data, &n); err != nil {
		return Network{}, fmt.Errorf("%s is damaged (%v): set the proxy again in Settings › Network, or remove the file", path, err)
	}
	if err := CheckProxy(n.Proxy); err != nil {
		return Network{}, fmt.Errorf("%s: %v", path, err)
	}
	return n, nil
}

// WriteNetwork checks n and writes it under home, whole or not at all.
func WriteNetwork(home string, n Network) error {
	n.Proxy = strings.TrimSpace(n.Proxy)
	if err := CheckProxy(n.Proxy); err != nil {
		return err
	}
	data, err := json.MarshalIndent(n, "", "  ")
	if err != nil {
		return err
	}
	return writeJSON(filepath.Join(home, NetworkFile), data)
}

// proxySchemes are the proxies the network service dials through.
var proxySchemes = []string{"http", "https", "socks5"}

// CheckProxy refuses what is not a proxy's URL, with the fix; "" is no
// proxy.
func CheckProxy(raw string) error {
	if raw == "" {
		return nil
	}
	fix := "write it as http://HOST:PORT, https://HOST:PORT or socks5://HOST:PORT, e.g. http://proxy.example:3128, or leave it empty for no proxy"
	u, err := url.Parse(raw)
	switch {
	case err != nil || strings.ContainsAny(raw, " \t\r\n"):
		return fmt.Errorf("the proxy %q is not a URL (fix: %s)", raw, fix)
	case !slices.Contains(proxySchemes, strings.ToLower(u.Scheme)):
		return fmt.Errorf("the proxy %q has no scheme Escouade speaks to a proxy: want http, https or socks5 (fix: %s)", raw, fix)
	case u.Hostname() == "" || u.Opaque != "":
		return fmt.Errorf("the proxy %q names no host (fix: %s)", raw, fix)
	case u.Port() == "":
		return fmt.Errorf("the proxy %q names no port (fix: %s)", raw, fix)
	case u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("the proxy %q has a path, query or fragment, which a proxy's address does not (fix: %s)", raw, fix)
	}
	return nil
}
