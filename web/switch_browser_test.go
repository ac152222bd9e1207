package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/escouade-dev/escouade-plugin/host"
)

// Disable stops the program and records it as the CLI's disable does;
// Enable switches it back on; Uninstall forgets it and stops it.
func TestBrowserDisableEnableUninstall(t *testing.T) {
	ctx := browser(t)
	v := installedView(t)
	v.call("fixture/pid", nil)
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		chromedp.Navigate(v.pageURL("settings")),
		waitText("State: Ready"),
		click("button", "Disable"),
		waitText("Disabled: it does not start until enabled."),
		waitText("State: Disabled"),
	)
	if err != nil {
		t.Fatal(err)
	}
	if en := mustEntry(t, v, fixtureID); !en.Disabled {
		t.Error("the registry does not record it disabled")
	}
	if out := v.call("fixture/pid", nil); out.Default != host.Stopped || out.Reason != "disabled" {
		t.Errorf("a call to the disabled plugin: %+v", out)
	}
	err = chromedp.Do(ctx,
		click("button", "Enable"),
		waitText("Enabled: it starts at its next activation."),
		waitText("State: Idle"),
	)
	if err != nil {
		t.Fatal(err)
	}
	if en := mustEntry(t, v, fixtureID); en.Disabled {
		t.Error("the registry still records it disabled")
	}
	v.call("fixture/pid", nil)
	err = chromedp.Do(ctx,
		click("button", "Uninstall…"),
		click("button", "Uninstall View fixture"),
		waitText("No plugin installed yet."),
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := v.registry().Get(fixtureID); ok {
		t.Error("still in the registry after Uninstall")
	}
	if st := v.plugin().Status().State; st != host.StateDisabled {
		t.Errorf("the program of an uninstalled plugin: %s, want it stopped", st)
	}
}

// The page works in a narrow window without a sideways scroll, and its
// buttons are reached with the keyboard alone.
func TestBrowserNarrowAndKeyboard(t *testing.T) {
	ctx := browser(t)
	v := installedView(t)
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(360, 720),
		chromedp.Navigate(v.url()),
		waitText("View fixture"),
	)
	if err != nil {
		t.Fatal(err)
	}
	noScroll := `() => document.documentElement.scrollWidth <= window.innerWidth`
	if err := chromedp.Do(ctx, waitJS(noScroll)); err != nil {
		t.Errorf("the list scrolls sideways at 360 px: %v", err)
	}
	screenshot(t, ctx, "list-narrow")
	for _, tab := range []string{"settings", "permissions", "journal"} {
		if err := chromedp.Do(ctx, chromedp.Navigate(v.pageURL(tab)), waitText("State:"), waitJS(noScroll)); err != nil {
			t.Errorf("the %s tab scrolls sideways at 360 px: %v", tab, err)
		}
	}
	screenshot(t, ctx, "journal-narrow")

	// Tab until Restart has the focus, then press Enter.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1024, 768), chromedp.Navigate(v.pageURL("settings")), waitText("State: Idle")); err != nil {
		t.Fatal(err)
	}
	reached := false
	for range 20 {
		if err := chromedp.Do(ctx, chromedp.KeyEvent("\t")); err != nil {
			t.Fatal(err)
		}
		name, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.innerText || ""`))
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(name) == "Restart" {
			reached = true
			break
		}
	}
	if !reached {
		t.Fatal("Restart is not reached with the Tab key")
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\r"), waitText("State: Ready")); err != nil {
		t.Fatalf("Enter on Restart: %v", err)
	}
}

// With --lang fr the page and the plugin's texts are in French.
func TestBrowserFrench(t *testing.T) {
	ctx := browser(t)
	home := t.TempDir()
	installed(t, home, pluginFolder(t, fixtureManifest("1.0.0")))
	v := startView(t, home, func(o *Options) { o.Host.Lang = "fr" })
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		waitText("Plugins installés"),
		waitText("Banc de la vue"),
		click("link", "Banc de la vue"),
		waitText("Salutation"),
		waitText("Relancer"),
	)
	if err != nil {
		t.Fatal(err)
	}
	lang, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.lang`))
	if err != nil || lang != "fr" {
		t.Errorf("html lang %q (%v)", lang, err)
	}
	screenshot(t, ctx, "plugin-fr")
}
