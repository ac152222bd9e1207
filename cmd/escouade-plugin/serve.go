package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
	"github.com/escouade-dev/escouade-plugin/web"
)

// serveContext ends when the view must stop: SIGINT or SIGTERM. Tests
// replace it.
var serveContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func cmdServe(e env, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var c common
	c.register(fs)
	addr := fs.String("addr", "127.0.0.1:7777", "loopback address to listen on (port 0 picks a free one)")
	open := fs.Bool("open", false, "open the page in the default browser")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("serve takes no arguments: install plugins from the page (In development) or with escouade-plugin install DIR")
	}
	if err := c.checkServe(); err != nil {
		return err
	}
	listenAddr, err := loopbackAddr(*addr)
	if err != nil {
		return err
	}
	opts, err := c.hostOptionsWithout()
	if err != nil {
		return err
	}
	if opts.Keychain, err = c.serveKeychain(); err != nil {
		return err
	}
	// Module plugins run as under run, and are compiled at install as
	// install compiles them.
	wt, err := modules.Configure(context.Background(), &opts, c.moduleOptions())
	if err != nil {
		return err
	}
	home := c.homeDir()
	view, err := web.New(web.Options{Host: opts, Proxy: c.proxy, Precompile: func(ctx context.Context, m *manifest.Manifest) error {
		_, err := precompile(ctx, home, m, nil)
		return err
	}})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listenAddr)
	if err != nil {
		view.Close(context.Background())
		return fmt.Errorf("%v (is another view running? pick another port with --addr 127.0.0.1:PORT)", err)
	}
	return serveView(e, view, ln, *open, home, wt)
}

// serveView serves until SIGINT or SIGTERM, then stops as Host.Close
// does: shutdown to every running plugin, each program stopped. Once the
// address is said, the modules installed before this version of the host
// are compiled in the background, then loaded into wt, the host's WASM
// transport (warmInBackground).
func serveView(e env, view *web.Server, ln net.Listener, open bool, home string, wt *wasm.Transport) error {
	ctx, stop := serveContext()
	defer stop()
	url := web.URL(ln.Addr().String(), view.Secret())
	fmt.Fprintf(e.stdout, "The Plugins view: %s\n", url)
	fmt.Fprintln(e.stdout, "Open it in a browser of this computer; the address holds this start's secret. Ctrl+C stops.")
	if open {
		if err := openBrowser(url); err != nil {
			fmt.Fprintf(e.stderr, "escouade-plugin serve: could not open a browser (%v): open the address above\n", err)
		}
	}
	e.stdout = &syncWriter{w: e.stdout} // the view's lines and the warm's
	stopWarm := warmInBackground(e, home, wt)
	srv := &http.Server{Handler: view, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
	}
	stopWarm()
	// The live streams end first, so that the server can stop; then every
	// plugin is shut down.
	closeErr := view.Close(context.Background())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(shutdownCtx)
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	fmt.Fprintln(e.stdout, "Stopped: every plugin was shut down.")
	return closeErr
}

// loopbackAddr refuses an address other than loopback: the page installs
// plugins that run programs with the user's rights.
func loopbackAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", usagef("--addr %q: want HOST:PORT, e.g. 127.0.0.1:7777", addr)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", usagef("--addr %s: the view listens on a loopback address only (127.0.0.1 or [::1]): whoever reaches it can install and run programs with your rights", addr)
	}
	return net.JoinHostPort(ip.String(), port), nil
}

// checkServe refuses the common flags that name one plugin: the view
// keeps settings and secrets per plugin, set in its Settings tab.
func (c *common) checkServe() error {
	if len(c.secrets) > 0 {
		return usagef("--secret names no plugin here: set secrets in a plugin's Settings tab, or start the view with --keychain file and put them there")
	}
	if c.settings != "" {
		return usagef("--settings names no plugin here: the view keeps each plugin's settings under the home (%s/<id>.json), set in its Settings tab", "plugin-settings")
	}
	return c.check()
}

func (c *common) serveKeychain() (keychain.Keychain, error) {
	kind := c.keychain
	if kind == "" {
		kind = keychain.KindSystem
	}
	kc, err := keychain.Open(kind, c.homeDir())
	if err != nil {
		return nil, usageError{fmt.Sprintf("--keychain: %v", err)}
	}
	return kc, nil
}

func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}

// warmInBackground compiles, once per version of the host, the modules
// and bundles installed before it (modules.Warm), then, at every start,
// loads them into wt (modules.Preload), so that a plugin's activation
// decodes nothing; all while the view serves. The function it returns
// stops it and waits for it.
func warmInBackground(e env, home string, wt *wasm.Transport) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	say := func(line string) { fmt.Fprintf(e.stdout, "escouade-plugin serve: %s\n", line) }
	go func() {
		defer close(done)
		_, err := modules.Warm(ctx, home, "", say)
		if err != nil && ctx.Err() == nil {
			say(fmt.Sprintf("the installed plugins were not compiled ahead: %v (each compiles at its first start)", err))
		}
		if wt == nil || ctx.Err() != nil {
			return
		}
		if _, err := modules.Preload(ctx, wt, home, say); err != nil && ctx.Err() == nil {
			say(fmt.Sprintf("the installed plugins were not loaded ahead: %v (each loads at its first start)", err))
		}
	}()
	return func() { cancel(); <-done }
}

// syncWriter lets two goroutines write whole lines to one writer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
