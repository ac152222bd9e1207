package jsrt

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// Allowed are the only modules a run.js bundle may import (docs/protocol.md#loading-and-compiling).
var allowed = map[string]bool{"node:fs": true, "node:readline": true}

// stamp is the legal comment the SDK puts in each bundle.
var stamp = regexp.MustCompile(`/\*! @escouade-dev/plugin v(\d+)\.(\d+)\.(\d+)\S* \*/`)

// minSDK is the oldest SDK whose stamped bundles Check lets run.
var minSDK = [2]int{0, 3}

// Check refuses a bundle the engine will not run, with the reason the
// plugin stops with (docs/protocol.md#loading-and-compiling): one built with the SDK 0.2 or older,
// one esbuild cannot parse (its message and position), one that imports
// anything but node:fs and node:readline (naming the import and where), or
// one that has exports (naming them). name is the bundle's path in the
// plugin's folder, used in the messages.
func Check(src []byte, name string) error {
	if err := checkStamp(src); err != nil {
		return err
	}
	res := api.Build(api.BuildOptions{
		Stdin:         &api.StdinOptions{Contents: string(src), Sourcefile: name, Loader: api.LoaderJS},
		Bundle:        true,
		Write:         false,
		Outfile:       "out.mjs",
		Format:        api.FormatESModule,
		Platform:      api.PlatformNeutral,
		Metafile:      true,
		LogLevel:      api.LogLevelSilent,
		LegalComments: api.LegalCommentsNone,
		Plugins: []api.Plugin{{
			Name: "escouade-imports",
			Setup: func(b api.PluginBuild) {
				b.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
					if allowed[a.Path] && a.Kind != api.ResolveJSRequireCall && a.Kind != api.ResolveJSRequireResolve {
						return api.OnResolveResult{Path: a.Path, External: true}, nil
					}
					return api.OnResolveResult{Errors: []api.Message{{Text: importRefusal(a)}}}, nil
				})
			},
		}},
	})
	if len(res.Errors) > 0 {
		return refusal(name, res.Errors[0])
	}
	return checkExports(res.Metafile, name)
}

func checkStamp(src []byte) error {
	m := stamp.FindSubmatch(src)
	if m == nil {
		return nil
	}
	major, _ := strconv.Atoi(string(m[1]))
	minor, _ := strconv.Atoi(string(m[2]))
	if major > minSDK[0] || major == minSDK[0] && minor >= minSDK[1] {
		return nil
	}
	return fmt.Errorf("built with @escouade-dev/plugin %d.%d: rebuild it with @escouade-dev/plugin %d.%d or later", major, minor, minSDK[0], minSDK[1])
}

func importRefusal(a api.OnResolveArgs) string {
	how := "imports"
	switch a.Kind {
	case api.ResolveJSRequireCall, api.ResolveJSRequireResolve:
		how = "requires"
	case api.ResolveJSDynamicImport:
		how = "imports (dynamically)"
	}
	return fmt.Sprintf("%s %q: a run.js bundle may import only node:fs and node:readline", how, a.Path)
}

// refusal is esbuild's first error with its position.
func refusal(name string, m api.Message) error {
	if m.Location == nil {
		return errors.New(name + ": " + m.Text)
	}
	l := m.Location
	return fmt.Errorf("%s:%d:%d: %s", name, l.Line, l.Column, m.Text)
}

func checkExports(metafile, name string) error {
	var meta struct {
		Outputs map[string]struct {
			Exports []string `json:"exports"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal([]byte(metafile), &meta); err != nil {
		return fmt.Errorf("%s: the bundle check failed: %v", name, err)
	}
	for _, out := range meta.Outputs {
		if len(out.Exports) == 0 {
			continue
		}
		q := make([]string, len(out.Exports))
		for i, e := range out.Exports {
			q[i] = strconv.Quote(e)
		}
		word := "an export"
		if len(q) > 1 {
			word = "exports"
		}
		return fmt.Errorf("%s: has %s (%s): a run.js bundle has no exports", name, word, strings.Join(q, ", "))
	}
	return nil
}
