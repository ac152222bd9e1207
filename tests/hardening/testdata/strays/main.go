//go:build unix

// Command strays is a hostile plugin program that escapes its process
// group at start: a child in a session of its own (setsid), one in a group
// of its own (setpgid) and a daemon started by a double fork (and, when
// strays.json says "family", one that stays in its group). Each holds
// the MiB that strays.json in its folder names (once the file its "after"
// names exists, when it names one), ignores SIGTERM and waits to be
// killed. Once they run it appends their pids to strays.pids in its
// folder (never on stdout) and only then answers initialize. Methods:
// initialize, shutdown (answers and exits), test/crash (exits 3), anything
// else null.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

const roleEnv = "STRAYS_ROLE"

type config struct {
	MiB int `json:"mib"`
	// After names a file of the folder the strays wait for before they
	// take their memory, so that a test reads their pids before a memory
	// stop can end them.
	After string `json:"after"`
	// Family adds a fourth stray that stays in the program's group, and
	// the program's own pid, last.
	Family bool `json:"family"`
}

func main() {
	signal.Ignore(syscall.SIGTERM)
	switch os.Getenv(roleEnv) {
	case "stray":
		stray()
	case "daemon-mid":
		fmt.Println(startRole("stray", nil))
	default:
		serve()
	}
}

func serve() {
	pids := []int{
		startRole("stray", &syscall.SysProcAttr{Setsid: true}),
		startRole("stray", &syscall.SysProcAttr{Setpgid: true}),
		daemon(),
	}
	if readConfig().Family {
		pids = append(pids, startRole("stray", nil), os.Getpid())
	}
	f, err := os.OpenFile("strays.pids", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fail(err)
	}
	for _, p := range pids {
		fmt.Fprintln(f, p)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
	out := json.NewEncoder(os.Stdout)
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for lines.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(lines.Bytes(), &msg) != nil || msg.ID == nil {
			continue
		}
		var result any
		switch msg.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": 1, "capabilities": map[string]any{}}
		case "test/crash":
			os.Exit(3)
		}
		_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
		if msg.Method == "shutdown" {
			os.Exit(0)
		}
	}
}

// startRole starts a copy of the program in role and returns its pid once
// the copy said it is ready.
func startRole(role string, attr *syscall.SysProcAttr) int {
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), roleEnv+"="+role)
	cmd.SysProcAttr = attr
	cmd.Stderr = os.Stderr
	ready, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	if line, err := bufio.NewReader(ready).ReadString('\n'); err != nil || line != "ready\n" {
		fail(fmt.Errorf("%s %d said %q: %v", role, cmd.Process.Pid, line, err))
	}
	return cmd.Process.Pid
}

// daemon double-forks: a middle copy in a new session starts the stray,
// says its pid and exits, so the stray's parent is gone.
func daemon() int {
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	mid := exec.Command(self)
	mid.Env = append(os.Environ(), roleEnv+"=daemon-mid")
	mid.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	mid.Stderr = os.Stderr
	out, err := mid.Output()
	if err != nil {
		fail(err)
	}
	pid, err := strconv.Atoi(string(out[:len(out)-1]))
	if err != nil {
		fail(err)
	}
	return pid
}

func stray() {
	cfg := readConfig()
	fmt.Println("ready")
	for cfg.After != "" && !exists(cfg.After) {
		time.Sleep(10 * time.Millisecond)
	}
	held := make([]byte, cfg.MiB<<20)
	for i := 0; i < len(held); i += os.Getpagesize() {
		held[i] = 1
	}
	never := make(chan os.Signal, 1)
	signal.Notify(never, syscall.SIGUSR2)
	for range never {
	}
	runtime.KeepAlive(held)
}

func readConfig() config {
	var cfg config
	if b, err := os.ReadFile("strays.json"); err == nil {
		_ = json.Unmarshal(b, &cfg)
	}
	return cfg
}

func exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "strays:", err)
	os.Exit(1)
}
