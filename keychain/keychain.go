// Package keychain stores the secrets of plugins. The host only reads them;
// the app (or the CLI's --secret flag) writes them.
//
// Three backends share one interface: the OS keychain (Secret Service,
// macOS Keychain, Windows Credential Manager), an encrypted file under the
// host's home for headless machines, and memory for tests.
//
// Open picks one by the name the CLI's --keychain flag takes; ExampleOpen
// reads a plugin's secret and tells a name never set (the plugin gets
// null) from a keychain out of reach (-32002).
//
// What each backend protects against, and what it does not, is said on
// System and File. Memory protects nothing and keeps nothing.
package keychain

import "errors"

// Service is the keychain service every plugin secret is stored under.
const Service = "escouade"

// ErrNotFound reports that no secret is stored under the name.
var ErrNotFound = errors.New("keychain: no such secret")

// ErrUnavailable reports that the keychain cannot be reached (no Secret
// Service on a headless Linux, a locked store…). Errors of a backend that
// mean this wrap ErrUnavailable so callers match it with errors.Is.
var ErrUnavailable = errors.New("keychain: out of reach")

// Keychain reads and writes secrets by service and name. Implementations
// are safe for concurrent use.
type Keychain interface {
	Get(service, name string) (string, error)
	Set(service, name, value string) error
	Delete(service, name string) error
}

// PluginName is the keychain name of a plugin's secret key:
// plugin:<plugin id>:<key>.
func PluginName(pluginID, key string) string {
	return "plugin:" + pluginID + ":" + key
}
