package process

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sysProcAttr makes the program lead a new process group, so that signals
// to the group reach all it starts and none of the host's own, and kills
// it when the host dies (Pdeathsig; see startOnKeptThread).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// prepareStart makes the host the subreaper of its descendants: a process
// whose parent ends is then adopted by the host rather than by init, so
// what a program leaves behind stays in reach. Being the subreaper is an
// attribute of the host's process; it is asked again at each start (one
// system call, idempotent) rather than remembered in a variable every
// launcher would share. It tells the token to the watchdog, and returns
// the environment with a new token and the token.
func prepareStart(env []string) ([]string, string) {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	var b [16]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	watchToken(token) // before the start: a host killed in the next instant is covered
	if env == nil {
		env = os.Environ()
	}
	return append(withoutToken(env), TokenEnv+"="+token), token
}

// withoutToken is env without TokenEnv: a host that is itself a program of
// another host inherited one, which must not hide the program's own.
func withoutToken(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, TokenEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// starter is a goroutine locked to its thread for good. Linux sends a
// program its Pdeathsig when the thread that started it exits, not the
// process, and Go ends a thread when a goroutine locked to it returns: a
// program started on a caller's locked thread could be killed long before
// the host dies. Programs are started from this thread, which never ends.
// It is the one thing launchers share: it holds no data about any program,
// and a thread per launcher would be a thread kept for ever per host.
var starter struct {
	once sync.Once
	jobs chan func()
}

func startOnKeptThread(start func() error) error {
	starter.once.Do(func() {
		starter.jobs = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the host
			for job := range starter.jobs {
				job()
			}
		}()
	})
	errc := make(chan error, 1)
	starter.jobs <- func() { errc <- start() }
	return <-errc
}

// startTimeOf reads the start time of pid; 0 when it cannot be read.
func startTimeOf(pid int) uint64 {
	stat, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	p, err := parseStat(stat, 1)
	if err != nil {
		return 0
	}
	return p.StartTime
}

// tokenOf is the token of a process, read from its /proc/<pid>/environ
// (the environment its program started with) and kept in the table once
// it is known for good for that program (tokenKey); "" for none or one
// that cannot be read (another user's).
func (t *table) tokenOf(p procInfo) string {
	t.tokensMu.Lock()
	defer t.tokensMu.Unlock()
	key := tokenKey{p.key(), p.Image}
	if tok, ok := t.tokens[key]; ok {
		return tok
	}
	if p.zombie() {
		return "" // its environment went with its memory; not cached, it was never read
	}
	tok, final := readTokenOnce(p.PID)
	if final {
		t.tokens[key] = tok
	}
	return tok
}

func readToken(pid int) string {
	tok, _ := readTokenOnce(pid)
	return tok
}

// readTokenOnce reads the token of pid, and whether the answer holds for
// the life of the process. An environment read empty does not: a process
// in the middle of an exec shows none until its new program's
// environment is in place, and then shows the token it inherited. Kept as
// "none", that process would never be the program's again.
func readTokenOnce(pid int) (token string, final bool) {
	env, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "environ"))
	switch {
	case errors.Is(err, os.ErrPermission):
		return "", true // another user's, for good
	case err != nil, len(env) == 0:
		return "", false
	}
	return tokenIn(env), true
}

// adopt runs on each new snapshot of the table: it notes the processes the
// host adopted as their parent ended (seen with another parent, then with
// the host: nothing else in the host waits for them, so their zombies are
// the host's to reap), reaps those that ended, and forgets the tokens and
// adoptions of processes that are gone.
func (t *table) adopt(prev, cur *snapshot) {
	adopted := t.adopted
	self := os.Getpid()
	if prev != nil {
		for _, p := range cur.procs {
			if old, ok := prev.lookup(p.PID); ok && old.StartTime == p.StartTime && old.PPID != self && p.PPID == self {
				adopted[p.key()] = true
			}
		}
	}
	alive := make(map[procKey]bool, len(cur.procs))
	for _, p := range cur.procs {
		alive[p.key()] = true
		if adopted[p.key()] && p.zombie() && p.PPID == self {
			_, _ = unix.Wait4(p.PID, nil, unix.WNOHANG, nil)
		}
	}
	for k := range adopted {
		if !alive[k] {
			delete(adopted, k)
		}
	}
	t.tokensMu.Lock()
	for k := range t.tokens {
		if !alive[k.procKey] {
			delete(t.tokens, k)
		}
	}
	t.tokensMu.Unlock()
}

// reap collects the zombies of procs that are children of the host, but
// leader, whose status os/exec collects. Each is waited for through a pidfd
// checked against its start time (waitid P_PIDFD), so only that process's
// status is taken: waiting for any child would take the statuses os/exec
// and other code of the host wait for. A zombie whose other threads are
// still ending is not ready yet; WNOHANG leaves it to the next call.
func reap(procs []procInfo, leader int) {
	for _, p := range procs {
		if !p.zombie() || p.PID == leader {
			continue
		}
		fd, err := openChecked(p)
		switch {
		case errors.Is(err, unix.ENOSYS): // before Linux 5.3
			if p.PPID == os.Getpid() {
				_, _ = unix.Wait4(p.PID, nil, unix.WNOHANG, nil)
			}
		case err == nil:
			_ = unix.Waitid(unix.P_PIDFD, fd, nil, unix.WEXITED|unix.WNOHANG, nil) // ECHILD: another's child
			_ = unix.Close(fd)
		}
	}
}

// errReused reports a pid that names another process than the snapshot's.
var errReused = errors.New("pid reused")

// openChecked opens a pidfd of p, checked against its start time.
func openChecked(p procInfo) (int, error) {
	fd, err := unix.PidfdOpen(p.PID, 0)
	if err != nil {
		return -1, err
	}
	if startTimeOf(p.PID) != p.StartTime {
		_ = unix.Close(fd)
		return -1, errReused
	}
	return fd, nil
}

// killRounds bounds how often a kill scans and kills again a program that
// keeps starting processes while it is killed.
const killRounds = 8

// waiter is a pidfd of a process that was signalled: it becomes readable
// once the process has ended.
type waiter int

// signalProcs sends sig to each process of procs through a pidfd checked
// against its start time, so a pid reused since the snapshot is never
// signalled, and returns the pidfds. A zombie is signalled too: one whose
// first thread ended may have others still running, and its pidfd tells
// when all have ended.
func signalProcs(procs []procInfo, sig syscall.Signal) []waiter {
	var out []waiter
	for _, p := range procs {
		fd, err := openChecked(p)
		if errors.Is(err, unix.ENOSYS) && startTimeOf(p.PID) == p.StartTime { // before Linux 5.3
			_ = syscall.Kill(p.PID, sig)
		}
		if err != nil {
			continue
		}
		_ = unix.PidfdSendSignal(fd, sig, nil, 0) // fails for a process already ending, waited for all the same
		out = append(out, waiter(fd))
	}
	return out
}

// awaitExit waits until every process of ws has ended, or d has passed,
// and closes the pidfds.
func awaitExit(ws []waiter, d time.Duration) {
	defer closeAll(ws)
	deadline := time.Now().Add(d)
	fds := make([]unix.PollFd, len(ws))
	for i, w := range ws {
		fds[i] = unix.PollFd{Fd: int32(w), Events: unix.POLLIN}
	}
	for len(fds) > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return
		}
		if n > 0 {
			fds = stillRunning(fds)
		}
	}
}

func stillRunning(fds []unix.PollFd) []unix.PollFd {
	out := fds[:0]
	for _, fd := range fds {
		if fd.Revents == 0 {
			fd.Revents = 0
			out = append(out, fd)
		}
	}
	return out
}

func closeAll(ws []waiter) {
	for _, w := range ws {
		_ = unix.Close(int(w))
	}
}
