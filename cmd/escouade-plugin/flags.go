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

// common holds the flags of every command that runs plugins (docs/CLI.md#flags-of-run-and-test).
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

// commonFlag selects a common flag, so that each command registers, and
// its -h lists, only the flags it uses.
type commonFlag uint

const (
	flagHome commonFlag = 1 << iota
	flagKeychain
	flagSecret
	flagLang
	flagAppVersion
	flagSettings
	flagProject
	flagAccountHost
	flagSharedHost
	flagProxy
	flagDelay
	flagMemoryLimit

	// allCommon is every common flag: run and serve use them all.
	allCommon = flagMemoryLimit<<1 - 1
	// benchCommon are the flags of test: it never opens a keychain.
	benchCommon = allCommon &^ flagKeychain
	// harnessCommon are the flags the harness command reads.
	harnessCommon = flagHome | flagLang | flagAppVersion
)

// register registers every common flag.
func (c *common) register(fs *flag.FlagSet) { c.registerOnly(fs, allCommon) }

// registerOnly registers the common flags of set; the others keep their
// defaults.
func (c *common) registerOnly(fs *flag.FlagSet, set commonFlag) {
	c.lang, c.appVersion, c.memoryLimit = "en", host.AppVersion, "1024MB"
	if set&flagHome != 0 {
		fs.StringVar(&c.home, "home", "", "home folder (default $ESCOUADE_HOME, else ~/.escouade)")
	}
	if set&flagKeychain != 0 {
		fs.StringVar(&c.keychain, "keychain", "", "where secrets live: system, file or memory (default system)")
	}
	if set&flagSecret != 0 {
		fs.Var(&c.secrets, "secret", "KEY=VALUE: a secret of the plugin, a key its permissions.secrets grant (repeatable; implies --keychain memory)")
	}
	if set&flagLang != 0 {
		fs.StringVar(&c.lang, "lang", "en", "interface language: en or fr")
	}
	if set&flagAppVersion != 0 {
		fs.StringVar(&c.appVersion, "app-version", host.AppVersion, "the Escouade version plugins see")
	}
	if set&flagSettings != 0 {
		fs.StringVar(&c.settings, "settings", "", "a JSON file of the user's settings of the plugin: {\"key\": value}, keys of contributes.settings")
	}
	if set&flagProject != 0 {
		fs.Var(&c.projects, "project", "ID=DIR: a project whose .escouade.yml is in DIR (repeatable)")
	}
	if set&flagAccountHost != 0 {
		fs.StringVar(&c.accountHost, "account-host", "", "HOST[:PORT] of an account the user typed")
	}
	if set&flagSharedHost != 0 {
		fs.StringVar(&c.sharedHost, "shared-host", "", "HOST:PORT of a harness's local server")
	}
	if set&flagProxy != 0 {
		fs.StringVar(&c.proxy, "proxy", "", "the app's network proxy URL")
	}
	if set&flagDelay != 0 {
		fs.Var(&c.delays, "delay", "METHOD=DURATION: override a call's delay (repeatable)")
	}
	if set&flagMemoryLimit != 0 {
		fs.StringVar(&c.memoryLimit, "memory-limit", "1024MB", "memory limit of a process plugin")
	}
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
			return nil, usageError{flagProblem(fs, err)}
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
		return nil, fmt.Errorf("--settings %s: %s", c.settings, fileProblem(err))
	}
	m, problem := decodeObject(data)
	if problem != "" {
		return nil, fmt.Errorf(`--settings %s: %s (fix: write one JSON object of setting values, e.g. {"greeting": "Salut"})`, c.settings, problem)
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
	name := h.fs.Name()
	cmd, ok := commands()[name]
	if !ok {
		cmd = command{synopsis: name}
	}
	fmt.Fprintf(w, "usage: escouade-plugin %s\n", cmd.synopsis)
	if cmd.summary != "" {
		fmt.Fprintf(w, "\n%s\n", cmd.summary)
	}
	count := 0
	h.fs.VisitAll(func(*flag.Flag) { count++ })
	if count == 0 {
		fmt.Fprintln(w, "\nIt takes no flags.")
		return
	}
	fmt.Fprintln(w, "\nflags (before or after the arguments):")
	printFlags(w, h.fs)
}

// printFlags lists the flags as the command line takes them, with two
// dashes (flag.PrintDefaults writes one, which reads as another syntax),
// each with its argument's name, its use and its default.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if arg != "" {
			line += " " + arg
		}
		switch {
		case !hasDefault(f):
		case arg == "string":
			usage += fmt.Sprintf(" (default %q)", f.DefValue)
		default:
			usage += " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
	})
}

// hasDefault tells a default worth printing from a zero value.
func hasDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "false", "0", "[]":
		return false
	}
	return true
}

// usageError is a mistake in the command line: exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}
