package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/internal/console"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
)

func cmdRun(e env, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var c common
	c.register(fs)
	follow := fs.Bool("follow", false, "also write every journal line and state change")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one plugin folder: escouade-plugin run DIR")
	}
	if err := c.check(); err != nil {
		return err
	}
	m, err := manifest.Load(pos[0], manifest.LoadOptions{AppVersion: c.appVersion})
	if err != nil {
		return err
	}
	opts, err := c.hostOptions(m.ID)
	if err != nil {
		return err
	}
	if _, err := modules.Configure(context.Background(), &opts, c.moduleOptions()); err != nil {
		return err
	}
	con := &console.Console{Follow: *follow, Load: loadUpdate(c.appVersion)}
	opts.OnState = con.StateChanged
	h := host.New(opts)
	settings, err := c.userSettings()
	if err != nil {
		return err
	}
	p, err := h.Add(m, host.Config{Settings: settings})
	if err != nil {
		return err
	}
	con.Host, con.Plugin = h, p
	return con.Serve(context.Background(), e.stdin, e.stdout)
}

// check refuses flag values that do not parse, before anything is loaded.
func (c *common) check() error {
	_, err := c.hostOptionsWithout()
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

// moduleOptions are the flags module plugins depend on.
func (c *common) moduleOptions() modules.Options {
	o := modules.Options{Home: c.homeDir(), Proxy: c.proxy}
	if c.accountHost != "" {
		o.AccountHosts = []string{c.accountHost}
	}
	if c.sharedHost != "" {
		o.LocalShared = []string{c.sharedHost}
	}
	return o
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
