package kit

import (
	"encoding/json"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// ProtocolVersion is the version of the plugin protocol the kit speaks.
const ProtocolVersion = 1

// InitParams is what the host said in initialize (docs/protocol.md#4-the-handshake).
type InitParams struct {
	ProtocolVersion int          `json:"protocolVersion"`
	Escouade        AppInfo      `json:"escouade"`
	Plugin          PluginInfo   `json:"plugin"`
	Lang            string       `json:"lang"`
	Capabilities    Capabilities `json:"capabilities"`
}

// AppInfo describes the app hosting the plugin.
type AppInfo struct {
	Version string `json:"version"`
}

// PluginInfo is the plugin as its manifest names it.
type PluginInfo struct {
	ID      string `json:"id"`
	Version string `json:"version"`
}

// Capabilities says what a side can do, by name: batch, secrets, settings,
// log, attach, and any name a later version adds.
type Capabilities map[string]bool

// initResult is the kit's answer to initialize.
type initResult struct {
	ProtocolVersion int          `json:"protocolVersion"`
	Capabilities    Capabilities `json:"capabilities"`
}

// initFromEnv is what Init says before initialize arrives: the facts the
// environment gave. The plugin version is only known from initialize.
func initFromEnv(env Env) InitParams {
	version := 0
	if env.API == "1" {
		version = ProtocolVersion
	}
	return InitParams{
		ProtocolVersion: version,
		Escouade:        AppInfo{Version: env.AppVersion},
		Plugin:          PluginInfo{ID: env.PluginID},
		Lang:            env.Lang,
	}
}

// decodeInit reads the params of initialize. Omitted params read as an
// empty object, as the protocol schema says; anything but an object is
// -32602. Missing members are left empty rather than refused: the host
// decides whether the two sides agree, from the kit's answer.
func decodeInit(params json.RawMessage) (InitParams, error) {
	var p InitParams
	if len(params) == 0 {
		return p, nil
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return InitParams{}, fmt.Errorf("%w: %s: %v", jsonrpc.ErrInvalidParams, methodInitialize, err)
	}
	return p, nil
}
