package web

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/escouade-dev/escouade-plugin/harness"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// After Restart the view says what the plugin became: running.
func TestBrowserRestartSaysRunning(t *testing.T) {
	ctx := browser(t)
	v := installedView(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		chromedp.Navigate(v.pageURL("settings")),
		waitText("State: Idle"),
		click("button", "Restart"),
		waitText("Restarted: it is running."),
		waitText("State: Ready"),
	)
	if err != nil {
		t.Fatal(err)
	}
}

// A plugin whose program dies at each start: Restart says it stopped, and
// why (its fourth crash), not "Restarted.".
func TestBrowserRestartSaysTheFourthCrash(t *testing.T) {
	ctx := browser(t)
	home := t.TempDir()
	dir := pluginFolder(t, fixtureManifest("1.0.0"))
	if err := os.WriteFile(filepath.Join(dir, "plugin"), []byte("#!/bin/sh\necho dying >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	installed(t, home, dir)
	v := startView(t, home)
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		chromedp.Navigate(v.pageURL("settings")),
		click("button", "Restart"),
		waitText("Restarted, but it stopped: stopped after 4 crashes within 5 minutes."),
	)
	if err != nil {
		t.Fatal(err)
	}
	if text := bodyText(t, ctx); strings.Contains(text, "Restarted.") {
		t.Errorf("the page still says Restarted.:\n%s", text)
	}
}

// A folder edited after install: Restart says it stopped until reviewed;
// the review comes onto the plugin's page without a reload, its sentence
// once, and never sends the person to the view they are in.
func TestBrowserChangedFolderReviewIsLiveAndSaidOnce(t *testing.T) {
	ctx := browser(t)
	home := t.TempDir()
	dir := pluginFolder(t, fixtureManifest("1.0.0"))
	installed(t, home, dir)
	v := startView(t, home)
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		chromedp.Navigate(v.pageURL("settings")),
		waitText("State: Idle"),
		evalVoid(`window.sameDocument = true`),
	)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(fixtureManifest("1.0.0"), `"run": {"command": ["./plugin"]}`, `"run": {"command": ["./plugin", "--edited"]}`, 1)
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		click("button", "Restart"),
		waitText("Restarted, but it stopped: not started until you review what changed."),
		waitText("State: Stopped: not started until you review what changed"),
		waitJS(`() => document.querySelector('#review-why a.review') !== null`),
	)
	if err != nil {
		t.Fatal(err)
	}
	same, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.sameDocument === true`))
	if err != nil || !same {
		t.Errorf("the review came by a reload (%v)", err)
	}
	text := bodyText(t, ctx)
	if n := strings.Count(strings.ToLower(text), "folder changed since"); n != 1 {
		t.Errorf("the changed-folder sentence shows %d times, want once:\n%s", n, text)
	}
	if strings.Contains(text, "Review in the Plugins view") || strings.Contains(text, "escouade-plugin install") {
		t.Errorf("the page sends the person elsewhere:\n%s", text)
	}
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#review-why a.review').getAttribute('href')`))
	if err != nil || !strings.HasPrefix(href, "/install?dir=") {
		t.Errorf("the Review link goes to %q (%v)", href, err)
	}
	screenshot(t, ctx, "review-live")
}

// outOfReach is the system keychain of a machine without a desktop
// session: every access fails as go-keyring fails there.
type outOfReach struct{}

func (outOfReach) Get(string, string) (string, error) { return "", outOfReachErr }
func (outOfReach) Set(string, string, string) error   { return outOfReachErr }
func (outOfReach) Delete(string, string) error        { return outOfReachErr }

var outOfReachErr = fmt.Errorf("%w: exec: \"dbus-launch\": executable file not found in $PATH", keychain.ErrUnavailable)

// Saving a secret setting with no keychain within reach names the fix,
// --keychain file, beside the field and in the alert.
func TestBrowserSecretSettingWithoutKeychainNamesTheFix(t *testing.T) {
	ctx := browser(t)
	home := t.TempDir()
	installed(t, home, pluginFolder(t, fixtureManifest("1.0.0")))
	v := startView(t, home, func(o *Options) { o.Host.Keychain = outOfReach{} })
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		chromedp.Navigate(v.pageURL("settings")),
		chromedp.SendKeys("API key", "k-1", byRole("textbox", "API key")),
		click("button", "Save settings"),
		waitText("start serve with --keychain file"),
		waitJS(`() => document.querySelector('[data-error-of="apiKey"]').innerText.includes("--keychain file")`),
	)
	if err != nil {
		t.Fatal(err)
	}
}

// The settings read in the manifest's order, not by name.
func TestBrowserSettingsInTheManifestsOrder(t *testing.T) {
	ctx := browser(t)
	v := installedView(t)
	var got []string
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		chromedp.Navigate(v.pageURL("settings")),
		waitText("Default: hello"),
	)
	if err != nil {
		t.Fatal(err)
	}
	got, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-field]'), el => el.dataset.field)`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"greeting", "retries", "ratio", "mode", "verbose", "apiKey"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("fields %v, want the manifest's order %v", got, want)
	}
}

// The list shows each plugin's description, and the built-in ACP harness
// as the CLI's list does, switched from there.
func TestBrowserListShowsDescriptionsAndTheACPHarness(t *testing.T) {
	ctx := browser(t)
	v := installedView(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		waitText("A plugin the Plugins view's tests install."),
		waitText(harness.ACPPluginID),
		waitText("ACP harness"),
		click("button", "Disable ACP harness"),
		waitText("Disabled: no described harness runs"),
		waitJS(`() => document.querySelector('[data-plugin="dev.escouade.acp"]').innerText.includes("Disabled")`),
	)
	if err != nil {
		t.Fatal(err)
	}
	if on, _ := harness.ACPEnabled(v.home); on {
		t.Error("the ACP harness is still enabled")
	}
	if err := chromedp.Do(ctx, click("button", "Enable ACP harness"), waitText("Enabled: the described harnesses run again")); err != nil {
		t.Fatal(err)
	}
	if on, _ := harness.ACPEnabled(v.home); !on {
		t.Error("the ACP harness is still disabled")
	}
}

// Restart is not offered on a disabled plugin; it is again once enabled.
func TestBrowserNoRestartOnADisabledPlugin(t *testing.T) {
	ctx := browser(t)
	v := installedView(t)
	restarts := `document.querySelectorAll('form[action$="/restart"]').length`
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		chromedp.Navigate(v.pageURL("settings")),
		click("button", "Disable"),
		waitText("State: Disabled"),
		waitJS(`() => `+restarts+` === 0`),
		click("button", "Enable"),
		waitText("State: Idle"),
		waitJS(`() => `+restarts+` === 1`),
	)
	if err != nil {
		t.Fatal(err)
	}
}

// A relative folder typed is read from the folder serve runs in, and the
// window says so, naming both.
func TestBrowserRelativeFolderIsSaid(t *testing.T) {
	ctx := browser(t)
	v := startView(t, "")
	dir := pluginFolder(t, fixtureManifest("1.0.0"))
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(cwd, dir)
	if err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		fill("Plugin folder or git URL", rel),
		click("button", "Read the plugin"),
		waitText("Install View fixture"),
	)
	if err != nil {
		t.Fatal(err)
	}
	said, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("relative-dir")))
	if err != nil {
		t.Fatal(err)
	}
	want := "“" + rel + "” is a relative folder: it was read from the folder serve runs in, " + cwd + ", as " + dir + "."
	if said != want {
		t.Errorf("the window says %q, want %q", said, want)
	}
}
