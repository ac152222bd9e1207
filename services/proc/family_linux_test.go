package proc

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/process"
	"github.com/escouade-dev/escouade-plugin/services"
	fssvc "github.com/escouade-dev/escouade-plugin/services/fs"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// TestTimeLimitKillsTheGroup: at the time limit the program and the
// child it started are both killed.
func TestTimeLimitKillsTheGroup(t *testing.T) {
	f := newFixture(t)
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	done := make(chan error, 1)
	go func() {
		_, err := f.run(t, proto.ProcRunParams{Program: "fake", Args: []string{"hang", pidFile}})
		done <- err
	}()
	tm := <-f.clock.created
	child := waitForPid(t, pidFile)
	tm.fire()
	if err := <-done; refusalOf(err).Code != -32004 {
		t.Fatalf("got %v, want -32004", err)
	}
	waitUntil(t, "the child to be killed with its group", func() bool { return dead(child) })
}

// waitForPid waits for the fake program to write its child's pid.
func waitForPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitUntil(t, "the child's pid", func() bool {
		data, err := os.ReadFile(path)
		pid, _ = strconv.Atoi(string(data))
		return err == nil && pid > 0
	})
	return pid
}

// dead reports a process gone or a zombie nobody reaped yet.
func dead(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}

// waitUntil polls cond: it waits for an event of another process, which
// nothing can notify; the bound is only there to end a broken test.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// strays is a script that leaves behind, in every way a program can, a
// process that would outlive it: a setsid'ed child, setsid -f, a double
// fork. It writes its instance token first, to stdout and to the file
// "token" of its folder.
const strays = `echo "$ESCOUADE_INSTANCE_TOKEN"; echo "$ESCOUADE_INSTANCE_TOKEN" > token
setsid sleep 1000 </dev/null >/dev/null 2>&1 &
setsid -f sleep 1000 </dev/null >/dev/null 2>&1
(sh -c 'sleep 1000 </dev/null >/dev/null 2>&1 &' &)
`

// shService runs the real sh (and what it starts) in dir, with the
// minimal environment.
func shService(t *testing.T, dir string, after func(time.Duration, func()) Timer) *Service {
	t.Helper()
	svc := New(Config{PluginID: pluginID,
		Granted: manifest.Permissions{Programs: []string{"sh", "env"}, Files: []string{"agent"}},
		Roots: func(id string) (fssvc.AgentRoots, bool) {
			return fssvc.AgentRoots{Agent: dir}, true
		},
		TempDir:   t.TempDir(),
		AfterFunc: after,
	})
	t.Cleanup(func() { svc.Close() })
	return svc
}

func callSh(svc *Service, script string) (proto.ProcRunResult, error) {
	raw, _ := json.Marshal(proto.ProcRunParams{Program: "sh", Args: []string{"-c", script}, Agent: "a1",
		Cwd: proto.FsLocation{Root: "agent", Path: "."}})
	got, err := services.Call(context.Background(), svc.Methods()[vocab.MethodProcRun], raw)
	if err != nil {
		return proto.ProcRunResult{}, err
	}
	return got.(proto.ProcRunResult), nil
}

// holders lists the processes whose environment holds token.
func holders(token string) []string {
	var found []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && strings.Contains(string(env), "ESCOUADE_INSTANCE_TOKEN="+token) {
			cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			found = append(found, e.Name()+" "+strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	return found
}

// noSurvivor fails unless no process holds token. The kill waited for
// every process it signalled, so there should be none at once; the
// bound only allows for the reaping of a loaded machine.
func noSurvivor(t *testing.T, token string) {
	t.Helper()
	if len(token) != 32 {
		t.Fatalf("token %q: the program got no instance token", token)
	}
	deadline := time.Now().Add(30 * time.Second)
	for left := holders(token); len(left) > 0; left = holders(token) {
		if time.Now().After(deadline) {
			t.Fatalf("survivors of the call: %q", left)
		}
		runtime.Gosched()
	}
}

// TestNothingOutlivesTheCall: what the program left running, however it
// left its group, is killed before the answer.
func TestNothingOutlivesTheCall(t *testing.T) {
	svc := shService(t, t.TempDir(), nil)
	got, err := callSh(svc, strays)
	if err != nil {
		t.Fatal(err)
	}
	noSurvivor(t, strings.TrimSpace(got.Stdout))
}

// TestNothingOutlivesTheTimeLimitNorTheInstance: a program that waits
// after leaving strays is killed with them at its time limit, and at the
// instance's end (Close, as at disable and at the host's exit).
func TestNothingOutlivesTheTimeLimitNorTheInstance(t *testing.T) {
	for _, end := range []string{"time limit", "instance end"} {
		t.Run(end, func(t *testing.T) {
			c := &clock{created: make(chan *timer, 1)}
			dir := t.TempDir()
			svc := shService(t, dir, c.AfterFunc)
			done := make(chan error, 1)
			go func() {
				_, err := callSh(svc, strays+"sleep 1000\n")
				done <- err
			}()
			limit := <-c.created
			tokenFile := filepath.Join(dir, "token")
			waitUntil(t, "the program's token", func() bool {
				b, err := os.ReadFile(tokenFile)
				return err == nil && strings.HasSuffix(string(b), "\n")
			})
			// The double fork's grandchild may still be on its way:
			// the kill's rounds find it by its token all the same.
			if end == "time limit" {
				limit.fire()
			} else {
				svc.Close()
			}
			if err := <-done; refusalOf(err).Code != -32004 {
				t.Fatalf("got %v, want -32004", err)
			}
			b, _ := os.ReadFile(tokenFile)
			noSurvivor(t, strings.TrimSpace(string(b)))
		})
	}
}

// TestMinimalEnvironment: a program gets what process.Environ passes of
// the host's environment, its own temporary folder and the instance
// token; no other variable of the host's, a planted secret least of all.
func TestMinimalEnvironment(t *testing.T) {
	t.Setenv("FAKE_SECRET", "s3cret-planted")
	t.Setenv("GITHUB_TOKEN", "ghp-planted")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-planted")
	t.Setenv("HTTPS_PROXY", "http://user:planted@proxy.example:3128")
	svc := shService(t, t.TempDir(), nil)
	got, err := callSh(svc, `env; echo "tmp=$TMPDIR"; test -d "$TMPDIR" && touch "$TMPDIR/left"`)
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"TMPDIR": true, "ESCOUADE_INSTANCE_TOKEN": true, "PWD": true, "SHLVL": true, "_": true} // the last three are sh's own
	for _, kv := range process.Environ(os.Environ()) {
		name, _, _ := strings.Cut(kv, "=")
		allowed[name] = true
	}
	var tmp string
	for line := range strings.Lines(got.Stdout) {
		name, value, _ := strings.Cut(strings.TrimSpace(line), "=")
		if name == "tmp" {
			tmp = value
			continue
		}
		if !allowed[name] {
			t.Errorf("the program got %s", name)
		}
	}
	if strings.Contains(got.Stdout, "planted") {
		t.Errorf("a planted secret reached the program:\n%s", got.Stdout)
	}
	if tmp == "" || !strings.HasPrefix(tmp, svc.cfg.TempDir) {
		t.Errorf("TMPDIR %q, want a folder under the plugin's temporary folder %s", tmp, svc.cfg.TempDir)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the call's temporary folder %s outlived it: %v", tmp, err)
	}
}
