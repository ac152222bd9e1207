package wasm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/jsrt"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// A module swapped between the start's consent check and the transport's
// read is not run: the transport holds the bytes it read to the digest
// the check found (LaunchSpec.Program).
func TestLaunchHoldsTheModuleToItsCheckedDigest(t *testing.T) {
	module := fills(10)
	m := pluginDir(t, module, nil)
	tr := newTransport(t, Options{CacheDir: t.TempDir()})
	_, err := tr.Launch(context.Background(), specOf(m, transport.LaunchSpec{Program: map[string]string{ModuleFile: digest([]byte("what was checked"))}}))
	if err == nil || !strings.Contains(err.Error(), "plugin.wasm changed between the start's check") {
		t.Fatalf("Launch of bytes other than the checked = %v, want a refusal", err)
	}
	prog, err := tr.Launch(context.Background(), specOf(m, transport.LaunchSpec{Program: map[string]string{ModuleFile: digest(module)}}))
	if err != nil {
		t.Fatalf("Launch of the checked bytes: %v", err)
	}
	_ = prog.Stop(context.Background(), transport.StopOptions{})
}

// A bundle is held the same way, whether the engine reads it from its
// source or from bytecode in the cache: the digest is of the source the
// engine read, and the bytecode is keyed by that source.
func TestLaunchHoldsTheBundleToItsCheckedDigest(t *testing.T) {
	m, err := manifest.Load("../../examples/hello-js", manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(m.Dir, m.Run.JS))
	if err != nil {
		t.Fatal(err)
	}
	rel := m.Run.BundlePath()
	for _, cache := range []string{"", t.TempDir()} {
		tr := newTransport(t, Options{JS: jsrt.New(), CacheDir: cache})
		_, err := tr.Launch(context.Background(), specOf(m, transport.LaunchSpec{Program: map[string]string{rel: digest([]byte("what was checked"))}}))
		if err == nil || !strings.Contains(err.Error(), rel+" changed between the start's check") {
			t.Fatalf("cache %q: Launch of a bundle other than the checked = %v, want a refusal", cache, err)
		}
		prog, err := tr.Launch(context.Background(), specOf(m, transport.LaunchSpec{Program: map[string]string{rel: digest(src)}}))
		if err != nil {
			t.Fatalf("cache %q: Launch of the checked bundle: %v", cache, err)
		}
		_ = prog.Stop(context.Background(), transport.StopOptions{})
	}
}
