package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/escouade-dev/escouade-plugin/conformance"
	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// cmdDev is the author's loop (docs/CLI.md#dev): it builds the plugin in
// DIR its kind's way, starts it, plays the bench over it, and follows its
// journal; then at each change of the folder it does it again. Ctrl+C
// ends it: the plugin is stopped and the exit code is 0.
func cmdDev(e env, args []string) error {
	fs := flag.NewFlagSet("dev", flag.ContinueOnError)
	var c common
	c.registerOnly(fs, allCommon)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one plugin folder: escouade-plugin dev DIR (escouade-plugin help dev)")
	}
	if err := c.check(); err != nil {
		return err
	}
	dir, err := filepath.Abs(pos[0])
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d := &devLoop{e: e, c: &c, dir: dir, home: c.homeDir(), after: time.After}
	return d.run(ctx)
}

// devLoop is one dev command: the host its plugin runs in, kept across
// rebuilds while the plugin's id stays.
type devLoop struct {
	e     env
	c     *common
	dir   string
	home  string
	after func(time.Duration) <-chan time.Time

	mu     sync.Mutex // the output's lines stay whole
	h      *host.Host
	p      *host.Plugin
	cancel func() // the journal's subscription
}

func (d *devLoop) say(format string, a ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintf(d.e.stdout, "escouade-plugin dev: "+format+"\n", a...)
}

func (d *devLoop) run(ctx context.Context) error {
	defer d.closeHost()
	// The watch starts first, so that an edit made during the first build
	// is not missed; the build's own output is left out of it.
	var outputs []string
	if m, err := manifest.Load(d.dir, manifest.LoadOptions{AppVersion: d.c.appVersion}); err == nil {
		outputs = []string{modules.BuildOf(m).Output}
	}
	fw, err := watchFolder(ctx, d.dir, devIgnored(outputs))
	if err != nil {
		return err
	}
	if fw.Full {
		d.say("watching the first %d folders of %s only", maxWatchedFolders, d.dir)
	}
	bursts := debounce(ctx, fw.Raw, devQuiet, d.after)
	d.cycle(ctx, "")
	d.say("watching %s for changes (Ctrl+C ends)", d.dir)
	for {
		select {
		case <-ctx.Done():
			d.say("stopped")
			return nil
		case b, ok := <-bursts:
			if !ok {
				d.say("stopped")
				return nil
			}
			what := b.first
			if b.n > 1 {
				what = fmt.Sprintf("%s and %d more changes", b.first, b.n-1)
			}
			d.cycle(ctx, what)
		}
	}
}

// cycle loads, builds, restarts and benches the plugin once; it returns
// the manifest, nil when it did not load.
func (d *devLoop) cycle(ctx context.Context, changed string) *manifest.Manifest {
	if changed != "" {
		d.say("changed: %s", changed)
	}
	m, err := manifest.Load(d.dir, manifest.LoadOptions{AppVersion: d.c.appVersion})
	if err != nil {
		d.say("not rebuilt: %v", err)
		return nil
	}
	kind := modules.BuildOf(m)
	d.say("building %s (%s)", m.ID, buildName(kind))
	if err := buildOwnWay(ctx, d.home, m, progressTo(d.e.stderr, false)); err != nil {
		if ctx.Err() != nil {
			return m // Ctrl+C during the build: not a failure of it
		}
		d.say("build failed, the plugin is not restarted: %v", err)
		return m
	}
	d.restart(ctx, m)
	d.bench(ctx)
	return m
}

// sameManifest reports whether a and b say the same.
func sameManifest(a, b *manifest.Manifest) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

func buildName(b modules.Build) string {
	if b.Line == "" {
		return "nothing to build: checked only"
	}
	return b.Line
}

// restart starts the plugin again with the manifest of now, in the host
// of its id.
func (d *devLoop) restart(ctx context.Context, m *manifest.Manifest) {
	if d.p != nil && d.p.ID() != m.ID {
		d.closeHost()
	}
	if d.p == nil {
		if err := d.openHost(ctx, m); err != nil {
			d.say("not started: %v", err)
			return
		}
	} else if !sameManifest(d.p.Manifest(), m) {
		if err := d.p.Update(ctx, m); err != nil {
			d.say("not restarted: %v", err)
			return
		}
	}
	if err := d.p.Restart(ctx); err != nil {
		d.say("not restarted: %v", err)
		return
	}
	d.say("restarted: %s", d.p.Status().State)
}

// openHost makes the host of m. A development install of this very
// folder runs as installed, consent-checked at each start; any other
// folder runs as under escouade-plugin run, granted all it asks.
func (d *devLoop) openHost(ctx context.Context, m *manifest.Manifest) error {
	cfg, err := d.config(m)
	if err != nil {
		return err
	}
	opts, err := d.c.hostOptions(m.ID)
	if err != nil {
		return err
	}
	if _, err := modules.Configure(ctx, &opts, d.c.moduleOptions()); err != nil {
		return err
	}
	d.h = host.New(opts)
	if d.p, err = d.h.Add(m, cfg); err != nil {
		d.closeHost()
		return err
	}
	d.cancel = d.p.Journal().Subscribe(func(line string) {
		d.mu.Lock()
		defer d.mu.Unlock()
		fmt.Fprintf(d.e.stdout, "journal: %s\n", line)
	})
	return nil
}

// config is the plugin's config: as installed for a development install
// of this folder, else as run gives it.
func (d *devLoop) config(m *manifest.Manifest) (host.Config, error) {
	en, ok := installedState(d.home, m)
	if !ok || en.Dev == nil {
		d.say("%s is not a development install of this folder: it runs as under escouade-plugin run, granted all it asks "+
			"(escouade-plugin install --dev %s has the app restart it too without a review)", m.ID, d.dir)
		return d.c.pluginConfig(m)
	}
	d.say("%s is a development install: each start is checked against what you consented to", m.ID)
	settings, err := registry.LoadSettings(d.home, m.ID)
	if err != nil {
		return host.Config{}, err
	}
	granted := en.Granted
	return host.Config{Granted: &granted, Settings: settings, Disabled: en.Disabled}, nil
}

func (d *devLoop) closeHost() {
	if d.cancel != nil {
		d.cancel()
		d.cancel = nil
	}
	if d.h != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		d.h.Close(ctx)
	}
	d.h, d.p = nil, nil
}

// bench plays the bench over the folder, as escouade-plugin test does,
// and says its failed rows and its summary.
func (d *devLoop) bench(ctx context.Context) {
	opts, err := d.c.benchOptions()
	if err != nil {
		d.say("bench not played: %v", err)
		return
	}
	transports, wt, err := modules.Transports(ctx, d.c.moduleOptions(), opts.StopGrace, d.c.appVersion)
	if err != nil {
		d.say("bench not played: %v", err)
		return
	}
	defer wt.Close(context.Background())
	opts.Transports = transports
	opts.ModuleServices = modules.Services(d.c.moduleOptions())
	opts.Home = d.home
	report := conformance.Run(ctx, d.dir, opts)
	if errors.Is(ctx.Err(), context.Canceled) {
		return
	}
	for _, r := range report.Results {
		if r.Status == conformance.Fail {
			d.say("bench: FAIL %s: %s (fix: %s)", r.Check, r.Got, r.Fix)
		}
	}
	d.say("bench: %s", report.Summary())
}
