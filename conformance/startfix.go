package conformance

import (
	"regexp"
	"strings"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
)

// The build lines of a module, as docs/writing-a-plugin.md gives them;
// a plugin's own kind of build is modules.BuildOf's.
const (
	goModuleBuild = modules.GoBuildLine
	cModuleBuild  = modules.CBuildLine
)

// importRefusal finds the import a module was refused for: "imports
// env.get_time, which Escouade does not provide".
var importRefusal = regexp.MustCompile(`imports (?:the memory )?([^ .]+)\.(\S+), which Escouade does not provide`)

// startFix is the fix of a program that did not start, for its kind of
// program and what stopped it: run.command's rules mean nothing to a
// bundle or a module.
func startFix(m *manifest.Manifest, err error) string {
	text := err.Error()
	switch m.Run.Kind() {
	case manifest.RunJS:
		return bundleFix(m, text)
	case manifest.RunWASM:
		return moduleFix(m, text)
	}
	return lookupCheck(CheckStart).Fix
}

// buildFix is the fix of a program not built yet: its kind's build.
func buildFix(m *manifest.Manifest) string {
	b := modules.BuildOf(m)
	if b.Kind == modules.BuildNone {
		return "write the bundle at " + b.Output + ", or build it from src/plugin.ts with the JS SDK: " + modules.SDKBuildLine
	}
	return "build it first, the way of its kind: " + b.Line
}

func bundleFix(m *manifest.Manifest, text string) string {
	switch {
	case strings.Contains(text, "may import only"):
		return "import only node:fs and node:readline, the two node modules the run.js engine serves: reach the network, timers and files " +
			"through the SDK (p.fetch, p.sleep, p.readFile), which asks the host; npx escouade-plugin-build refuses such an import at its line"
	case strings.Contains(text, "export"):
		return "a run.js bundle is one ES module with no export: remove the export keyword, or build it with npx escouade-plugin-build"
	case strings.Contains(text, "@escouade-dev/plugin"):
		return "rebuild the bundle with the current SDK: npm install @escouade-dev/plugin@latest, then npx escouade-plugin-build"
	}
	return `make "run": {"js": "` + m.Run.JS + `"} name the bundle, relative to the plugin folder, and build it (npx escouade-plugin-build writes it from src/plugin.ts)`
}

func moduleFix(m *manifest.Manifest, text string) string {
	b := modules.BuildOf(m)
	if sub := importRefusal.FindStringSubmatch(text); sub != nil {
		module, name := sub[1], sub[2]
		if module == "env" {
			return "the host provides WASI preview 1 (wasi_snapshot_preview1) and nothing else: env." + name +
				" is a function the code declares but no library defines (clang's --allow-undefined turns it into an import); " +
				"define " + name + " in the module or use a WASI call instead (clock_gettime for the time), then rebuild plugin.wasm"
		}
		return "import only the functions of WASI preview 1 (wasi_snapshot_preview1); " + module + "." + name +
			" is not one: build for wasm32-wasip1 with " + b.Line
	}
	switch {
	case strings.Contains(text, "has no plugin.wasm"):
		return "build plugin.wasm beside escouade-plugin.json (run.wasm only names its source): " + b.Line
	case strings.Contains(text, "build it"):
		return "rebuild plugin.wasm as the refusal above says"
	case strings.Contains(text, "exports neither"):
		return "export an entry point: _start (a program with main: a command) or escouade-turn (a reactor: the Go kit does it with " + goModuleBuild + ")"
	case strings.Contains(text, "version.json"):
		return "rebuild plugin.wasm and write its SHA-256 in version.json, or remove version.json while you develop"
	}
	return "rebuild plugin.wasm for wasm32-wasip1: " + b.Line
}
