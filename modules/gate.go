package modules

import (
	"context"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// MinAppVersion is the first Escouade that runs modules and bundles
// (docs/protocol.md#loading-and-compiling: "It needs Escouade 2.2.0 or
// later").
const MinAppVersion = "2.2.0"

// gated is the module transport behind the app-version gate. Every start
// of a run.wasm or run.js plugin goes through a transport's Launch, so
// the gate is here once, for the CLI, the view and an embedding app alike;
// processes have their own transport and are not gated.
type gated struct {
	transport.Transport
	appVersion string
}

// Gate puts t behind the app-version gate: Configure does it for a host,
// and the bench, which takes the transport alone, does it the same way.
func Gate(t transport.Transport, appVersion string) transport.Transport {
	if appVersion == "" {
		appVersion = host.AppVersion
	}
	return gated{Transport: t, appVersion: appVersion}
}

func (g gated) Launch(ctx context.Context, spec transport.LaunchSpec) (transport.Program, error) {
	if err := CheckAppVersion(manifest.RunKind(spec.Kind), g.appVersion); err != nil {
		return nil, err
	}
	return g.Transport.Launch(ctx, spec)
}

// CheckAppVersion refuses a module or bundle under an Escouade older than
// MinAppVersion. A version that is not semver (a development build) cannot
// be compared and passes, as escouade.min does in the manifest.
func CheckAppVersion(kind manifest.RunKind, appVersion string) error {
	if kind != manifest.RunWASM && kind != manifest.RunJS {
		return nil
	}
	if c, ok := manifest.CompareVersions(appVersion, MinAppVersion); !ok || c >= 0 {
		return nil
	}
	return fmt.Errorf("run.%s needs Escouade %s or later; this is Escouade %s (fix: update Escouade, or give --app-version %s or later)",
		kind, MinAppVersion, appVersion, MinAppVersion)
}
