package wasm

import (
	"context"
	"testing"
)

// A module's stack rewrite is made once: a later start of the same bytes,
// in another host, reads it back from the cache, and what it compiles is
// the same module (one entry of compiled code).
func TestStackRewriteIsReadBack(t *testing.T) {
	cache := t.TempDir()
	module := fills(10)
	dir := pluginDir(t, module, nil)
	before := stackRewrites.Load()
	if err := newTransport(t, Options{CacheDir: cache}).Precompile(context.Background(), dir, nil); err != nil {
		t.Fatal(err)
	}
	if n := stackRewrites.Load() - before; n != 1 {
		t.Fatalf("the first start made %d rewrites, want 1", n)
	}
	before = stackRewrites.Load()
	if err := newTransport(t, Options{CacheDir: cache}).Precompile(context.Background(), dir, nil); err != nil {
		t.Fatal(err)
	}
	if n := stackRewrites.Load() - before; n != 0 {
		t.Errorf("a start of bytes seen before made %d rewrites, want the kept one read back", n)
	}
	if n := CachedModules(cache, ""); n != 1 {
		t.Errorf("%d compiled modules, want 1: the rewrite read back is the one compiled", n)
	}
}
