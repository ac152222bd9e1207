package kit

import "github.com/escouade-dev/escouade-plugin/vocab"

// The environment variables the host sets for a process (docs/protocol.md#2-starting-the-program).
// Their names come from the protocol's schema (vocab).
const (
	EnvPluginID   = vocab.EnvPluginID
	EnvPluginAPI  = vocab.EnvPluginAPI
	EnvAppVersion = vocab.EnvVersion
	EnvLang       = vocab.EnvLang
)

// Env is what the host told the process through its environment. It is
// known before initialize arrives, so a plugin can use it while it sets
// itself up; Init gives the same facts as initialize states them.
type Env struct {
	PluginID   string // ESCOUADE_PLUGIN_ID, the plugin's id
	API        string // ESCOUADE_PLUGIN_API, the protocol major version ("1")
	AppVersion string // ESCOUADE_VERSION, the app version
	Lang       string // ESCOUADE_LANG, the language of the interface
}

// ReadEnv reads Env through getenv, which is os.Getenv for a real process.
// A variable that is not set reads as "".
func ReadEnv(getenv func(string) string) Env {
	return Env{
		PluginID:   getenv(EnvPluginID),
		API:        getenv(EnvPluginAPI),
		AppVersion: getenv(EnvAppVersion),
		Lang:       getenv(EnvLang),
	}
}
