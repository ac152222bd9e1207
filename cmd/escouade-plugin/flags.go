package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/host"
)

// common holds the flags of every command that runs plugins (CLI.md).
type common struct {
	home        string
	keychain    string
	secrets     pairs
	lang        string
	appVersion  string
	settings    string
	projects    pairs
	accountHost string
	sharedHost  string
	proxy       string
	delays      pairs
	memoryLimit string
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.home, "home", "", "home folder (default $ESCOUADE_HOME, else ~/.escouade)")
	fs.StringVar(&c.keychain, "keychain", "", "where secrets live: system, file or memory (default system)")
	fs.Var(&c.secrets, "secret", "KEY=VALUE: a secret of the plugin (repeatable; implies --keychain memory)")
	fs.StringVar(&c.lang, "lang", "en", "interface language: en or fr")
	fs.StringVar(&c.appVersion, "app-version", host.AppVersion, "the Escouade version plugins see")
	fs.StringVar(&c.settings, "settings", "", "a JSON file of the user's settings of the plugin")
	fs.Var(&c.projects, "project", "ID=DIR: a project whose .escouade.yml is in DIR (repeatable)")
	fs.StringVar(&c.accountHost, "account-host", "", "HOST[:PORT] of an account the user typed")
	fs.StringVar(&c.sharedHost, "shared-host", "", "HOST:PORT of a harness's local server")
	fs.StringVar(&c.proxy, "proxy", "", "the app's network proxy URL")
	fs.Var(&c.delays, "delay", "METHOD=DURATION: override a call's delay (repeatable)")
	fs.StringVar(&c.memoryLimit, "memory-limit", "1024MB", "memory limit of a process plugin")
}

func (c *common) homeDir() string {
	if c.home != "" {
		return c.home
	}
	return host.DefaultHome()
}

// pairs is a repeatable NAME=VALUE flag, kept in order.
type pairs [][2]string

func (p *pairs) String() string { return fmt.Sprint(*p) }

func (p *pairs) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q: want NAME=VALUE", s)
	}
	*p = append(*p, [2]string{k, v})
	return nil
}

// parse reads flags anywhere among the positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, helpRequest{fs}
		} else if err != nil {
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parseSize reads 1024MB, 50MB, 1GB, 512KB or a byte count.
func parseSize(s string) (uint64, error) {
	units := []struct {
		suffix string
		mult   uint64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}}
	up := strings.ToUpper(strings.TrimSpace(s))
	for _, u := range units {
		if num, ok := strings.CutSuffix(up, u.suffix); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(num), 10, 64)
			if err != nil || n == 0 {
				break
			}
			return n * u.mult, nil
		}
	}
	n, err := strconv.ParseUint(up, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("--memory-limit %q: want a size like 1024MB or 50MB", s)
	}
	return n, nil
}

func (c *common) delayMap() (map[string]time.Duration, error) {
	m := map[string]time.Duration{}
	for _, kv := range c.delays {
		d, err := parseDuration(kv[1])
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("--delay %s=%s: want a duration like 300ms or 5s", kv[0], kv[1])
		}
		m[kv[0]] = d
	}
	return m, nil
}

// parseDuration reads Go durations (300ms, 5s, 1m30s) and the journal's
// own forms (300 ms, 5 s, 1 min).
func parseDuration(s string) (time.Duration, error) {
	compact := strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	if strings.HasSuffix(compact, "min") {
		compact = strings.TrimSuffix(compact, "in")
	}
	return time.ParseDuration(compact)
}

func (c *common) userSettings() (map[string]json.RawMessage, error) {
	if c.settings == "" {
		return nil, nil
	}
	data, err := os.ReadFile(c.settings)
	if err != nil {
		return nil, fmt.Errorf("--settings: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("--settings %s: want a JSON object of setting values: %v", c.settings, err)
	}
	return m, nil
}

func (c *common) projectResolver() func(string) (string, bool) {
	dirs := map[string]string{}
	for _, kv := range c.projects {
		dirs[kv[0]] = kv[1]
	}
	return func(id string) (string, bool) {
		d, ok := dirs[id]
		return d, ok
	}
}

// helpRequest is -h or --help after a command: its flags are printed on
// stdout and the command exits 0.
type helpRequest struct{ fs *flag.FlagSet }

func (h helpRequest) Error() string { return "help requested" }

func (h helpRequest) print(w io.Writer) {
	fmt.Fprintf(w, "usage: escouade-plugin %s [flags] [args]\n\nflags:\n", h.fs.Name())
	h.fs.SetOutput(w)
	h.fs.PrintDefaults()
}

// usageError is a mistake in the command line: exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}
