package proc

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeEnv makes the test binary act as the program the tests run.
const fakeEnv = "PROCSVC_FAKE_PROGRAM"

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) == "1" {
		os.Exit(fakeProgram(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeProgram does what its first argument says.
func fakeProgram(args []string) int {
	switch args[0] {
	case "echo":
		fmt.Print(strings.Join(args[1:], " "))
		fmt.Fprint(os.Stderr, "to stderr")
	case "cat":
		io.Copy(os.Stdout, os.Stdin)
	case "pwd":
		dir, _ := os.Getwd()
		fmt.Print(dir)
	case "exit":
		n, _ := strconv.Atoi(args[1])
		return n
	case "flood":
		n, _ := strconv.Atoi(args[1])
		chunk := strings.Repeat("x", 4096)
		for written := 0; written < n; written += len(chunk) {
			os.Stdout.WriteString(chunk)
			os.Stderr.WriteString(chunk)
		}
	case "hang":
		// A child in the same group, its pid written where the test
		// waits for it, then both wait for ever.
		self, err := os.Executable()
		if err != nil {
			return 3
		}
		child := exec.Command(self, "sleep")
		child.Env = os.Environ()
		if err := child.Start(); err != nil {
			return 3
		}
		os.WriteFile(args[1], []byte(strconv.Itoa(child.Process.Pid)), 0o644)
		time.Sleep(time.Hour)
	case "sleep":
		time.Sleep(time.Hour)
	}
	return 0
}
