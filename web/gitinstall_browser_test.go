package web

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/escouade-dev/escouade-plugin/internal/testutil"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// A person types a repository's file:// URL in "In development": it is
// cloned into the home, the same window shows, and the install records
// the checkout and where it came from.
func TestBrowserInstallFromAGitRepository(t *testing.T) {
	ctx := browser(t)
	v := startView(t, "")
	bare := testutil.GitBare(t, pluginFolder(t, fixtureManifest("1.0.0")))
	source := "file://" + filepath.ToSlash(bare)

	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		fill("Plugin folder or git URL", source),
		click("button", "Read the plugin"),
		waitText("Install View fixture 1.0.0"),
		waitText("Cloned from "+source),
		waitText("Runs a program on your computer, with your rights"),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "install-from-git")
	if _, ok := v.registry().Get(fixtureID); ok {
		t.Fatal("installed before the user said yes")
	}
	if err := chromedp.Do(ctx, click("button", "Install"), waitText("Installed.")); err != nil {
		t.Fatal(err)
	}
	en, ok := v.registry().Get(fixtureID)
	if !ok || en.Source != source || !strings.HasPrefix(en.Dir, filepath.Join(v.home, registry.GitDir)) {
		t.Fatalf("recorded %+v, want the checkout under the home and source %s", en, source)
	}
	if _, err := os.Stat(filepath.Join(en.Dir, manifest.FileName)); err != nil {
		t.Errorf("the checkout has no manifest: %v", err)
	}

	// The plugin's page says where it came from, and at which commit.
	head := gitHead(t, bare)
	err = chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		click("link", "View fixture"),
		waitText("Installed from "+source+" at commit "+head[:12]),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "plugin-from-git")
}

// gitHead is the commit a repository's HEAD names.
func gitHead(t *testing.T, repo string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", repo, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// A URL the egress guard refuses is refused on the page with its reason,
// and nothing is cloned.
func TestBrowserRefusesAGitURLOfThisMachine(t *testing.T) {
	ctx := browser(t)
	v := startView(t, "")
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		fill("Plugin folder or git URL", "https://127.0.0.1/plugin.git"),
		click("button", "Read the plugin"),
		waitText("This plugin cannot be installed"),
		waitText("127.0.0.1 is an address of this machine or of the local network"),
	)
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Join(v.home, registry.GitDir)); len(entries) != 0 {
		t.Errorf("left under the home: %v", entries)
	}
}

// Settings › Network keeps the proxy under the home; a value that is not
// a proxy's URL is refused with the fix, and nothing is kept.
func TestBrowserSettingsNetworkKeepsTheProxy(t *testing.T) {
	ctx := browser(t)
	v := startView(t, "")
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		click("link", "Settings › Network"),
		waitText("Settings › Network"),
		fill("Proxy", "proxy.example:3128"),
		click("button", "Save"),
		waitText("fix: write it as http://HOST:PORT"),
	)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := registry.ReadNetwork(v.home); n.Proxy != "" {
		t.Fatalf("a refused proxy was kept: %q", n.Proxy)
	}
	err = chromedp.Do(ctx,
		fill("Proxy", "http://proxy.example:3128"),
		click("button", "Save"),
		waitText("Proxy saved"),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "settings-network")
	if n, err := registry.ReadNetwork(v.home); err != nil || n.Proxy != "http://proxy.example:3128" {
		t.Fatalf("kept %+v, %v", n, err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(v.base+"/settings/network"),
		waitJS(`(want) => document.getElementById("network-proxy").value === want`, "http://proxy.example:3128")); err != nil {
		t.Fatal(err)
	}
}
