package process

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The watchdog is the host's own binary, started again in a mode of its
// own the first time the host starts a program: it is told the token of
// every program the host starts (before the start) and the group it leads
// (after), and reads nothing else but the end of its stdin, a pipe whose
// other end only the host holds. When the host ends, however it ends
// (SIGKILL, a crash, a normal exit), the pipe closes and the watchdog
// kills every process that still carries one of the tokens it was told,
// or sits in one of the groups while the group is still the program's,
// with everything they started, and then exits. See
// docs/RATIONALE.md#what-kills-a-programs-processes-when-the-host-dies.
const (
	watchdogArg = "--escouade-process-watchdog"
	watchdogEnv = "ESCOUADE_PROCESS_WATCHDOG"
	// watchdogExe is the host's binary as the kernel knows it: it is there
	// even when the file was replaced or removed since the host started.
	watchdogExe = "/proc/self/exe"
	// watchdogWriteWait bounds a write to a watchdog that stopped reading;
	// it is then replaced, not waited for.
	watchdogWriteWait = time.Second
	// watchdogRounds bounds the rounds of the last kill: a family that
	// keeps starting processes is killed again, this many times at most.
	watchdogRounds = 64
)

// A host binary run as the watchdog never reaches its main.
func init() {
	if len(os.Args) == 2 && os.Args[1] == watchdogArg && os.Getenv(watchdogEnv) == "1" {
		os.Exit(runWatchdog(os.Stdin))
	}
}

// watched is a program the watchdog knows: its group, once it started.
type watched struct {
	pgid  int
	since uint64 // the leader's start time
}

// watchdog is the host's side: the pipe to the watchdog process, started
// at the first program and started again if it ends, told again then of
// every program still running.
var watchdog struct {
	mu       sync.Mutex
	pipe     *os.File    // nil: none running
	proc     *os.Process // the one pipe leads to
	programs map[string]watched
	// quickDeaths counts the watchdogs in a row that ended within a
	// second of their start.
	quickDeaths int
}

// watchToken tells the watchdog of a program about to start.
func watchToken(token string) { watchdogSend(token, watched{}, "+ "+token) }

// watchGroup tells the watchdog the group the program leads.
func watchGroup(token string, pgid int, since uint64) {
	w := watched{pgid: pgid, since: since}
	watchdogSend(token, w, fmt.Sprintf("g %s %d %d", token, pgid, since))
}

// forgetToken tells the watchdog a program was killed with all it started.
func forgetToken(token string) {
	if token == "" {
		return
	}
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	delete(watchdog.programs, token)
	if watchdog.pipe != nil && watchdogWrite("- "+token) != nil {
		dropWatchdog() // the next program starts another
	}
}

func watchdogSend(token string, w watched, line string) {
	if token == "" {
		return
	}
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	if watchdog.programs == nil {
		watchdog.programs = make(map[string]watched)
	}
	watchdog.programs[token] = w
	if watchdog.pipe != nil && watchdogWrite(line) == nil {
		return
	}
	dropWatchdog()
	startWatchdog() // told of every program, this one included
}

// watchdogWrite writes lines to the watchdog, within watchdogWriteWait.
// Called with watchdog.mu held.
func watchdogWrite(lines string) error {
	_ = watchdog.pipe.SetWriteDeadline(time.Now().Add(watchdogWriteWait))
	_, err := io.WriteString(watchdog.pipe, lines+"\n")
	return err
}

// dropWatchdog kills a watchdog that does not take its lines: left
// behind, it would kill running programs once it read the end of its
// pipe. Called with watchdog.mu held.
func dropWatchdog() {
	if watchdog.pipe == nil {
		return
	}
	_ = watchdog.proc.Kill()
	_ = watchdog.pipe.Close()
	watchdog.pipe, watchdog.proc = nil, nil
}

// startWatchdog starts a watchdog and tells it of every program. Where it
// cannot start (no /proc, a sandbox), the host goes on without: what its
// programs leave behind is then killed by Stop alone. Called with
// watchdog.mu held.
func startWatchdog() {
	r, w, err := os.Pipe() // close-on-exec: no program inherits the host's end
	if err != nil {
		return
	}
	cmd := &exec.Cmd{
		Path:  watchdogExe,
		Args:  []string{os.Args[0], watchdogArg},
		Env:   watchdogEnviron(),
		Dir:   "/", // it holds no folder of the host's
		Stdin: r,
		// A group of its own: a Ctrl-C or a kill of the host's group does
		// not end it before the host, whose death is its signal.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	// The list goes into the pipe before the watchdog starts when the
	// pipe's buffer holds it: a host killed right after the start is
	// then covered too.
	list := watchList(watchdog.programs)
	early := len(list) < watchdogEarlyList
	if early {
		_ = w.SetWriteDeadline(time.Now().Add(watchdogWriteWait))
		if _, err := w.WriteString(list + "\n"); err != nil {
			_, _ = r.Close(), w.Close()
			return
		}
	}
	err = cmd.Start()
	_ = r.Close()
	if err != nil {
		_ = w.Close()
		return
	}
	started := time.Now()
	go func() {
		_ = cmd.Wait()
		watchdogEnded(w, time.Since(started))
	}()
	watchdog.pipe, watchdog.proc = w, cmd.Process
	if !early && watchdogWrite(list) != nil {
		dropWatchdog()
	}
}

// watchdogEarlyList is the longest list written before the watchdog
// starts: well within a pipe's buffer (64 KiB on Linux, 4 KiB at least),
// about 60 programs.
const watchdogEarlyList = 4 << 10

// watchList is the lines that tell a new watchdog of programs.
func watchList(programs map[string]watched) string {
	var b strings.Builder
	for token, p := range programs {
		fmt.Fprintf(&b, "+ %s\n", token)
		if p.pgid != 0 {
			fmt.Fprintf(&b, "g %s %d %d\n", token, p.pgid, p.since)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// watchdogEnviron is the watchdog's whole environment: its mode, and the
// token of a host that runs this host as its program, so that host still
// finds it.
func watchdogEnviron() []string {
	env := []string{watchdogEnv + "=1"}
	if tok, ok := os.LookupEnv(TokenEnv); ok {
		env = append(env, TokenEnv+"="+tok)
	}
	return env
}

// watchdogEnded replaces a watchdog that ended (killed by someone), told
// of every program still running: a line written meanwhile may have gone
// into its pipe while its last threads were ending. After
// watchdogQuickDeaths in a row that each lived less than a second, the
// next program's start replaces it instead, so that a watchdog that
// cannot live is not started in a loop.
func watchdogEnded(pipe *os.File, lived time.Duration) {
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	if watchdog.pipe != pipe {
		return // dropped and replaced already
	}
	_ = pipe.Close()
	watchdog.pipe, watchdog.proc = nil, nil
	if lived >= time.Second {
		watchdog.quickDeaths = 0
	} else {
		watchdog.quickDeaths++
	}
	if len(watchdog.programs) > 0 && watchdog.quickDeaths < watchdogQuickDeaths {
		startWatchdog()
	}
}

// watchdogQuickDeaths is how many watchdogs in a row may end within a
// second of their start and still be replaced at once.
const watchdogQuickDeaths = 3

// runWatchdog is the watchdog process: it learns the programs from in
// until in ends, then kills what is left of them.
func runWatchdog(in io.Reader) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE)
	programs := readWatchList(in)
	killWatched(programs, os.Getpid())
	return 0
}

// readWatchList reads the host's lines until the pipe ends: "+ token"
// before a program starts, "g token pgid since" once it leads its group,
// "- token" once it was killed with all it started.
func readWatchList(in io.Reader) map[string]watched {
	programs := make(map[string]watched)
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "+":
			programs[f[1]] = watched{}
		case len(f) == 2 && f[0] == "-":
			delete(programs, f[1])
		case len(f) == 4 && f[0] == "g":
			pgid, err1 := strconv.Atoi(f[2])
			since, err2 := strconv.ParseUint(f[3], 10, 64)
			if err1 == nil && err2 == nil && pgid > 1 {
				programs[f[1]] = watched{pgid: pgid, since: since}
			}
		}
	}
	return programs
}

// killWatched kills every process of the programs, again while they start
// new ones, until a read of the table finds none running.
func killWatched(programs map[string]watched, self int) {
	if len(programs) == 0 {
		return
	}
	for range watchdogRounds {
		procs, err := listProcesses()
		if err != nil {
			return
		}
		left := watchedProcesses(procs, programs, self)
		if !anyRunning(left) {
			return
		}
		awaitExit(signalProcs(left, syscall.SIGKILL), killWait)
	}
}

// watchedProcesses is what of procs belongs to the programs: each process
// that carries one of their tokens, each process of one of their groups
// while the group is theirs (its leader still runs, or a process with the
// token is in it: a group's id is not reused while it has members), and
// everything those started.
func watchedProcesses(procs []procInfo, programs map[string]watched, self int) []procInfo {
	s := newSnapshot(0, procs)
	groups := make(map[int]uint64, len(programs))
	for _, p := range programs {
		if p.pgid != 0 {
			groups[p.pgid] = p.since
		}
	}
	oldest := oldestProgram(programs)
	theirs := make(map[int]bool)
	var roots []int
	for _, p := range procs {
		if p.PID == self || p.zombie() {
			continue
		}
		if p.StartTime < oldest {
			continue // older than every program: none of theirs, its environment unread
		}
		if _, ok := programs[readToken(p.PID)]; ok {
			roots = append(roots, p.PID)
			theirs[p.PGID] = true
		}
		if since, ok := groups[p.PID]; ok && p.PGID == p.PID && p.StartTime == since {
			theirs[p.PID] = true
		}
	}
	for _, p := range procs {
		if _, tracked := groups[p.PGID]; tracked && theirs[p.PGID] && p.PID != self {
			roots = append(roots, p.PID)
		}
	}
	var out []procInfo
	for _, p := range s.descendants(roots) {
		if p.PID != self {
			out = append(out, p)
		}
	}
	return out
}

// oldestProgram is the start time of the oldest program whose start time
// is known; 0 while one's is not (a program started at the host's death).
func oldestProgram(programs map[string]watched) uint64 {
	var oldest uint64
	for _, p := range programs {
		if p.since == 0 {
			return 0
		}
		if oldest == 0 || p.since < oldest {
			oldest = p.since
		}
	}
	return oldest
}

// watchdogPID is the pid of the running watchdog; 0 for none.
func watchdogPID() int {
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	if watchdog.proc == nil {
		return 0
	}
	return watchdog.proc.Pid
}
