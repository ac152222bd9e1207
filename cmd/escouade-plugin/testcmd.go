package main

import (
	"context"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/escouade-dev/escouade-plugin/conformance"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
)

// cmdTest runs the conformance bench over the plugin in DIR: a table (or
// JSON with --json) ending with "N passed, M failed", exit 1 when a check
// failed. Of the common flags it takes all but --keychain: it never opens
// a keychain (--secret gives the fake values it serves), and --home only
// holds the compile cache of module plugins.
func cmdTest(e env, args []string) error {
	flags := flag.NewFlagSet("test", flag.ContinueOnError)
	var c common
	c.registerOnly(flags, benchCommon)
	asJSON := flags.Bool("json", false, "write the report as JSON")
	pos, err := parse(flags, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one plugin folder: escouade-plugin test DIR [--json] (escouade-plugin help test)")
	}
	opts, err := c.benchOptions()
	if err != nil {
		return err
	}
	// A manifest that does not load is the bench's first row; one that
	// loads is checked against the flags that name its keys. A folder
	// with no manifest at all is one line, as for run: there is nothing
	// to bench, and fifteen skipped rows would only hide the mistake.
	m, err := manifest.Load(pos[0], manifest.LoadOptions{AppVersion: c.appVersion})
	if err == nil {
		if _, err := c.pluginConfig(m); err != nil {
			return err
		}
		warnStale(e.stderr, "test", m)
	} else if _, statErr := os.Stat(filepath.Join(pos[0], manifest.FileName)); errors.Is(statErr, fs.ErrNotExist) {
		return err
	}
	ctx := context.Background()
	transports, modulesTransport, err := modules.Transports(ctx, c.moduleOptions(), opts.StopGrace, c.appVersion)
	if err != nil {
		return err
	}
	defer modulesTransport.Close(ctx)
	opts.Transports = transports
	opts.ModuleServices = modules.Services(c.moduleOptions())
	opts.Home = c.homeDir()
	report := conformance.Run(ctx, pos[0], opts)
	write := report.WriteText
	if *asJSON {
		write = report.WriteJSON
	}
	if err := write(e.stdout); err != nil {
		return err
	}
	if !report.OK() {
		return errFailed
	}
	return nil
}

// benchOptions turns the common flags into the bench's options.
func (c *common) benchOptions() (conformance.Options, error) {
	limit, err := parseSize(c.memoryLimit)
	if err != nil {
		return conformance.Options{}, usageError{err.Error()}
	}
	delays, err := c.delayMap()
	if err != nil {
		return conformance.Options{}, usageError{err.Error()}
	}
	if c.lang != "en" && c.lang != "fr" {
		return conformance.Options{}, usagef("--lang %q: want en or fr", c.lang)
	}
	settings, err := c.userSettings()
	if err != nil {
		return conformance.Options{}, usageError{err.Error()}
	}
	return conformance.Options{
		AppVersion:  c.appVersion,
		Lang:        c.lang,
		Delays:      delays,
		MemoryLimit: limit,
		Secrets:     pairMap(c.secrets),
		Settings:    settings,
		Projects:    pairMap(c.projects),
	}, nil
}

// pairMap turns NAME=VALUE flags into a map, the last value of a name
// winning.
func pairMap(p pairs) map[string]string {
	m := make(map[string]string, len(p))
	for _, kv := range p {
		m[kv[0]] = kv[1]
	}
	return m
}
