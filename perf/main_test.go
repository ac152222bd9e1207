package perf

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"testing"
)

// programEnv names the program the test binary runs as instead of its
// tests, when set.
const programEnv = "ESCOUADE_PERF_PROGRAM"

// programProfileEnv names a folder where each program writes the CPU
// profile of its life as <program>-<pid>.pprof: -cpuprofile only sees the
// calling side.
const programProfileEnv = "ESCOUADE_PERF_PROGRAM_PROFILE"

// The programs the test binary can run as.
const (
	programRawEcho    = "raw-echo"
	programConnPlugin = "conn-plugin"
	programKitPlugin  = "kit-plugin"
	programInline     = "inline-plugin"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(programEnv); name != "" {
		os.Exit(runProgram(name))
	}
	os.Exit(m.Run())
}

// runProgram runs the named program on stdin and stdout and returns its
// exit code.
func runProgram(name string) int {
	if dir := os.Getenv(programProfileEnv); dir != "" {
		stop, err := startProfile(filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", name, os.Getpid())))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer stop()
	}
	var err error
	switch name {
	case programRawEcho:
		err = rawEcho(os.Stdin, os.Stdout)
	case programConnPlugin:
		err = connPlugin(os.Stdin, os.Stdout)
	case programKitPlugin:
		err = kitPlugin()
	case programInline:
		err = inlinePlugin(os.Stdin, os.Stdout)
	case programGoPlugin:
		err = goPluginEcho()
	case programMCP:
		err = mcpEcho()
	default:
		err = fmt.Errorf("unknown program %q", name)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// startProfile profiles the CPU into path until stop is called.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
