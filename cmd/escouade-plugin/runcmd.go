package main

import (
	"context"
	"flag"
	"fmt"
	"sync"

	"github.com/escouade-dev/escouade-plugin/cmd/escouade-plugin/internal/console"
	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
	"github.com/escouade-dev/escouade-plugin/registry"
)

func cmdRun(e env, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var c common
	c.registerOnly(fs, allCommon)
	follow := fs.Bool("follow", false, "also write every journal line and state change")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one plugin folder: escouade-plugin run DIR (escouade-plugin help run)")
	}
	if err := c.check(); err != nil {
		return err
	}
	m, err := manifest.Load(pos[0], manifest.LoadOptions{AppVersion: c.appVersion})
	if err != nil {
		return err
	}
	cfg, err := c.pluginConfig(m)
	if err != nil {
		return err
	}
	warnNoActivation(e.stderr, m)
	if err := missingBuild(m); err != nil {
		return err
	}
	warnStale(e.stderr, "run", m)
	if en, ok := installedState(c.homeDir(), m); ok && en.Disabled {
		cfg.Disabled = true
		fmt.Fprintf(e.stderr, "escouade-plugin run: %s is installed and disabled (escouade-plugin disable): it stays off and every call gets the default answer "+
			"(fix: escouade-plugin enable %s, or send {\"op\":\"enable\"} for this run)\n", m.ID, m.ID)
	}
	opts, err := c.hostOptions(m.ID)
	if err != nil {
		return err
	}
	mo := c.moduleOptions()
	mo.FirstCompile = func(line string) { fmt.Fprintf(e.stderr, "escouade-plugin run: %s\n", line) }
	if _, err := modules.Configure(context.Background(), &opts, mo); err != nil {
		return err
	}
	con := &console.Console{Follow: *follow, Load: loadUpdate(c.appVersion)}
	opts.OnState = con.StateChanged
	h := host.New(opts)
	p, err := h.Add(m, cfg)
	if err != nil {
		return err
	}
	con.Host, con.Plugin = h, p
	return con.Serve(context.Background(), e.stdin, e.stdout)
}

// pluginConfig reads the flags that speak of the plugin's own keys, and
// refuses those it would never see: a --secret its permissions do not
// grant, a --settings key its manifest does not declare.
func (c *common) pluginConfig(m *manifest.Manifest) (host.Config, error) {
	if err := checkSecretFlags(m, c.secrets); err != nil {
		return host.Config{}, err
	}
	settings, err := c.userSettings()
	if err != nil {
		return host.Config{}, usageError{err.Error()}
	}
	if err := checkSettings(m, c.settings, settings); err != nil {
		return host.Config{}, err
	}
	// run is a folder the person runs themselves (docs/CLI.md#run): no
	// consent is checked, and it is granted all it asks.
	granted := m.Permissions
	return host.Config{Settings: settings, Granted: &granted, Admit: registry.AnyFolder}, nil
}

// check refuses flag values that do not parse, before anything is loaded.
func (c *common) check() error {
	if _, err := c.hostOptionsWithout(); err != nil {
		return err
	}
	_, err := appProxy(c.homeDir(), c.proxy)
	return err
}

// hostOptionsWithout turns the flags into host options, without the keychain.
func (c *common) hostOptionsWithout() (host.Options, error) {
	limit, err := parseSize(c.memoryLimit)
	if err != nil {
		return host.Options{}, usageError{err.Error()}
	}
	delays, err := c.delayMap()
	if err != nil {
		return host.Options{}, usageError{err.Error()}
	}
	if c.lang != "en" && c.lang != "fr" {
		return host.Options{}, usagef("--lang %q: want en or fr", c.lang)
	}
	return host.Options{
		Home:        c.homeDir(),
		AppVersion:  c.appVersion,
		Lang:        c.lang,
		Projects:    c.projectResolver(),
		Delays:      delays,
		MemoryLimit: limit,
	}, nil
}

// moduleOptions are the flags module plugins depend on. The proxy is
// --proxy, else Settings › Network's, read again at each start so that a
// proxy set in the view holds from the next start.
func (c *common) moduleOptions() modules.Options {
	o := modules.Options{Home: c.homeDir(), Proxy: c.proxy, ProxyNow: c.proxyNow()}
	if c.accountHost != "" {
		o.AccountHosts = []string{c.accountHost}
	}
	if c.sharedHost != "" {
		o.LocalShared = []string{c.sharedHost}
	}
	return o
}

// proxyNow reads the proxy for a start. A file damaged since the last
// start keeps the proxy of that start: the check of the command line
// refused a damaged one already, and the view writes only a valid one.
func (c *common) proxyNow() func() string {
	home, flagValue := c.homeDir(), c.proxy
	var mu sync.Mutex
	last := flagValue
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		if p, err := appProxy(home, flagValue); err == nil {
			last = p
		}
		return last
	}
}

// hostOptions turns the common flags into host options for plugin id.
func (c *common) hostOptions(id string) (host.Options, error) {
	opts, err := c.hostOptionsWithout()
	if err != nil {
		return opts, err
	}
	opts.Keychain, err = c.openKeychain(id)
	return opts, err
}

// openKeychain opens the chosen keychain and puts the --secret values in it.
func (c *common) openKeychain(id string) (keychain.Keychain, error) {
	kind := c.keychain
	if kind == "" {
		kind = "system"
		if len(c.secrets) > 0 {
			kind = "memory"
		}
	}
	kc, err := keychain.Open(kind, c.homeDir())
	if err != nil {
		return nil, usageError{fmt.Sprintf("--keychain: %v", err)}
	}
	for _, kv := range c.secrets {
		if err := kc.Set(keychain.Service, keychain.PluginName(id, kv[0]), kv[1]); err != nil {
			return nil, fmt.Errorf("--secret %s: %w", kv[0], err)
		}
	}
	return kc, nil
}

func loadUpdate(appVersion string) func(dir string) (console.Update, error) {
	return func(dir string) (console.Update, error) {
		m, err := manifest.Load(dir, manifest.LoadOptions{AppVersion: appVersion})
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, p *host.Plugin) error { return p.Update(ctx, m) }, nil
	}
}
