package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/escouade-dev/escouade-plugin/harness"
	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// The list follows each plugin's state as it changes, without a reload.
func TestBrowserListIsLive(t *testing.T) {
	ctx := browser(t)
	v := installedView(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		waitText("View fixture"),
		waitText("Idle"),
		evalVoid(`window.sameDocument = true`),
	)
	if err != nil {
		t.Fatal(err)
	}
	text := bodyText(t, ctx)
	for _, want := range []string{"1.0.0", "Process", "Idle", fixtureID} {
		if !strings.Contains(text, want) {
			t.Errorf("the list lacks %q:\n%s", want, text)
		}
	}
	v.call("fixture/pid", nil)
	if err := chromedp.Do(ctx, waitJS(`() => document.querySelector('[data-state-of]').innerText === "Ready"`)); err != nil {
		t.Fatal(err)
	}
	v.call("fixture/crash", nil)
	if err := chromedp.Do(ctx, waitJS(`() => document.querySelector('[data-crashes-of]').innerText === "1"`)); err != nil {
		t.Fatal(err)
	}
	same, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.sameDocument === true`))
	if err != nil || !same {
		t.Errorf("the list reloaded to show the state (%v)", err)
	}
	screenshot(t, ctx, "list")
}

// An invalid manifest shows the error the CLI's install gives: the field
// and the fix.
func TestBrowserInvalidManifest(t *testing.T) {
	ctx := browser(t)
	v := startView(t, "")
	dir := pluginFolder(t, strings.Replace(fixtureManifest("1.0.0"), `"secrets": ["token","other"]`, `"secrets": ["*"]`, 1))
	_, cliErr := manifest.Load(dir, manifest.LoadOptions{AppVersion: host.AppVersion})
	if cliErr == nil {
		t.Fatal("the broken manifest loads")
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		fill("Plugin folder or git URL", dir),
		click("button", "Read the plugin"),
		waitText("This plugin cannot be installed"),
	)
	if err != nil {
		t.Fatal(err)
	}
	shown, err := chromedp.Run(ctx, textOf("#install-error"))
	if err != nil {
		t.Fatal(err)
	}
	if shown != cliErr.Error() {
		t.Errorf("the page says\n%s\nthe CLI says\n%s", shown, cliErr)
	}
	if !strings.Contains(shown, "/permissions/secrets/0") || !strings.Contains(shown, "fix:") {
		t.Errorf("the error names no field or fix: %s", shown)
	}
	screenshot(t, ctx, "install-refused")
	if _, ok := v.registry().Get(fixtureID); ok {
		t.Error("a refused manifest was installed")
	}
}

// An update shows what changed in what it asks: a new capability waits
// for the user's tick, one no longer asked is listed, what the user took
// back stays taken back.
func TestBrowserUpdateShowsWhatChanged(t *testing.T) {
	ctx := browser(t)
	home := t.TempDir()
	installed(t, home, pluginFolder(t, fixtureManifest("1.0.0", "token", "other")))
	v := startView(t, home)
	v.call("fixture/pid", nil)
	update := pluginFolder(t, fixtureManifest("1.1.0", "token", "webhook"))
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		fill("Plugin folder or git URL", update),
		click("button", "Read the plugin"),
		waitText("Update View fixture from 1.0.0 to 1.1.0"),
		waitText("No longer asked"),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "update-window")
	checked, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]bool](
		`Object.fromEntries([...document.querySelectorAll('input[type=checkbox]')].map(c => [c.labels[0].innerText, c.checked]))`))
	if err != nil {
		t.Fatal(err)
	}
	// In development is never ticked for the person: it is their choice.
	want := map[string]bool{"Secret key: token": true, "Secret key: webhook (new in this version)": false, " In development": false}
	if len(checked) != len(want) || checked["Secret key: token"] != true || checked["Secret key: webhook (new in this version)"] != false || checked[" In development"] != false {
		t.Errorf("toggles %v, want %v", checked, want)
	}
	if !strings.Contains(bodyText(t, ctx), "Secret key: other") {
		t.Error("the window does not say other is no longer asked")
	}
	err = chromedp.Do(ctx,
		click("button", "Install the update"),
		waitText("View fixture 1.1.0"),
	)
	if err != nil {
		t.Fatal(err)
	}
	en, _ := v.registry().Get(fixtureID)
	if en.Version != "1.1.0" || strings.Join(en.Granted.Secrets, ",") != "token" {
		t.Errorf("registry after the update: %+v", en)
	}
	if got := v.plugin().Manifest().Version; got != "1.1.0" {
		t.Errorf("the host runs version %s", got)
	}
}

// A harness plugin whose agent program is not in PATH is "Agent not
// installed" (its harness is there: "Harness absent" is for a harness that
// is gone); it comes back when the program is there.
func TestHarnessAgentNotInstalledThenHarnessAbsent(t *testing.T) {
	home := t.TempDir()
	installed(t, home, filepath.Join("..", "tests", "fixtures", "plugins", "fake-acp"))
	bin := t.TempDir()
	v := startView(t, home, func(o *Options) { o.Host.Env = []string{"PATH=" + bin} })
	id := "dev.escouade.fake-acp"
	row := v.srv.rowOf(mustEntry(t, v, id))
	if row.State.State != "not-installed" || row.State.Label != "Agent not installed" || !strings.Contains(row.State.Reason, "none of fake-acp is in PATH") {
		t.Errorf("without its program: %+v", row.State)
	}
	if !strings.Contains(row.Kind, "ACP harness") {
		t.Errorf("kind %q does not say it is a harness", row.Kind)
	}
	if err := os.WriteFile(filepath.Join(bin, "fake-acp"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if row := v.srv.rowOf(mustEntry(t, v, id)); row.State.State != "idle" {
		t.Errorf("with its program: %+v", row.State)
	}
	_, body := get(t, v, "/", map[string]string{SecretHeader: v.srv.Secret()}, "")
	if strings.Contains(body, "Agent not installed") {
		t.Error("the list still says Agent not installed")
	}
	// The ACP harness switched off: its harnesses are gone, "Harness absent".
	if err := harness.SetACPEnabled(home, false); err != nil {
		t.Fatal(err)
	}
	if row := v.srv.rowOf(mustEntry(t, v, id)); row.State.State != "absent" || row.State.Label != "Harness absent" || !strings.Contains(row.State.Reason, "dev.escouade.acp is disabled") {
		t.Errorf("with the ACP harness off: %+v", row.State)
	}
}
