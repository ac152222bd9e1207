package perf

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// TestReportIdle measures what plugins cost while they wait: for each
// kind, a host holding idleEach started plugins of it, then idle; the
// host's resident memory per plugin (and, for processes, their own), and
// the CPU the host and its children spend in idleFor of nothing.
//
//	cd perf && ESCOUADE_PERF=1 go test -run TestReportIdle -v .
func TestReportIdle(t *testing.T) {
	if os.Getenv(perfEnv) != "1" {
		t.Skipf("set %s=1 to measure idle plugins", perfEnv)
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	const idleEach = 20
	const idleFor = 5 * time.Second
	plugins := libraryPlugins(t)
	home := t.TempDir()
	libraryRound(t, home, plugins, 0, false, func(string, time.Duration, time.Duration, time.Duration) {}) // warms the cache
	var b strings.Builder
	fmt.Fprintf(&b, "\n%d idle plugins of each kind, %s idle\n\n| plugin | host RSS per plugin | its program's RSS per plugin | host CPU idle | children CPU idle |\n|---|---:|---:|---:|---:|\n", idleEach, idleFor)
	for _, lp := range plugins {
		hostRSS, childRSS, hostCPU, childCPU := idleCost(t, home, lp, idleEach, idleFor)
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f %% | %.2f %% |\n", lp.name, mib(hostRSS/idleEach), mib(childRSS/idleEach), 100*hostCPU.Seconds()/idleFor.Seconds(), 100*childCPU.Seconds()/idleFor.Seconds())
	}
	fmt.Fprintf(&b, "\n| plugin | host resident memory of its module held by the warm-up, not started |\n|---|---:|\n")
	for _, lp := range plugins {
		if held, ok := heldCost(t, home, lp); ok {
			fmt.Fprintf(&b, "| %s | %s |\n", lp.name, mib(held))
		}
	}
	t.Log(b.String())
}

// heldCost is a fresh host's RSS growth once the warm-up
// (modules.Preload) has loaded lp's module or bundle into its transport,
// with no plugin started; ok is false for a process.
func heldCost(t *testing.T, home string, lp cliPlugin) (int64, bool) {
	m, err := manifest.Load(lp.dir, manifest.LoadOptions{AppVersion: host.AppVersion})
	if err != nil {
		t.Fatal(err)
	}
	if k := m.Run.Kind(); k != manifest.RunWASM && k != manifest.RunJS {
		return 0, false
	}
	h, wt := libraryHost(t, home)
	defer closeHost(h)
	debug.FreeOSMemory()
	before := selfRSS(t)
	warmUp(t, wt, []*manifest.Manifest{m})
	debug.FreeOSMemory()
	return selfRSS(t) - before, true
}

// idleCost starts n copies of lp in a fresh host, and gives the host's
// RSS growth, its children's RSS, and the CPU each spent over idleFor.
func idleCost(t *testing.T, home string, lp cliPlugin, n int, idleFor time.Duration) (hostRSS, childRSS int64, hostCPU, childCPU time.Duration) {
	debug.FreeOSMemory() // what an earlier host left is given back first
	before := selfRSS(t)
	h, _ := libraryHost(t, home)
	defer closeHost(h)
	for i := range n {
		dir := copyPlugin(t, lp.dir, filepath.Join(t.TempDir(), "p"), nil)
		setManifestID(t, dir, fmt.Sprintf("dev.escouade.perf.idle%d", i))
		m, err := manifest.Load(dir, manifest.LoadOptions{AppVersion: host.AppVersion})
		if err != nil {
			t.Fatal(err)
		}
		p, err := h.Add(m, host.Config{Admit: registry.AnyFolder})
		if err != nil {
			t.Fatal(err)
		}
		echo(t, p, lp.name, i)
	}
	debug.FreeOSMemory()
	hostRSS = selfRSS(t) - before
	kids := children()
	for _, pid := range kids {
		childRSS += rssOf(pid)
	}
	selfBefore, kidsBefore := selfCPU(), cpuOf(kids)
	time.Sleep(idleFor) // the measure is of time passing with nothing to do
	return hostRSS, childRSS, selfCPU() - selfBefore, cpuOf(kids) - kidsBefore
}

// selfRSS is this process's resident memory, in bytes.
func selfRSS(t *testing.T) int64 {
	t.Helper()
	return rssOf(os.Getpid())
}

// rssOf reads VmRSS of pid, in bytes; 0 when it is gone.
func rssOf(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// children are the processes whose parent is this one, but the watchdog.
func children() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if stat := procStat(pid); len(stat) > 1 && stat[1] == strconv.Itoa(os.Getpid()) && !watchdog(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// watchdog reports whether pid is the host's process watchdog (one per
// host, whatever its plugins: process), which is no plugin's cost.
func watchdog(pid int) bool {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.Contains(string(b), "--escouade-process-watchdog")
}

// procStat is /proc/pid/stat's fields after the command's name.
func procStat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// cpuOf is the user and system time pids spent, by their /proc stat.
func cpuOf(pids []int) time.Duration {
	var ticks int64
	for _, pid := range pids {
		if f := procStat(pid); len(f) > 12 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			s, _ := strconv.ParseInt(f[12], 10, 64)
			ticks += u + s
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

// selfCPU is the user and system time this process spent.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
