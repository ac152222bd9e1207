// Command escouade-plugin stands in for the Escouade app in front of
// plugins and serves plugin authors: it runs a plugin behind a JSON-lines
// console, installs and manages plugins, and shows their journals.
//
//	escouade-plugin run examples/go-notes --secret token=s3cret
//	escouade-plugin journal dev.escouade.example.go-notes -n 50
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit codes (CLI.md).
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
	summary string
	run     func(e env, args []string) error
}

func commands() map[string]command {
	return map[string]command{
		"run":       {"run DIR: a headless host for the plugin in DIR (JSON-lines console)", cmdRun},
		"test":      {"test DIR [--json]: the conformance bench", cmdTest},
		"mcp-stdio": {"mcp-stdio --url URL: bridge MCP on stdin/stdout to the host's MCP server (token from --token-file or stdin's first line)", cmdMCPStdio},
		"harness":   {"harness DIR [--harness ID] [--mode M] [--model X] [--cwd DIR] [--fence DIR]… [--agent NAME] [--json]: run a described ACP harness", cmdHarness},
		"build":     {"build DIR [--json]: check and precompile a run.js or run.wasm plugin", cmdBuild},
		"serve":     {"serve [--addr 127.0.0.1:7777] [--open]: the Plugins view in a browser", cmdServe},
		"install":   {"install DIR: validate and record a plugin", cmdInstall},
		"list":      {"list: the installed plugins", cmdList},
		"journal":   {"journal ID [-n N] [-f]: a plugin's journal", cmdJournal},
		"restart":   {"restart ID: start a stopped plugin again, its crashes forgotten", cmdSwitch("restart")},
		"enable":    {"enable ID: switch a plugin on", cmdSwitch("enable")},
		"disable":   {"disable ID: switch a plugin off", cmdSwitch("disable")},
	}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "escouade-plugin: unknown command %q (see escouade-plugin --help)\n", args[0])
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

// notYet is a command of CLI.md this version does not have: it says so
// plainly and fails, rather than pretend.
func notYet(why string) func(env, []string) error {
	return func(env, []string) error {
		return fmt.Errorf("%s", why)
	}
}

// errFailed is a failure already reported on the command's output.
var errFailed = fmt.Errorf("failed")

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: escouade-plugin COMMAND [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	names := []string{"run", "test", "build", "harness", "serve", "install", "list", "journal", "restart", "enable", "disable"}
	for _, n := range names {
		fmt.Fprintf(w, "  %s\n", commands()[n].summary)
	}
	fmt.Fprintln(w, "\nflags may come before or after the arguments; `escouade-plugin COMMAND -h` lists them.")
	fmt.Fprintln(w, strings.TrimSpace(`
common flags: --home DIR, --keychain system|file|memory, --secret KEY=VALUE,
--lang en|fr, --app-version V, --settings FILE, --project ID=DIR,
--delay METHOD=DURATION, --memory-limit SIZE`))
}
