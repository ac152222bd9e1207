//go:build linux && amd64

package realagents

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// TestRealAgentsInTheAgentsPage plays each real agent on the Agents page
// of `escouade-plugin serve` in headless Chromium: started from the
// Harness menu, a write asked on a card that shows its diff, allowed, the
// turn's end with its tokens, then a turn cancelled with Cancel.
func TestRealAgentsInTheAgentsPage(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs three real agents for about two minutes")
	}
	browserPath := chromium(t)
	for _, name := range []string{"claude", "codex", "goose"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			playInPage(t, agents[name], browserPath)
		})
	}
}

func playInPage(t *testing.T, a realAgent, browserPath string) {
	cwd := t.TempDir()
	mustWrite(t, filepath.Join(cwd, "notes.txt"), notesText)
	srv := a.server(t, a.moves(cwd))
	home := t.TempDir()
	id := installPlugin(t, home, a.plugin)
	base := serve(t, a.environment(t, srv), home)
	ctx := browserTab(t, browserPath)

	harnessID := "plugin:" + id + ":" + harnessOf(t, a.plugin)
	err := chromedp.Do(ctx,
		chromedp.Navigate(base),
		click("link", "Agents"),
		waitText("New agent"),
		chromedp.SetValue("select Harness", harnessID, byRole("combobox", "Harness")),
		fill("Folder", cwd),
		click("button", "New agent"),
		waitJS(`() => location.pathname.startsWith("/agents/") && document.querySelector('[role=log]')?.innerText.includes("session ")`),
		waitText("Idle"),
		fill("Prompt", "STEP-WRITE hello.txt"),
		click("button", "Send"),
		waitJS(`() => document.querySelector('[role=group][aria-label^="Permission"]') !== null`),
	)
	if err != nil {
		t.Fatalf("%s: %v\npage:\n%s\nrequests:\n%s", a.name, err, pageText(ctx), srv.seen())
	}
	if err := chromedp.Do(ctx, waitText("+"+strings.TrimSuffix(helloText, "\n"))); err != nil {
		t.Errorf("%s's card does not show the diff of its write: %v\npage:\n%s", a.name, err, pageText(ctx))
	}
	if err := chromedp.Do(ctx, click("button", "Allow"), waitText("End of turn (end_turn)")); err != nil {
		t.Fatalf("%s: the allowed write's turn did not end: %v\npage:\n%s", a.name, err, pageText(ctx))
	}
	if !tokensShown.MatchString(bodyText(ctx)) {
		t.Errorf("%s's end of turn shows no tokens:\n%s", a.name, pageText(ctx))
	}
	if got, err := os.ReadFile(filepath.Join(cwd, "hello.txt")); err != nil || string(got) != helloText {
		t.Errorf("%s wrote %q (%v) after Allow, want %q", a.name, got, err, helloText)
	}

	runInPage(t, ctx, a, cwd)

	err = chromedp.Do(ctx,
		fill("Prompt", "STEP-WAIT"),
		click("button", "Send"),
		waitText(waitingText),
		click("button", "Cancel"),
		waitText("End of turn (cancelled)"),
	)
	if err != nil {
		t.Fatalf("%s: the cancel: %v\npage:\n%s", a.name, err, pageText(ctx))
	}
}

// runInPage asks the agent to run a command: its card shows the command
// verbatim and what each answer means, and Allow runs it.
func runInPage(t *testing.T, ctx context.Context, a realAgent, cwd string) {
	t.Helper()
	err := chromedp.Do(ctx,
		fill("Prompt", "STEP-RUN"),
		click("button", "Send"),
		waitJS(`() => document.querySelectorAll('[role=group][aria-label^="Permission"]').length === 2`),
	)
	if err != nil {
		t.Fatalf("%s asked no card to run the command: %v\npage:\n%s", a.name, err, pageText(ctx))
	}
	card, _ := chromedp.Run(ctx, chromedp.Evaluate[string](lastCard+`.innerText`))
	if !strings.Contains(card, runCommand) {
		t.Errorf("%s's card does not show the command %q:\n%s", a.name, runCommand, card)
	}
	if strings.Contains(card, "reject_always") || a.name == "Goose" {
		if !strings.Contains(card, "(permanent)") {
			t.Errorf("%s's card does not say its permanent deny is permanent:\n%s", a.name, card)
		}
	}
	err = chromedp.Do(ctx,
		evalVoid(`[...`+lastCard+`.querySelectorAll("button")].find((b) => (b.getAttribute("aria-label") || b.textContent) === "Allow").click()`),
		waitJS(`() => document.body.innerText.split("End of turn (end_turn)").length === 3`),
	)
	if err != nil {
		t.Fatalf("%s: the allowed command's turn did not end: %v\npage:\n%s", a.name, err, pageText(ctx))
	}
	if got, err := os.ReadFile(filepath.Join(cwd, "ran.txt")); err != nil || string(got) != ranMarker+"\n" {
		t.Errorf("%s's command wrote %q (%v), want %q", a.name, got, err, ranMarker+"\n")
	}
}

// lastCard is the page's newest permission card.
const lastCard = `[...document.querySelectorAll('[role=group][aria-label^="Permission"]')].pop()`

// installPlugin installs the plugin folder under home, consenting to
// what it asks, and gives its id.
func installPlugin(t *testing.T, home, dir string) string {
	t.Helper()
	m, err := manifest.Load(dir, manifest.LoadOptions{AppVersion: host.AppVersion})
	if err != nil {
		t.Fatal(err)
	}
	offer, err := registry.Prepare(context.Background(), home, m.Dir, registry.InstallOptions{AppVersion: host.AppVersion, Compile: modules.Compiler(home, "")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := offer.Accept(m.Permissions); err != nil {
		t.Fatal(err)
	}
	return m.ID
}

func harnessOf(t *testing.T, dir string) string {
	t.Helper()
	m, err := manifest.Load(dir, manifest.LoadOptions{AppVersion: host.AppVersion})
	if err != nil {
		t.Fatal(err)
	}
	return m.Contributes.Harnesses[0].ID
}

var tokensShown = regexp.MustCompile(`End of turn \(end_turn\), \d+ tokens in`)

var servedAt = regexp.MustCompile(`http://127\.0\.0\.1:\d+/\S*`)

// serve runs `escouade-plugin serve` on a free port and gives the address
// it prints, with its secret.
func serve(t *testing.T, env []string, home string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(bins, "escouade-plugin"), "serve", "--home", home, "--addr", "127.0.0.1:0", "--keychain", "file")
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(waitLong(t)):
			cmd.Process.Kill()
			<-done
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u := servedAt.FindString(sc.Text()); u != "" {
				select {
				case found <- u:
				default:
				}
			}
		}
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(waitLong(t)):
		t.Fatalf("serve printed no address; stderr: %s", stderr.String())
		return ""
	}
}

// chromium is the browser the test drives; it skips only when none is
// installed (CI installs it, scripts/setup).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Skip("no Chromium on this machine: the browser test needs it")
	return ""
}

func browserTab(t *testing.T, path string) context.Context {
	t.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()))
	ctx, cancelTab := chromedp.NewContext(alloc)
	ctx, cancelTime := context.WithTimeout(ctx, 2*waitLong(t))
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1024, 768)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// byRole finds elements by role and accessible name, as assistive
// technology does.
func byRole(role, name string) chromedp.QueryOption {
	return chromedp.ByFunc(func(ctx context.Context, t *chromedp.Target, n *chromedp.Node) ([]cdp.NodeID, error) {
		found, err := cdp.Call(ctx, t, accessibility.QueryAXTree, accessibility.QueryAXTreeParams{NodeID: n.NodeID, AccessibleName: name, Role: role})
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
			return nil, nil
		}
		pushed, err := cdp.Call(ctx, t, dom.PushNodesByBackendIDsToFrontend, dom.PushNodesByBackendIDsToFrontendParams{BackendNodeIDs: ids})
		if err != nil {
			return nil, err
		}
		return pushed.NodeIDs, nil
	})
}

func click(role, name string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(role+" "+name, byRole(role, name))
}

func fill(label, text string) chromedp.Action[chromedp.Void] {
	sel := "textbox " + label
	return chromedp.Steps(
		chromedp.Focus(sel, byRole("textbox", label)),
		evalVoid(`document.activeElement.value = ""`),
		chromedp.SendKeys(sel, text, byRole("textbox", label)),
	)
}

func waitText(text string) chromedp.Action[chromedp.Void] {
	return waitJS(`(want) => document.body.innerText.includes(want)`, text)
}

// waitJS waits until the page function, given args, returns true; a page
// that navigates away is polled again.
func waitJS(fn string, args ...any) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		deadline := time.Now().Add(90 * time.Second)
		for {
			_, err := chromedp.PollFunction[bool](fn, chromedp.WithPollingArgs(args...),
				chromedp.WithPollingTimeout(time.Until(deadline)))(ctx, tg)
			if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
				return chromedp.Void{}, err
			}
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
}

func evalVoid(js string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[any](js)(ctx, tg)
		return chromedp.Void{}, err
	}
}

// bodyText is the visible text of the page; pageText its end, for a
// failure's message.
func bodyText(ctx context.Context) string {
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	return s
}

func pageText(ctx context.Context) string {
	s := bodyText(ctx)
	if len(s) > 6000 {
		s = "…" + s[len(s)-6000:]
	}
	return s
}
