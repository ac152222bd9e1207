package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
)

// buildOwnWay builds m's program the way of its kind (modules.BuildOf):
// cargo for the Rust kit, the Go kit's and clang's lines for a Go or C
// module, the JS SDK's build for a bundle from sources; then the module
// or bundle is checked and compiled into the cache as escouade-plugin
// build does. A process or a bundle written by hand is only checked.
func buildOwnWay(ctx context.Context, home string, m *manifest.Manifest, progress func(string)) error {
	var err error
	switch modules.BuildOf(m).Kind {
	case modules.BuildCargo:
		err = buildCargo(ctx, home, m.Dir, cargoSource(m), progress)
	case modules.BuildGo:
		err = runBuild(ctx, m.Dir, []string{"GOOS=wasip1", "GOARCH=wasm"}, "go", "build", "-buildmode=c-shared", "-o", wasm.ModuleFile, ".")
	case modules.BuildC:
		err = runBuild(ctx, m.Dir, nil, "clang", "--target=wasm32-wasi", "-O2", "-o", wasm.ModuleFile, m.Run.WASM)
	case modules.BuildJSSDK:
		err = runBuild(ctx, m.Dir, nil, "npx", "escouade-plugin-build")
	}
	if err != nil {
		return err
	}
	_, err = precompile(ctx, home, m, progress)
	return err
}

// runBuild runs a build command in dir, quoting its output when it fails.
func runBuild(ctx context.Context, dir string, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	tail := &lineTail{max: cargoTailLines}
	cmd.Stdout, cmd.Stderr = tail, tail
	err := cmd.Run()
	tail.flush()
	if err != nil {
		return fmt.Errorf("%s failed (%v):\n%s", name, err, tail.text())
	}
	return nil
}
