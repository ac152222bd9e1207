// Command escouade-plugin stands in for the Escouade app in front of
// plugins and serves plugin authors: it runs a plugin behind a JSON-lines
// console, installs and manages plugins, and shows their journals.
//
//	escouade-plugin run examples/go-notes --secret token=s3cret
//	escouade-plugin journal dev.escouade.example.go-notes -n 50
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/internal/closest"
	"github.com/escouade-dev/escouade-plugin/protocol"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit codes (docs/CLI.md#conventions).
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

type command struct {
	synopsis string // the usage line after "escouade-plugin"
	summary  string
	run      func(e env, args []string) error
}

func commands() map[string]command {
	return map[string]command{
		"run":       {"run DIR [flags]", "a headless host for the plugin in DIR, behind a JSON-lines console on stdin/stdout", cmdRun},
		"test":      {"test DIR [--json] [flags]", "the conformance bench: plays the host against the plugin in DIR, check by check", cmdTest},
		"mcp-stdio": {"mcp-stdio --url URL [--token-file FILE]", "bridge MCP on stdin/stdout to the host's MCP server (token from --token-file or stdin's first line)", cmdMCPStdio},
		"harness":   {"harness DIR [--harness ID] [--mode M] [--model X] [--cwd DIR] [--fence DIR]… [--agent NAME] [--json]", "run a described ACP harness of the plugin in DIR", cmdHarness},
		"dev":       {"dev DIR [flags]", "the author's loop: watch DIR, rebuild its kind's way, restart the plugin, replay the bench, follow the journal", cmdDev},
		"build":     {"build DIR [--json]", "check and precompile a run.js or run.wasm plugin into the compile cache", cmdBuild},
		"serve":     {"serve [--addr 127.0.0.1:7777] [--open]", "the Plugins view in a browser", cmdServe},
		"install":   {"install DIR [--dev] [--json]", "validate the plugin in DIR, show what it asks, and record it under the home", cmdInstall},
		"list":      {"list [--json]", "the installed plugins", cmdList},
		"agents":    {"agents [--json]", "the agents of the described harnesses kept under the home, each with its status", cmdAgents},
		"journal":   {"journal ID [-n N] [-f] [--json]", "the journal of the plugin ID", cmdJournal},
		"restart":   {"restart ID", "start the stopped plugin ID again, its crashes forgotten", cmdSwitch("restart")},
		"enable":    {"enable ID", "switch the plugin ID on", cmdSwitch("enable")},
		"disable":   {"disable ID", "switch the plugin ID off: neither the app nor run starts it", cmdSwitch("disable")},
		"version":   {"version", "the version of escouade-plugin and of the protocol it speaks", cmdVersion},
		"help":      {"help [COMMAND]", "this list, or what COMMAND takes", nil},
	}
}

// commandOrder is the order of the commands in the usage text.
var commandOrder = []string{"run", "test", "dev", "build", "harness", "serve", "install", "list", "agents", "journal", "restart", "enable", "disable", "version", "help"}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "-help":
		usage(stdout)
		return exitOK
	case "--version", "-version", "-v":
		args = []string{"version"}
	case "help":
		return runHelp(args[1:], stdout, stderr)
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "escouade-plugin: %s\n", unknownCommand(args[0]))
		return exitUsage
	}
	err := cmd.run(env{stdin, stdout, stderr}, args[1:])
	var help helpRequest
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &help):
		help.print(stdout)
		return exitOK
	case isUsage(err):
		fmt.Fprintf(stderr, "escouade-plugin %s: %v\n", args[0], err)
		return exitUsage
	case err == errFailed:
		return exitFail
	}
	fmt.Fprintf(stderr, "escouade-plugin %s: %v\n", args[0], err)
	return exitFail
}

// unknownCommand says a command does not exist, naming the one a typo
// stands for, or the command a plugin folder given first wants.
func unknownCommand(name string) string {
	names := slices.Collect(maps.Keys(commands()))
	if near := closest.Match(name, names); near != "" {
		return fmt.Sprintf("unknown command %q: did you mean %s? (escouade-plugin help lists the commands)", name, near)
	}
	if strings.HasPrefix(name, "-") {
		return fmt.Sprintf("%s before a command: the flags come after it, e.g. escouade-plugin run DIR %s (escouade-plugin help lists the commands)", name, name)
	}
	return fmt.Sprintf("unknown command %q (escouade-plugin help lists the commands; to run the plugin in a folder: escouade-plugin run DIR)", name)
}

// runHelp is `help` and `help COMMAND`.
func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return exitOK
	}
	cmd, ok := commands()[args[0]]
	if !ok || cmd.run == nil {
		if !ok {
			fmt.Fprintf(stderr, "escouade-plugin help: %s\n", unknownCommand(args[0]))
			return exitUsage
		}
		usage(stdout)
		return exitOK
	}
	var help helpRequest
	if err := cmd.run(env{strings.NewReader(""), io.Discard, io.Discard}, []string{"-h"}); errors.As(err, &help) {
		help.print(stdout)
		return exitOK
	}
	fmt.Fprintf(stdout, "usage: escouade-plugin %s\n\n%s\n", cmd.synopsis, cmd.summary)
	return exitOK
}

// Version is this command's version, the app version it stands in for.
var Version = host.AppVersion

func cmdVersion(e env, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("version takes no arguments")
	}
	fmt.Fprintf(e.stdout, "escouade-plugin %s (plugin protocol %d, %s)\n", Version, protocol.Version, runtime.Version())
	return nil
}

// notYet is a command of docs/CLI.md this version does not have: it says so
// plainly and fails, rather than pretend.
func notYet(why string) func(env, []string) error {
	return func(env, []string) error {
		return fmt.Errorf("%s", why)
	}
}

// errFailed is a failure already reported on the command's output.
var errFailed = fmt.Errorf("failed")

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: escouade-plugin COMMAND [arguments] [flags]")
	fmt.Fprintln(w, "\ncommands:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, n := range commandOrder {
		c := commands()[n]
		fmt.Fprintf(tw, "  %s\t%s\n", shortSynopsis(c.synopsis), c.summary)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nFlags may come before or after the arguments; `escouade-plugin help COMMAND` lists a command's flags.")
	fmt.Fprintln(w, "Plugin authors: start with docs/writing-a-plugin.md, then escouade-plugin test DIR.")
}

// shortSynopsis is a usage line without its flags: "run DIR", "help
// [COMMAND]".
func shortSynopsis(s string) string {
	for _, cut := range []string{" [-", " [flags]"} {
		s, _, _ = strings.Cut(s, cut)
	}
	return s
}
