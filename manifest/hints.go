package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// hint replaces the generic text of a schema failure for one rule of the
// schema, where the field deserves a more precise sentence.
type hint struct {
	message func(value any) string // nil keeps the generic message
	fix     string                 // empty keeps the generic fix
}

// The texts shared by a schema hint and a rule checked in Go.
const (
	fixEnvName     = "use letters, digits and underscores, not starting with a digit"
	fixSecretEntry = `name a key of the plugin ("webhook") or a prefix pattern ending in * ("account:*")`
)

// hintFor returns the hint for the schema rule (the schema location of a
// keyword) and keyword, if there is one.
func hintFor(rule, keyword string) (hint, bool) {
	switch rule + " " + keyword {
	case "/properties/id pattern":
		return hint{quoted("%s is not a reverse-DNS id"),
			"use lowercase letters and digits in dot-separated parts, at least two, e.g. dev.escouade.slack"}, true
	case "/$defs/semver pattern":
		return hint{quoted("%s is not a semantic version"), "write major.minor.patch, e.g. 1.0.0"}, true
	case "/properties/escouade/properties/api const":
		return hint{unsupportedAPI, `set "api" to "1"`}, true
	case "/properties/escouade/properties/api type":
		return hint{nil, `write the API as the string "1"`}, true
	case "/properties/run minProperties":
		return hint{func(any) string { return "names no program" },
			`give one of "command", "js" or "wasm", or remove "run" for a declarative plugin`}, true
	case "/properties/run maxProperties":
		return hint{runPrograms, `keep exactly one of "command", "js" or "wasm"`}, true
	case "/properties/run/properties/command minItems":
		return hint{nil, `give the program and its arguments, e.g. ["./bin/plugin"]`}, true
	case "/properties/activation/items pattern":
		return hint{quoted("%s is not an activation"), `use "event:<name>" (e.g. "event:ticket.column") or "onCall"`}, true
	case "/$defs/secretPattern pattern":
		return hint{quoted("%s is not a secret key or prefix pattern"), fixSecretEntry}, true
	case "/properties/permissions/properties/network/items pattern":
		return hint{quoted("%s is not a host"),
			`give a host name such as slack.com (it covers its subdomains), an IP address, "{account}" or "local:shared"; no scheme, path or wildcard`}, true
	case "/properties/permissions/properties/files/items enum":
		return hint{quoted("%s is not a files root"), "use agent, agentRepo, agentHome or temp, each optionally followed by :ro"}, true
	case "/$defs/programName pattern":
		return hint{quoted("%s is not a program name"), "give the name looked up in PATH, such as goose, never a path"}, true
	case "/$defs/envName pattern":
		return hint{quoted("%s is not an environment variable name"), fixEnvName}, true
	case "/$defs/acp/properties/env additionalProperties":
		return hint{quoted("%s is not an environment variable name"), fixEnvName}, true
	case "/properties/contributes/properties/settings additionalProperties":
		return hint{quoted("%s is not a setting key"),
			"use letters, digits and underscores, in parts joined by single dots, colons or dashes"}, true
	case "/$defs/text additionalProperties":
		return hint{quoted("%s is not a language code"), "use a language code such as en, fr or pt-BR"}, true
	case "/$defs/text minProperties":
		return hint{nil, `give the text in at least one language, e.g. {"en": "…"}`}, true
	case "/$defs/setting/allOf/0/then required":
		return hint{func(any) string { return "an enum setting needs its choices" },
			`list them in "enum", e.g. ["low", "high"]`}, true
	case "/$defs/setting/allOf/0/else/properties/enum false":
		return hint{func(any) string { return `"enum" is only for settings of type enum` },
			`remove "enum", or set "type" to "enum"`}, true
	case "/$defs/setting/allOf/5/then/properties/default false":
		return hint{func(any) string { return "a secret setting has no default: anyone can read a manifest" },
			`remove "default"; the user types the secret in the app`}, true
	case "/$defs/harness/properties/id pattern":
		return hint{quoted("%s is not a harness id"), "use letters, digits, dots, dashes and underscores, e.g. goose"}, true
	case "/$defs/harness/then required":
		return hint{func(any) string { return "a described harness needs locate" },
			`add "locate": {"names": ["<program>"]}, the program's names in PATH`}, true
	case "/$defs/harness/properties/locate/properties/names minItems":
		return hint{nil, `name the program looked up in PATH, e.g. ["goose"]`}, true
	case "/$defs/acp/properties/extensions/items enum":
		return hint{quoted("%s is not a known ACP extension"), `use "cursor", or remove it`}, true
	}
	return hint{}, false
}

// quoted returns a message function that puts the failing value, quoted,
// into format.
func quoted(format string) func(any) string {
	return func(v any) string { return fmt.Sprintf(format, display(v)) }
}

func unsupportedAPI(v any) string {
	api, ok := v.(string)
	if !ok {
		api = display(v)
	}
	return "plugin API " + api + " is not supported: this Escouade speaks plugin API 1"
}

// runPrograms names the programs a run object gives when it gives more
// than one.
func runPrograms(v any) string {
	run, _ := v.(map[string]any)
	names := slices.Sorted(maps.Keys(run))
	for i, n := range names {
		names[i] = `"` + n + `"`
	}
	return "names " + strings.Join(names, " and ") + ": a plugin has exactly one program"
}
