package host

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// Capabilities are what this host serves, as initialize tells the plugin.
func Capabilities() proto.Capabilities {
	return proto.Capabilities{"batch": true, "secrets": true, "settings": true, "log": true, "attach": true}
}

// InitializeParams is the first message to a program (docs/protocol.md#4-the-handshake). The
// bench sends the same.
func InitializeParams(m *manifest.Manifest, appVersion, lang string) proto.InitializeParams {
	return proto.InitializeParams{
		ProtocolVersion: protocol.Version,
		Escouade:        proto.InitializeParamsEscouade{Version: appVersion},
		Plugin:          proto.InitializeParamsPlugin{ID: m.ID, Version: m.Version},
		Lang:            lang,
		Capabilities:    Capabilities(),
	}
}

// PluginEnv is base, the app's environment, with the four ESCOUADE_
// variables of a run.command plugin set
// (docs/protocol.md#2-starting-the-program), in name order after the app's.
// A transport gives its program only what docs/protocol.md#plugin-env
// lists of it.
func PluginEnv(base []string, id, appVersion, lang string) []string {
	own := map[string]string{
		vocab.EnvPluginID:  id,
		vocab.EnvPluginAPI: strconv.Itoa(protocol.Version),
		vocab.EnvVersion:   appVersion,
		vocab.EnvLang:      lang,
	}
	env := make([]string, 0, len(base)+len(own))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, mine := own[name]; !mine {
			env = append(env, kv)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(own)) {
		env = append(env, name+"="+own[name])
	}
	return env
}
