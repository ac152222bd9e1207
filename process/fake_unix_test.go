//go:build unix

package process

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
)

// escapeGroup moves a child into a session of its own, out of reach of
// signals to its parent's group.
func escapeGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// runPlatformFake plays the hostile fakes, which need process groups and
// sessions.
func runPlatformFake(mode string, args []string) (int, bool) {
	switch mode {
	case "spawn":
		return fakeSpawn(args[0], args[1], args[2]), true
	case "daemon-mid":
		return fakeDaemonMid(args[0]), true
	case "stray":
		return fakeStray(intArg(args, 0)), true
	case "mini-host":
		return fakeMiniHost(), true
	case "fork-wait":
		return fakeForkWait(), true
	case "dying-host":
		return fakeDyingHost(args[0], args[1]), true
	case "dying-host-again":
		return fakeDyingHostAgain(), true
	}
	return 0, false
}

// fakeSpawn starts a stray holding mib MiB that escapes the way how says:
// "setsid" (a session of its own), "setpgid" (a group of its own),
// "daemon" (a double fork: a child in a new session starts the stray and
// exits, so the stray's parent is gone). Then it holds, ignoring stdin and
// SIGTERM, or exits at once (then "exit"), as a crashing program would.
func fakeSpawn(how, then, mib string) int {
	mode, attr := "stray", &syscall.SysProcAttr{}
	switch how {
	case "setsid":
		attr.Setsid = true
	case "setpgid":
		attr.Setpgid = true
	case "daemon":
		mode, attr.Setsid = "daemon-mid", true
	}
	child, err := fakeChild(mode, mib)
	if err == nil {
		child.SysProcAttr = attr
		err = child.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if how == "daemon" {
		_ = child.Wait() // the middle child exits once the stray runs
	}
	if then == "exit" {
		return 0
	}
	signal.Ignore(syscall.SIGTERM)
	fmt.Fprintf(side(), "leader %d\n", os.Getpid())
	blockForever()
	return 0
}

// fakeDaemonMid is the middle of a double fork: it starts the stray and
// exits.
func fakeDaemonMid(mib string) int {
	child, err := fakeChild("stray", mib)
	if err == nil {
		err = child.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// fakeStray holds mib MiB of touched memory, says its pid on the side
// channel and runs until killed: it ignores SIGTERM.
func fakeStray(mib int) int {
	signal.Ignore(syscall.SIGTERM)
	held := make([]byte, mib<<20)
	for i := 0; i < len(held); i += os.Getpagesize() {
		held[i] = 1
	}
	fmt.Fprintln(side(), "pid "+strconv.Itoa(os.Getpid()))
	blockForever()
	runtime.KeepAlive(held)
	return 0
}

// fakeMiniHost starts a holding program the way the host does and says its
// pid on the side channel, then waits to be killed.
func fakeMiniHost() int {
	self, err := os.Executable()
	if err != nil {
		return 1
	}
	p, err := Start(Spec{Command: []string{self}, Env: append(withoutFakeEnv(os.Environ()), fakeEnv+"=hold")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintf(side(), "leader %d\n", p.PID())
	blockForever()
	return 0
}

// fakeForkWait starts a holding child, says its pid on the side channel and
// exits once its stdin ends, leaving the child an orphan.
func fakeForkWait() int {
	child, err := fakeChild("hold")
	if err == nil {
		err = child.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintf(side(), "child %d\n", child.Process.Pid)
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// fakeDyingHost starts, the way kind says ("plugin": Start, "family":
// StartFamily), a program that spawns a stray escaping as how says (see
// fakeSpawn; "group" stays in the program's group) and holds; then it
// says the watchdog's pid on the side channel and waits to be killed.
func fakeDyingHost(kind, how string) int {
	self, err := os.Executable()
	if err != nil {
		return 1
	}
	env := append(withoutFakeEnv(os.Environ()), fakeEnv+"=spawn")
	args := []string{self, how, "hold", "1"}
	switch kind {
	case "plugin":
		_, err = Start(Spec{Command: args, Env: env, extraFiles: []*os.File{side()}})
	case "family":
		cmd := exec.Command(self, args[1:]...)
		cmd.Env, cmd.ExtraFiles = env, []*os.File{side()}
		_, err = StartFamily(cmd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintf(side(), "watchdog %d\n", watchdogPID())
	blockForever()
	return 0
}

// fakeDyingHostAgain starts a program whose stray leaves its session and
// says the watchdog's pid; at each line on its stdin it starts another
// and says the watchdog's pid again. It waits to be killed.
func fakeDyingHostAgain() int {
	self, err := os.Executable()
	if err != nil {
		return 1
	}
	env := append(withoutFakeEnv(os.Environ()), fakeEnv+"=spawn")
	lines := bufio.NewScanner(os.Stdin)
	for {
		if _, err := Start(Spec{Command: []string{self, "setsid", "hold", "1"}, Env: env, extraFiles: []*os.File{side()}}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintf(side(), "watchdog %d\n", watchdogPID())
		if !lines.Scan() {
			blockForever()
		}
	}
}
