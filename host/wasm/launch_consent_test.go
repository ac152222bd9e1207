package wasm

import (
	"context"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/host/transport"
)

// A module swapped between the start's consent check and the transport's
// read is not run: the transport holds the bytes it read to the digest
// the check found (LaunchSpec.Program).
func TestLaunchHoldsTheModuleToItsCheckedDigest(t *testing.T) {
	module := fills(10)
	m := pluginDir(t, module, nil)
	tr := newTransport(t, Options{CacheDir: t.TempDir()})
	_, err := tr.Launch(context.Background(), transport.LaunchSpec{Manifest: m, Program: map[string]string{ModuleFile: digest([]byte("what was checked"))}})
	if err == nil || !strings.Contains(err.Error(), "plugin.wasm changed between the start's check") {
		t.Fatalf("Launch of bytes other than the checked = %v, want a refusal", err)
	}
	prog, err := tr.Launch(context.Background(), transport.LaunchSpec{Manifest: m, Program: map[string]string{ModuleFile: digest(module)}})
	if err != nil {
		t.Fatalf("Launch of the checked bytes: %v", err)
	}
	_ = prog.Stop(context.Background())
}
