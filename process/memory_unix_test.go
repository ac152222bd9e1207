//go:build unix

package process

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

func TestMemoryCountsTheChildTree(t *testing.T) {
	const eachMiB = 32
	p, lines := startWithSide(t, fakeSpec(t, "alloc", strconv.Itoa(eachMiB), "1"))
	for range 2 { // the program and its child
		if got := nextLine(t, lines); got != "ready" {
			t.Fatalf("allocator said %q, want ready", got)
		}
	}
	total, err := p.group.memoryWithin(0) // Memory may use a table read before the child started
	if err != nil {
		t.Fatal(err)
	}
	alone := residentBytes(t, p.PID())
	if total < 2*eachMiB<<20 || total-alone < eachMiB<<20 {
		t.Errorf("Memory = %d MiB with the program alone at %d MiB; want the program and its child, each over %d MiB",
			total>>20, alone>>20, eachMiB)
	}
	stop(t, p, context.Background(), 0)
	if got, err := p.Memory(); got != 0 || err != nil {
		t.Errorf("Memory after Stop = %d, %v; want 0, nil", got, err)
	}
}

func residentBytes(t *testing.T, pid int) uint64 {
	t.Helper()
	procs, err := listProcesses()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if p.PID == pid {
			return p.RSS
		}
	}
	t.Fatalf("process %d not listed", pid)
	return 0
}

// TestMemoryAfterExitIsNotAnOldReading reads Memory while a program and
// its child run, which leaves a snapshot to share, then right after both
// exited: the second reading must not come from the first snapshot.
func TestMemoryAfterExitIsNotAnOldReading(t *testing.T) {
	p, side := startWithSide(t, fakeSpec(t, "echo-pair"))
	if got := nextLine(t, side); !strings.HasPrefix(got, "child ") {
		t.Fatalf("program said %q, want its child's pid", got)
	}
	lines := stdoutLines(t, p)
	if used, err := p.Memory(); err != nil || used == 0 {
		t.Fatalf("Memory while they run = %d, %v; want their resident bytes", used, err)
	}
	p.closeStdin()
	for lines.Scan() { // stdout ends once both exited
	}
	waitClosed(t, p.Done(), "exit at the end of stdin")
	if used, err := p.Memory(); used != 0 || err != nil {
		t.Errorf("Memory once they exited = %d, %v; want 0, nil", used, err)
	}
}
