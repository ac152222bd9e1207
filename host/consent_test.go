package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// installedFake writes the fake plugin's manifest into a folder, installs
// it under home as an app does (registry.Prepare, then the person's yes
// to what it asks) and returns its manifest as loaded.
func installedFake(t *testing.T, home string) *manifest.Manifest {
	t.Helper()
	return installedFakeAs(t, home, false)
}

// installedFakeAs is installedFake, as a development install when dev.
func installedFakeAs(t *testing.T, home string, dev bool) *manifest.Manifest {
	t.Helper()
	fake := fakeManifest(t)
	body, _ := json.Marshal(map[string]any{
		"id": fake.ID, "name": "Fake", "version": fake.Version, "escouade": map[string]string{"api": "1"},
		"run": map[string]any{"command": fake.Run.Command}, "activation": fake.Activation,
		"permissions": map[string]any{"secrets": fake.Permissions.Secrets},
	})
	if err := os.WriteFile(filepath.Join(fake.Dir, manifest.FileName), body, 0o644); err != nil {
		t.Fatal(err)
	}
	offer, err := registry.Prepare(context.Background(), home, fake.Dir, registry.InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	accept := offer.Accept
	if dev {
		accept = offer.AcceptDev
	}
	if _, err := accept(offer.Granted()); err != nil {
		t.Fatal(err)
	}
	return offer.Manifest
}

// newAppHost is a host as an app makes one: no Admit, no grant of its own.
func newAppHost(t *testing.T, home string) *Host {
	t.Helper()
	kc := keychain.NewMemory()
	kc.Set(keychain.Service, keychain.PluginName("dev.test.fake", "token"), "s3cret")
	h := New(Options{Home: home, Keychain: kc, Env: append(os.Environ(), "FAKE_PLUGIN=echo"), Transports: processTransports(0)})
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// What an app gets by default: an installed plugin starts with what the
// person granted; one whose folder changed, or a folder nobody
// installed, never starts; a nil grant is nothing granted.
func TestAnAppsHostChecksConsentByDefault(t *testing.T) {
	ctx := context.Background()
	t.Run("installed", func(t *testing.T) {
		home := t.TempDir()
		installedFake(t, home)
		p, err := newAppHost(t, home).AddInstalled("dev.test.fake")
		if err != nil {
			t.Fatal(err)
		}
		out := p.Call(ctx, "test/ask", map[string]any{"method": "secrets/get", "params": map[string]string{"key": "token"}})
		if out.IsDefault() || !strings.Contains(string(out.Result), "s3cret") {
			t.Errorf("the installed plugin's secrets/get = %+v, want the secret it was granted", out)
		}
	})
	t.Run("changed since install", func(t *testing.T) {
		home := t.TempDir()
		m := installedFake(t, home)
		os.WriteFile(filepath.Join(m.Dir, "helper.py"), []byte("import os"), 0o644)
		p, err := newAppHost(t, home).AddInstalled("dev.test.fake")
		if err != nil {
			t.Fatal(err)
		}
		out := p.Call(ctx, "test/echo", nil)
		if out.Default != Stopped || !strings.Contains(out.Reason, "a file helper.py was added") {
			t.Errorf("a changed folder's call = %+v, want stopped with the file named", out)
		}
	})
	t.Run("never installed", func(t *testing.T) {
		m := fakeManifest(t)
		p, err := newAppHost(t, t.TempDir()).Add(m, Config{})
		if err != nil {
			t.Fatal(err)
		}
		out := p.Call(ctx, "test/echo", nil)
		if out.Default != Stopped || !strings.Contains(out.Reason, "not started: it is not installed") {
			t.Errorf("a folder nobody installed = %+v, want it not started", out)
		}
	})
	t.Run("nil grant", func(t *testing.T) {
		home := t.TempDir()
		m := installedFake(t, home)
		p, err := newAppHost(t, home).Add(m, Config{})
		if err != nil {
			t.Fatal(err)
		}
		out := p.Call(ctx, "test/ask", map[string]any{"method": "secrets/get", "params": map[string]string{"key": "token"}})
		if strings.Contains(string(out.Result), "s3cret") {
			t.Errorf("a nil grant gave the secret: %+v", out)
		}
		if len(p.Granted().Secrets) != 0 {
			t.Errorf("a nil grant granted %v", p.Granted())
		}
	})
}
