package web

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"
)

// chromium is the browser the tests drive; they skip only when none is
// installed (CI installs it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Skip("no Chromium on this machine: the browser tests need it")
	return ""
}

// browser starts a headless Chromium with a fresh profile and returns a tab.
func browser(t *testing.T) context.Context {
	t.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	ctx, cancelTab := chromedp.NewContext(alloc)
	ctx, cancelTime := context.WithTimeout(ctx, scaled(40*time.Second))
	t.Cleanup(func() {
		cancelTime()
		cancelTab()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1024, 768)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// byRole finds elements by their role and accessible name as the browser
// computes them for assistive technology: the label of an input, the text
// of a button or link, the aria-label of a region.
func byRole(role, name string) chromedp.QueryOption {
	return chromedp.ByFunc(func(ctx context.Context, t *chromedp.Target, n *chromedp.Node) ([]cdp.NodeID, error) {
		found, err := cdp.Call(ctx, t, accessibility.QueryAXTree, accessibility.QueryAXTreeParams{
			NodeID: n.NodeID, AccessibleName: name, Role: role,
		})
		if err != nil {
			return nil, err
		}
		var ids []cdp.BackendNodeID
		for _, ax := range found.Nodes {
			if !ax.Ignored && ax.BackendDOMNodeID != 0 {
				ids = append(ids, ax.BackendDOMNodeID)
			}
		}
		if len(ids) == 0 {
			return nil, nil // not there yet: the query waits
		}
		pushed, err := cdp.Call(ctx, t, dom.PushNodesByBackendIDsToFrontend, dom.PushNodesByBackendIDsToFrontendParams{BackendNodeIDs: ids})
		if err != nil {
			return nil, err
		}
		return pushed.NodeIDs, nil
	})
}

// click presses the element of that role and name.
func click(role, name string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(role+" "+name, byRole(role, name))
}

// fill types text into the field of that label, replacing what it held.
func fill(label, text string) chromedp.Action[chromedp.Void] {
	sel := "textbox " + label
	return chromedp.Steps(
		chromedp.Focus(sel, byRole("textbox", label)),
		// SetValue cannot set "": it sends no argument for it.
		evalVoid(`document.activeElement.value = ""`),
		chromedp.SendKeys(sel, text, byRole("textbox", label)),
	)
}

// waitText waits until the page shows text (its visible text).
func waitText(text string) chromedp.Action[chromedp.Void] {
	return waitJS(`(want) => document.body.innerText.includes(want)`, text)
}

// waitJS waits until the page function, given args, returns true.
func waitJS(fn string, args ...any) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		deadline := time.Now().Add(scaled(30 * time.Second))
		for {
			_, err := chromedp.PollFunction[bool](fn, chromedp.WithPollingArgs(args...),
				chromedp.WithPollingTimeout(time.Until(deadline)))(ctx, t)
			// A click that navigates ends the page the poll ran in: poll
			// the next one.
			if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
				return chromedp.Void{}, err
			}
			select { // the next page is loading: a breath before polling it
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
}

// screenshot writes the page to $ESCOUADE_SCREENSHOTS/<name>.png when
// that variable names a folder.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("ESCOUADE_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// bodyText is the visible text of the page.
func bodyText(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func evalVoid(js string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[any](js)(ctx, t)
		return chromedp.Void{}, err
	}
}
