package web

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// A person installs a plugin from its folder, reads what it runs and asks,
// gives part of it, and the plugin then gets only that.
func TestBrowserInstallWithConsent(t *testing.T) {
	ctx := browser(t)
	v := startView(t, "")
	dir := pluginFolder(t, fixtureManifest("1.0.0"))

	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		waitText("No plugin installed yet."),
		fill("Plugin folder or git URL", dir),
		click("button", "Read the plugin"),
		waitText("Install View fixture 1.0.0"),
		waitText("Runs a program on your computer, with your rights"),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "install-window")
	if _, ok := v.srv.Host().Plugin(fixtureID); ok {
		t.Fatal("the plugin is in the host before the user said yes")
	}
	if !fileMissing(journal.Path(v.home, fixtureID)) {
		t.Fatal("the plugin has a journal before the user said yes: something ran")
	}

	err = chromedp.Do(ctx,
		click("checkbox", "Secret key: other"),
		click("button", "Install"),
		waitText("State: Idle"),
		waitText("Installed."),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "plugin-settings")

	en, ok := v.registry().Get(fixtureID)
	if !ok {
		t.Fatal("not in the registry after Install")
	}
	if diff := cmp.Diff(manifest.Permissions{Secrets: []string{"token"}}, en.Granted); diff != "" {
		t.Errorf("granted (-want +got):\n%s", diff)
	}
	v.kc.Set("escouade", "plugin:"+fixtureID+":other", "never given")
	if out := v.call("fixture/secret", map[string]string{"key": "other"}); out.Error == nil || out.Error.Code != -32001 {
		t.Errorf("secrets/get of the key not granted: got %+v, want error -32001", out)
	}
	if out := v.call("fixture/secret", map[string]string{"key": "token"}); out.Error != nil || out.IsDefault() {
		t.Errorf("secrets/get of the key granted: got %+v, want an answer", out)
	}
	if st := v.plugin().Status().State; st != host.StateReady {
		t.Errorf("state after the calls: %s, want ready", st)
	}
}
