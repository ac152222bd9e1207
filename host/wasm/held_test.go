package wasm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/transport"
)

// stopNow stops prog and waits for its end.
func stopNow(t *testing.T, prog transport.Program) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	if err := prog.Stop(ctx, transport.StopOptions{}); err != nil {
		t.Fatal(err)
	}
}

// A start of a module this transport holds compiled (a restart, a start
// after Precompile) hashes the file and reads nothing whole again; it is
// still held to the consent check's digest.
func TestRestartReusesTheHeldModule(t *testing.T) {
	module := fills(3)
	m := pluginDir(t, module, nil)
	tr := newTransport(t, Options{CacheDir: t.TempDir()})
	if err := tr.Precompile(context.Background(), m, nil); err != nil {
		t.Fatal(err)
	}
	consented := map[string]string{ModuleFile: digest(module)}
	for range 2 {
		stopNow(t, launch(t, tr, specOf(m, transport.LaunchSpec{Program: consented})))
	}
	if n, c := tr.read.Load(), tr.compiles.Load(); n != 1 || c != 1 {
		t.Errorf("a precompile and two starts read the module %d times and compiled it %d, want 1 and 1", n, c)
	}
	_, err := tr.Launch(context.Background(), specOf(m, transport.LaunchSpec{Program: map[string]string{ModuleFile: digest([]byte("what was checked"))}}))
	if err == nil || !strings.Contains(err.Error(), "plugin.wasm changed between the start's check") {
		t.Fatalf("a held module started for other checked bytes = %v, want a refusal", err)
	}
}

// A module whose file changed after it was compiled: a start is given
// the digest its consent check read, and runs the module of exactly those
// bytes. Given the old bytes' digest it runs the module compiled from
// them, never the file's new bytes; given the new bytes' digest it reads
// and compiles them.
func TestHeldModuleRunsTheCheckedBytes(t *testing.T) {
	before, after := fills(3), fills(4)
	m := pluginDir(t, before, nil)
	tr := newTransport(t, Options{CacheDir: t.TempDir()})
	stopNow(t, launch(t, tr, specOf(m, transport.LaunchSpec{Program: map[string]string{ModuleFile: digest(before)}})))
	if err := os.WriteFile(filepath.Join(m.Dir, ModuleFile), after, 0o644); err != nil {
		t.Fatal(err)
	}
	prog := launch(t, tr, specOf(m, transport.LaunchSpec{Program: map[string]string{ModuleFile: digest(before)}}))
	if got := prog.(*instance).mod.hash; got != digest(before) {
		t.Errorf("a start checked against the old bytes ran the module of %s, want theirs, %s", got, digest(before))
	}
	stopNow(t, prog)
	prog = launch(t, tr, specOf(m, transport.LaunchSpec{Program: map[string]string{ModuleFile: digest(after)}}))
	if got := prog.(*instance).mod.hash; got != digest(after) {
		t.Errorf("the start ran the module of %s, want the new bytes' %s", got, digest(after))
	}
	stopNow(t, prog)
	if n := tr.compiles.Load(); n != 2 {
		t.Errorf("%d compiles, want 2: the changed bytes compiled", n)
	}
}

// A start whose checked bytes are not held reads the file, and refuses
// it when it is not what the check read.
func TestAFileChangedAfterItsCheckIsNotRun(t *testing.T) {
	before, after := fills(3), fills(4)
	m := pluginDir(t, after, nil)
	tr := newTransport(t, Options{CacheDir: t.TempDir()})
	stopNow(t, launch(t, tr, specOf(m, transport.LaunchSpec{Program: map[string]string{ModuleFile: digest(after)}})))
	_, err := tr.Launch(context.Background(), specOf(m, transport.LaunchSpec{Program: map[string]string{ModuleFile: digest(before)}}))
	if err == nil || !strings.Contains(err.Error(), "plugin.wasm changed between the start's check") {
		t.Fatalf("bytes other than the checked ones = %v, want a refusal", err)
	}
}

// A held module is checked against version.json at each start, as a
// first start's is: a version file that no longer agrees refuses it.
func TestHeldModuleIsCheckedAgainstItsVersionFile(t *testing.T) {
	module := fills(3)
	m := pluginDir(t, module, map[string]string{VersionFile: `{"sha256": "` + digest(module) + `"}`})
	tr := newTransport(t, Options{CacheDir: t.TempDir()})
	stopNow(t, launch(t, tr, specOf(m)))
	if err := os.WriteFile(filepath.Join(m.Dir, VersionFile), []byte(`{"sha256": "`+digest([]byte("other"))+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := tr.Launch(context.Background(), specOf(m))
	if err == nil || !strings.Contains(err.Error(), "does not match "+VersionFile) {
		t.Fatalf("a held module whose version file disagrees = %v, want the version file's refusal", err)
	}
}

// Another folder of the same module (twenty copies of one plugin) starts
// from the module compiled for the first: hashed, not read whole, not
// decoded again.
func TestSameModuleInAnotherFolderIsReused(t *testing.T) {
	module := fills(3)
	tr := newTransport(t, Options{CacheDir: t.TempDir()})
	first, second := pluginDir(t, module, nil), pluginDir(t, module, nil)
	a := launch(t, tr, specOf(first, transport.LaunchSpec{Program: map[string]string{ModuleFile: digest(module)}}))
	b := launch(t, tr, specOf(second, transport.LaunchSpec{Program: map[string]string{ModuleFile: digest(module)}}))
	if a.(*instance).mod != b.(*instance).mod {
		t.Error("two folders of one module run two compiled modules")
	}
	if n, c := tr.read.Load(), tr.compiles.Load(); n != 1 || c != 1 {
		t.Errorf("two folders of one module: read %d times, compiled %d, want 1 and 1", n, c)
	}
	stopNow(t, a)
	stopNow(t, b)
}

// A restart after a crash starts from the module held, and each of its
// instances is held to the limits as a first start's is: the turn's, the
// decision's, the memory's.
func TestRestartFromTheHeldModuleKeepsTheLimits(t *testing.T) {
	short := newTransport(t, Options{TurnLimit: 300 * time.Millisecond, DecisionTurnLimit: 200 * time.Millisecond})
	long := newTransport(t, Options{TurnLimit: testDeadline})
	m := pluginDir(t, fixture(t, "reactor"), nil)
	runs := []struct {
		tr       *Transport
		method   string
		decision bool
		want     transport.Exit
	}{
		{long, "panic", false, transport.Exit{Kind: transport.Trapped, Detail: "panic: boom"}},
		{long, "grow", false, transport.Exit{Kind: transport.OutOfMemory, Memory: 64 << 20}},
		{short, "panic", false, transport.Exit{Kind: transport.Trapped, Detail: "panic: boom"}},
		{short, "loop", false, transport.Exit{Kind: transport.TurnTooLong, Limit: 300 * time.Millisecond}},
		{short, "loop", true, transport.Exit{Kind: transport.TurnTooLong, Limit: 200 * time.Millisecond}},
	}
	for _, r := range runs {
		prog := launch(t, r.tr, specOf(m))
		r.tr.Decisions(prog, func() bool { return r.decision })
		send(t, connect(t, prog, nil), r.method)
		if got := ended(t, prog); got != r.want {
			t.Errorf("%s: exit %+v, want %+v", r.method, got, r.want)
		}
	}
	for _, tr := range []*Transport{short, long} {
		if n := tr.read.Load(); n != 1 {
			t.Errorf("the module was read whole %d times by one transport, want once: the restarts did not start from the module held", n)
		}
	}
}
