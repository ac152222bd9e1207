package modules

import (
	"context"
	"testing"
)

// Preload loads every enabled installed module and bundle into the
// host's transport, at every start (it keeps no mark), notes the one
// that does not compile without stopping, and leaves a disabled plugin
// alone.
func TestPreloadLoadsTheInstalledModulesIntoTheHostsTransport(t *testing.T) {
	home := t.TempDir()
	bundle := helloJS(t)
	recorded(t, home, bundle.ID, bundle.Dir, false)
	recorded(t, home, "dev.test.not-wasm", moduleFolder(t, "dev.test.not-wasm", []byte("this is no WebAssembly module")), false)
	recorded(t, home, "dev.test.disabled", moduleFolder(t, "dev.test.disabled", []byte("never read")), true)
	wt, err := NewTransport(context.Background(), Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer wt.Close(context.Background())
	for start := range 2 {
		var said []string
		report, err := Preload(context.Background(), wt, home, func(l string) { said = append(said, l) })
		if err != nil {
			t.Fatal(err)
		}
		if len(report.Compiled) != 1 || report.Compiled[0] != bundle.ID {
			t.Errorf("start %d: loaded %v, want only %s", start, report.Compiled, bundle.ID)
		}
		if _, ok := report.Failed["dev.test.not-wasm"]; !ok || len(report.Failed) != 1 {
			t.Errorf("start %d: failed %v, want dev.test.not-wasm alone", start, report.Failed)
		}
		if len(said) != 1 {
			t.Errorf("start %d: said %q, want the failure's line alone", start, said)
		}
	}
}

// A Preload cancelled stops with the context's error.
func TestPreloadCancelled(t *testing.T) {
	home := t.TempDir()
	bundle := helloJS(t)
	recorded(t, home, bundle.ID, bundle.Dir, false)
	wt, err := NewTransport(context.Background(), Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer wt.Close(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Preload(ctx, wt, home, nil); err == nil {
		t.Fatal("a cancelled preload said nothing")
	}
}
