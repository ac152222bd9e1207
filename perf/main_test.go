package perf

import (
	"fmt"
	"os"
	"testing"
)

// programEnv names the program the test binary runs as instead of its
// tests, when set.
const programEnv = "ESCOUADE_PERF_PROGRAM"

// The programs the test binary can run as.
const (
	programRawEcho    = "raw-echo"
	programConnPlugin = "conn-plugin"
	programKitPlugin  = "kit-plugin"
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
	var err error
	switch name {
	case programRawEcho:
		err = rawEcho(os.Stdin, os.Stdout)
	case programConnPlugin:
		err = connPlugin(os.Stdin, os.Stdout)
	case programKitPlugin:
		err = kitPlugin()
	default:
		err = fmt.Errorf("unknown program %q", name)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
