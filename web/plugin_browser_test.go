package web

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// installedView is a view over a home where the CLI installed the fixture.
func installedView(t *testing.T) *view {
	t.Helper()
	home := t.TempDir()
	installed(t, home, pluginFolder(t, fixtureManifest("1.0.0")))
	return startView(t, home)
}

func (v *view) pageURL(tab string) string {
	return v.base + "/plugins/" + fixtureID + "?tab=" + tab
}

// A settings change reaches settings/get; a bad value is refused with its
// reason and nothing is saved; a secret setting goes to the keychain and is
// never shown back.
func TestBrowserSettingsReachThePlugin(t *testing.T) {
	ctx := browser(t)
	v := installedView(t)
	v.call("fixture/pid", nil) // running: the change restarts it
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		click("link", "View fixture"),
		waitText("Default: hello"),
		fill("Greeting", "bonjour"),
		fill("Retries", "three"),
		click("button", "Save settings"),
		waitText("three is not a whole number"),
		waitJS(`() => document.querySelector('[name=retries]').getAttribute('aria-invalid') === 'true'`),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "settings-refused")
	if got, _ := registry.LoadSettings(v.home, fixtureID); len(got) != 0 {
		t.Fatalf("a refused form saved %v", got)
	}

	err = chromedp.Do(ctx,
		fill("Retries", "5"),
		fill("Ratio", "0.25"),
		choose("Mode", `"slow"`),
		click("checkbox", "Verbose"),
		typeInto("API key", "k-123-secret"),
		click("button", "Save settings"),
		waitText("Settings saved."),
		waitText("A value is stored in the keychain"),
	)
	if err != nil {
		t.Fatal(err)
	}
	out := v.call("fixture/settings", nil)
	if out.Error != nil || out.IsDefault() {
		t.Fatalf("settings/get: %+v", out)
	}
	var got map[string]any
	json.Unmarshal(out.Result, &got)
	want := map[string]any{"greeting": "bonjour", "retries": 5.0, "ratio": 0.25, "mode": "slow", "verbose": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("settings/get (-want +got):\n%s", diff)
	}
	if s, err := v.kc.Get(keychain.Service, keychain.PluginName(fixtureID, "apiKey")); err != nil || s != "k-123-secret" {
		t.Errorf("keychain apiKey = %q, %v", s, err)
	}
	html, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, "k-123-secret") {
		t.Error("the page shows the secret setting back")
	}
	file, _ := os.ReadFile(registry.SettingsPath(v.home, fixtureID))
	if strings.Contains(string(file), "k-123") || strings.Contains(string(file), "apiKey") {
		t.Errorf("the settings file holds the secret setting: %s", file)
	}
	screenshot(t, ctx, "settings-saved")
}

// Taking a permission back restarts the program, which then gets -32001
// for that key; giving it again restarts it with the key.
func TestBrowserPermissionTakenBackRestarts(t *testing.T) {
	ctx := browser(t)
	v := installedView(t)
	v.kc.Set(keychain.Service, keychain.PluginName(fixtureID, "token"), "tok-value")
	before := v.call("fixture/pid", nil)
	if before.IsDefault() || before.Error != nil {
		t.Fatalf("fixture/pid: %+v", before)
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		chromedp.Navigate(v.pageURL("permissions")),
		waitText("State: Ready"),
		click("button", "Take back token"),
		waitText("Taken back."),
		waitText("State: Ready"),
		waitText("Give again"),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "permissions")
	after := v.call("fixture/pid", nil)
	if string(after.Result) == string(before.Result) {
		t.Errorf("the program kept pid %s: taking the permission back did not restart it", before.Result)
	}
	if out := v.call("fixture/secret", map[string]string{"key": "token"}); out.Error == nil || out.Error.Code != -32001 {
		t.Errorf("secrets/get of the key taken back: %+v, want -32001", out)
	}
	if diff := cmp.Diff(manifest.Permissions{Secrets: []string{"other"}}, grantedOf(t, v)); diff != "" {
		t.Errorf("registry granted after take back (-want +got):\n%s", diff)
	}

	err = chromedp.Do(ctx,
		click("button", "Give again token"),
		waitText("Given again."),
		waitText("State: Ready"),
	)
	if err != nil {
		t.Fatal(err)
	}
	if out := v.call("fixture/secret", map[string]string{"key": "token"}); out.Error != nil || string(out.Result) != `"tok-value"` {
		t.Errorf("secrets/get of the key given again: %+v", out)
	}
	if diff := cmp.Diff(manifest.Permissions{Secrets: []string{"other", "token"}}, grantedOf(t, v)); diff != "" {
		t.Errorf("registry granted after give again (-want +got):\n%s", diff)
	}
}

func grantedOf(t *testing.T, v *view) manifest.Permissions {
	t.Helper()
	en, ok := v.registry().Get(fixtureID)
	if !ok {
		t.Fatal("not installed")
	}
	return en.Granted
}
