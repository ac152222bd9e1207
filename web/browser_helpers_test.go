package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
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

// Every action below looks its element up by role and name (or by a CSS
// selector) when it runs, never keeps a node from an earlier step, and is
// tried again when the page replaced the node between its lookup and its
// use: a list redrawn by its script, a page that navigated. A browser
// under load takes longer between the two, which is when a held node
// fails with "Could not find node with given id".

// click presses the element of that role and name.
func click(role, name string) chromedp.Action[chromedp.Void] {
	return afresh(chromedp.Click(role+" "+name, byRole(role, name)))
}

// fill types text into the field of that label, replacing what it held,
// and waits until the field holds it: keys typed into a field the page
// replaced meanwhile are typed again into the new one.
func fill(label, text string) chromedp.Action[chromedp.Void] {
	sel := "textbox " + label
	return afresh(chromedp.Steps(
		chromedp.Focus(sel, byRole("textbox", label)),
		// SetValue cannot set "": it sends no argument for it.
		evalVoid(`document.activeElement.value = ""`),
		chromedp.SendKeys(sel, text, byRole("textbox", label)),
		holds(text),
	))
}

// typeInto types text at the end of what the field of that label holds.
func typeInto(label, text string) chromedp.Action[chromedp.Void] {
	return afresh(chromedp.SendKeys("textbox "+label, text, byRole("textbox", label)))
}

// choose picks the option of that value in the menu (combobox) of that
// label, as a person does: the page gets its change event.
func choose(label, value string) chromedp.Action[chromedp.Void] {
	return afresh(chromedp.SetValue("select "+label, value, byRole("combobox", label)))
}

// waitVisible waits until an element of that role and name is shown.
func waitVisible(role, name string) chromedp.Action[chromedp.Void] {
	return afresh(chromedp.WaitVisible(role+" "+name, byRole(role, name)))
}

// textOf is the visible text of the first element the CSS selector finds,
// once there is one.
func textOf(css string) chromedp.Action[string] {
	return func(ctx context.Context, t *chromedp.Target) (string, error) {
		if _, err := waitJS(`(sel) => document.querySelector(sel) !== null`, css)(ctx, t); err != nil {
			return "", err
		}
		return chromedp.Evaluate[string](`document.querySelector(`+jsString(css)+`).innerText`)(ctx, t)
	}
}

// holds fails with errReplaced unless the focused field holds text (the
// browser has handled each key before its dispatch returns), so that
// afresh types it again.
func holds(text string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		if strings.ContainsAny(text, "\r\n\t") {
			return chromedp.Void{}, nil // Enter and Tab act (a prompt sent, the focus moved): the field need not hold them
		}
		ok, err := chromedp.Evaluate[bool](`document.activeElement !== null && document.activeElement.value === `+jsString(text))(ctx, t)
		if err == nil && !ok {
			err = errReplaced
		}
		return chromedp.Void{}, err
	}
}

// errReplaced says the field typed into is no longer the page's.
var errReplaced = errors.New("the field typed into was replaced")

// afresh runs a, and runs it again each time it fails on a node or a
// script context the page replaced: each try looks its element up anew
// and waits, as every query does, until the page shows it. Nothing is
// tried again past the test's deadline.
func afresh(a chromedp.Action[chromedp.Void]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		for retyped := 0; ; {
			_, err := a(ctx, t)
			if err == nil || !stale(err) || ctx.Err() != nil {
				return chromedp.Void{}, err
			}
			// A field that never holds what is typed (its script changes
			// it) is not replaced: it is said after a few tries.
			if errors.Is(err, errReplaced) {
				if retyped++; retyped == 3 {
					return chromedp.Void{}, fmt.Errorf("%w, or does not keep what is typed", err)
				}
			}
		}
	}
}

// pageEvents signals, until stop, each script context the page makes
// (created) and each page that replaces the one shown (left): a page
// loaded, a reload, a click that navigates.
func pageEvents(ctx context.Context) (created, left <-chan struct{}, stop func(), err error) {
	made, gone := make(chan struct{}, 1), make(chan struct{}, 1)
	signal := func(c chan struct{}) {
		select {
		case c <- struct{}{}:
		default:
		}
	}
	lctx, stop := context.WithCancel(ctx)
	err = chromedp.Listen(lctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExecutionContextCreated:
			signal(made)
		case *runtime.EventExecutionContextDestroyed, *runtime.EventExecutionContextsCleared:
			signal(gone)
		case *cdppage.EventFrameNavigated:
			if ev.Frame != nil && ev.Frame.ParentID == "" {
				signal(gone)
			}
		}
	})
	if err != nil {
		stop()
		return nil, nil, nil, err
	}
	return made, gone, stop, nil
}

// staleMessages are the browser's words for a node or script context
// that is no longer the page's.
var staleMessages = []string{
	"Could not find node with given id", "No node with given id found", "Node with given id does not belong to the document",
	"Node is detached from document", "Cannot find context with specified id", "Execution context was destroyed",
	"Inspected target navigated or closed", "Cannot find default execution context",
}

// stale tells whether err is the browser saying a node or script context
// was replaced, or a field typed into was.
func stale(err error) bool {
	if errors.Is(err, errReplaced) {
		return true
	}
	var e *cdproto.Error
	if !errors.As(err, &e) {
		return false
	}
	for _, m := range staleMessages {
		if strings.Contains(e.Message, m) {
			return true
		}
	}
	return false
}

// press sends a key with modifiers to the focused element (KeyEvent's
// keys: "\r" is Enter).
func press(keys string, mods ...chromedp.Modifier) chromedp.Action[chromedp.Void] {
	return chromedp.KeyEvent(keys, chromedp.KeyModifiers(mods...))
}

// waitText waits until the page shows text (its visible text).
func waitText(text string) chromedp.Action[chromedp.Void] {
	return waitJS(`(want) => document.body.innerText.includes(want)`, text)
}

// waitJS waits until the page function, given args, returns a true value
// (as chromedp's polls do). A function that throws (what it reads is not
// there yet) counts as false.
// The function runs in the page the tab shows, not in one remembered: a
// page that goes away (a click that navigates, a reload) ends the poll,
// and it polls the next page, once the browser has made its script
// context.
func waitJS(fn string, args ...any) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		created, left, stop, err := pageEvents(ctx)
		if err != nil {
			return chromedp.Void{}, err
		}
		defer stop()
		deadline := time.Now().Add(scaled(30 * time.Second))
		for {
			drainSignal(left) // a page left before this poll is not the one it runs in
			done, err := pollUntilLeft(ctx, t, left, fn, args, time.Until(deadline))
			switch {
			case done:
				return chromedp.Void{}, nil
			case ctx.Err() != nil:
				return chromedp.Void{}, ctx.Err()
			case errors.Is(err, errLeft):
			case err == nil:
				return chromedp.Void{}, fmt.Errorf("waiting for %s: still false after %s", fn, scaled(30*time.Second))
			case !stale(err):
				return chromedp.Void{}, err
			case strings.Contains(err.Error(), "Cannot find default execution context"):
				// Between two pages: the next one's context is not made
				// yet, and the browser tells when it is.
				select {
				case <-created:
				case <-ctx.Done():
					return chromedp.Void{}, err
				}
			}
		}
	}
}

// errLeft says the page a poll ran in was replaced.
var errLeft = errors.New("the page was left")

// pollUntilLeft is pollPage, ended by errLeft when the page is left.
func pollUntilLeft(ctx context.Context, t *chromedp.Target, left <-chan struct{}, fn string, args []any, within time.Duration) (bool, error) {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	gone := make(chan struct{})
	go func() {
		select {
		case <-left:
			close(gone)
			cancel()
		case <-pctx.Done():
		}
	}()
	done, err := pollPage(pctx, t, fn, args, within)
	select {
	case <-gone:
		if !done {
			return false, errLeft
		}
	default:
	}
	return done, err
}

func drainSignal(c <-chan struct{}) {
	select {
	case <-c:
	default:
	}
}

// pollPage runs fn in the tab's current page at each animation frame
// until it returns a true value (done) or within has passed (not done, no
// error).
func pollPage(ctx context.Context, t *chromedp.Target, fn string, args []any, within time.Duration) (bool, error) {
	list, err := json.Marshal(append([]any{}, args...)) // never null: the function is given ...args
	if err != nil {
		return false, err
	}
	expr := `new Promise((resolve) => {
  const fn = (` + fn + `), args = ` + string(list) + `, end = Date.now() + ` + fmt.Sprint(within.Milliseconds()) + `;
  const check = () => {
    let ok = false;
    try { ok = Boolean(fn(...args)); } catch (e) {}
    if (ok) resolve(true); else if (Date.now() > end) resolve(false); else requestAnimationFrame(check);
  };
  check();
})`
	yes := true
	res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, AwaitPromise: &yes, ReturnByValue: &yes})
	if err != nil {
		return false, err
	}
	if res.ExceptionDetails != nil {
		return false, fmt.Errorf("waiting for %s: %s", fn, res.ExceptionDetails.Text)
	}
	return res.Result != nil && string(res.Result.Value) == "true", nil
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

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
