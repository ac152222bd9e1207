package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/escouade-dev/escouade-plugin/keychain"
)

// A line the plugin logs appears in the Journal tab as it is written, a
// secret it was handed is masked, and the tag filter keeps only its tag.
func TestBrowserJournalLive(t *testing.T) {
	ctx := browser(t)
	v := installedView(t)
	v.kc.Set(keychain.Service, keychain.PluginName(fixtureID, "token"), "hunter2-value")
	v.call("fixture/pid", nil)
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		chromedp.Navigate(v.pageURL("journal")),
		waitText("started, pid"),
	)
	if err != nil {
		t.Fatal(err)
	}
	v.call("fixture/log", map[string]string{"message": "hello from the fixture"})
	v.call("fixture/secret", map[string]string{"key": "token"})
	err = chromedp.Do(ctx,
		waitJS(`(want) => document.querySelector('[role=log]').innerText.includes(want)`, "hello from the fixture"),
		waitJS(`(want) => document.querySelector('[role=log]').innerText.includes(want)`, "got the secret ••••"),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "journal")
	if strings.Contains(bodyText(t, ctx), "hunter2") {
		t.Error("the journal shows a secret the plugin was handed")
	}

	err = chromedp.Do(ctx,
		choose("Tag", "log.info"),
		waitJS(`() => [...document.querySelectorAll('[role=log] li')].every(li => li.hidden === (li.dataset.tag !== 'log.info'))`),
	)
	if err != nil {
		t.Fatal(err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[role=log] li:not([hidden]) .text')].map(e => e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(shown) != 1 || shown[0] != "hello from the fixture" {
		t.Errorf("lines shown under log.info: %q", shown)
	}
	// A line written while filtered is hidden unless it has the tag.
	v.call("fixture/log", map[string]string{"message": "second line"})
	err = chromedp.Do(ctx,
		waitJS(`(want) => [...document.querySelectorAll('[role=log] li:not([hidden])')].some(li => li.textContent.includes(want))`, "second line"),
	)
	if err != nil {
		t.Fatal(err)
	}
}

// After the fourth crash within the window the plugin is stopped with the
// reason; Restart brings it back with its crashes forgotten.
func TestBrowserRestartAfterFourthCrash(t *testing.T) {
	ctx := browser(t)
	v := installedView(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		chromedp.Navigate(v.pageURL("journal")),
		waitText("State: Idle"),
	)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if out := v.call("fixture/crash", nil); out.Default != "crashed" {
			t.Fatalf("crash %d: %+v, want the default answer crashed", i+1, out)
		}
	}
	err = chromedp.Do(ctx,
		waitText("State: Stopped: stopped after 4 crashes within 5 minutes"),
		waitText("Crashes: 4"),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "stopped")
	if out := v.call("fixture/pid", nil); out.Default != "stopped" {
		t.Fatalf("a call to the stopped plugin: %+v, want the default answer stopped", out)
	}
	err = chromedp.Do(ctx,
		click("button", "Restart"),
		waitText("State: Ready"),
		waitText("Crashes: 0"),
	)
	if err != nil {
		t.Fatal(err)
	}
	if out := v.call("fixture/pid", nil); out.IsDefault() || out.Error != nil {
		t.Errorf("a call after Restart: %+v", out)
	}
}
