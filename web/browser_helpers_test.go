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
		ok, err := chromedp.Evaluate[bool](`document.activeElement !== null && document.activeElement.value === `+jsString(text))(ctx, t)
		if err == nil && !ok {
			err = errReplaced
		}
		return chromedp.Void{}, err
	}
}

// errReplaced says the field typed into is no longer the page's.
var errReplaced = errors.New("the field typed into was replaced")

// afresh runs a, and runs it again, looking its element up anew, each
// time it fails on a node or a script context the page replaced; it
// waits for the page to change (its document, its nodes or its script
// context) before each new try, within the test's deadline.
func afresh(a chromedp.Action[chromedp.Void]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		changed, stop, err := pageChanges(ctx)
		if err != nil {
			return chromedp.Void{}, err
		}
		defer stop()
		for {
			_, err := a(ctx, t)
			if err == nil || !stale(err) {
				return chromedp.Void{}, err
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return chromedp.Void{}, fmt.Errorf("%w (then %v)", err, ctx.Err())
			}
		}
	}
}

// pageChanges signals each change of the page's document, nodes or script
// contexts, until stop; a change seen while nobody waits is kept for the
// next wait.
func pageChanges(ctx context.Context) (<-chan struct{}, func(), error) {
	changed := make(chan struct{}, 1)
	lctx, stop := context.WithCancel(ctx)
	err := chromedp.Listen(lctx, func(ev any) {
		switch ev.(type) {
		case *dom.EventDocumentUpdated, *dom.EventChildNodeRemoved, *dom.EventChildNodeInserted,
			*dom.EventSetChildNodes, *dom.EventChildNodeCountUpdated, *dom.EventAttributeModified,
			*runtime.EventExecutionContextCreated, *runtime.EventExecutionContextDestroyed,
			*cdppage.EventFrameNavigated:
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	if err != nil {
		stop()
		return nil, nil, err
	}
	return changed, stop, nil
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

// waitJS waits until the page function, given args, returns true. A
// function that throws (what it reads is not there yet) counts as false.
// A page that goes away (a click that navigates) ends the poll: it polls
// again on the next page once its script context is there.
func waitJS(fn string, args ...any) chromedp.Action[chromedp.Void] {
	guarded := `(...args) => { try { return (` + fn + `)(...args) === true } catch (e) { return false } }`
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		changed, stop, err := pageChanges(ctx)
		if err != nil {
			return chromedp.Void{}, err
		}
		defer stop()
		deadline := time.Now().Add(scaled(30 * time.Second))
		for {
			_, err := chromedp.PollFunction[bool](guarded, chromedp.WithPollingArgs(args...),
				chromedp.WithPollingTimeout(time.Until(deadline)))(ctx, t)
			if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
				return chromedp.Void{}, err
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return chromedp.Void{}, err
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

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
