package process

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// fakeEnv selects the fake program the test binary plays when it is run as
// a plugin program; its arguments are the fake's parameters.
const fakeEnv = "ESCOUADE_PROCESS_TEST_FAKE"

func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv(fakeEnv); ok {
		os.Exit(runFake(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// runFake plays the fake program named mode and returns its exit code.
func runFake(mode string, args []string) int {
	switch mode {
	case "echo":
		return fakeEcho()
	case "stderr":
		return fakeStderrLines(intArg(args, 0), intArg(args, 1))
	case "hold":
		return fakeHold()
	case "term-exit":
		return fakeTermExit(intArg(args, 0))
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
		return fakeHold()
	case "fork":
		return fakeFork(nil)
	case "escape":
		return fakeFork(escapeGroup())
	case "alloc":
		return fakeAlloc(intArg(args, 0), intArg(args, 1))
	case "flood":
		return fakeFlood(intArg(args, 0))
	case "long-line":
		_, _ = os.Stderr.Write(bytes.Repeat([]byte("x"), intArg(args, 0)))
		return 0
	case "env":
		return fakeEnvReport()
	case "term-report":
		return fakeTermReport()
	case "echo-pair":
		return fakeEchoPair()
	}
	if code, ok := runPlatformFake(mode, args); ok {
		return code
	}
	fmt.Fprintf(os.Stderr, "unknown fake %q\n", mode)
	return 2
}

func intArg(args []string, i int) int {
	n, err := strconv.Atoi(args[i])
	if err != nil {
		panic(err)
	}
	return n
}

// fakeEcho writes back every stdin line and exits 0 at the end of stdin.
func fakeEcho() int {
	lines := bufio.NewScanner(os.Stdin)
	for lines.Scan() {
		fmt.Println(lines.Text())
	}
	return 0
}

func fakeStderrLines(n, code int) int {
	for i := 1; i <= n; i++ {
		fmt.Fprintf(os.Stderr, "line %d\n", i)
	}
	return code
}

// fakeHold says it is ready and runs until a signal ends it; it does not
// read stdin, so closing stdin does not stop it.
func fakeHold() int {
	fmt.Println("ready")
	blockForever()
	return 0
}

// blockForever waits for good: the signal goroutine that Notify starts
// keeps the runtime from calling the wait a deadlock, and the program's
// process group never gets the console's interrupt.
func blockForever() {
	never := make(chan os.Signal, 1)
	signal.Notify(never, os.Interrupt)
	for range never {
	}
}

func fakeTermExit(code int) int {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	fmt.Println("ready")
	<-term
	return code
}

// fakeFork starts a holding child (in its process group unless attr says
// otherwise), says its pid on the side channel, and exits, leaving the
// child holding stdout and stderr.
func fakeFork(attr *syscall.SysProcAttr) int {
	child, err := fakeChild("hold")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	child.SysProcAttr = attr
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintf(side(), "child %d\n", child.Process.Pid)
	return 0
}

// side is the side channel the test gave the fake on descriptor 3
// (startWithSide); writes to it fail harmlessly when there is none.
func side() *os.File { return os.NewFile(3, "side") }

// fakeChild prepares the fake program mode as a child sharing stdout,
// stderr and the side channel.
func fakeChild(mode string, args ...string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	child := exec.Command(self, args...)
	child.Env = append(withoutFakeEnv(os.Environ()), fakeEnv+"="+mode)
	child.Stdout, child.Stderr = os.Stdout, os.Stderr
	child.ExtraFiles = []*os.File{side()}
	return child, nil
}

// fakeTermReport says on the side channel when its stdin ends ("eof") and
// each SIGTERM it gets ("term"), and exits for neither.
func fakeTermReport() int {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	eof := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(eof)
	}()
	fmt.Fprintln(side(), "ready")
	for {
		select {
		case <-term:
			fmt.Fprintln(side(), "term")
		case <-eof:
			fmt.Fprintln(side(), "eof")
			eof = nil
		}
	}
}

func withoutFakeEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, fakeEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// fakeAlloc holds mib MiB of touched memory and starts a chain of children
// more allocators doing the same.
func fakeAlloc(mib, children int) int {
	held := make([]byte, mib<<20)
	for i := 0; i < len(held); i += os.Getpagesize() { // a write per page makes it resident
		held[i] = 1
	}
	if children > 0 {
		child, err := fakeChild("alloc", strconv.Itoa(mib), strconv.Itoa(children-1))
		if err == nil {
			err = child.Start()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	fmt.Fprintln(side(), "ready") // stdout is shared with the children: reports go aside
	blockForever()
	runtime.KeepAlive(held)
	return 0
}

// fakeFlood writes lines of floodLineBytes bytes to stderr until total
// bytes are written.
func fakeFlood(total int) int {
	w := bufio.NewWriter(os.Stderr)
	for i := range total / floodLineBytes {
		_, _ = w.WriteString(floodLine(i))
	}
	if err := w.Flush(); err != nil {
		return 1
	}
	return 0
}

const floodLineBytes = 100

func floodLine(i int) string {
	line := fmt.Sprintf("flood %07d ", i)
	return line + strings.Repeat("x", floodLineBytes-1-len(line)) + "\n"
}

// fakeEnvReport prints its arguments, working directory and environment.
func fakeEnvReport() int {
	for _, arg := range os.Args[1:] {
		fmt.Println("arg=" + arg)
	}
	dir, err := os.Getwd()
	if err != nil {
		return 1
	}
	fmt.Println("cwd=" + dir)
	for _, kv := range os.Environ() {
		fmt.Println("env=" + kv)
	}
	return 0
}

// fakeEchoPair starts a child that shares its stdin and exits at its end,
// then echoes: closing stdin ends both.
func fakeEchoPair() int {
	child, err := fakeChild("echo")
	if err == nil {
		child.Stdin = os.Stdin
		err = child.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintf(side(), "child %d\n", child.Process.Pid)
	code := fakeEcho()
	_ = child.Wait()
	return code
}
