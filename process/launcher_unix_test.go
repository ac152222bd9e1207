//go:build unix

package process

import "testing"

// Two launchers in one host process keep their own tables: what one
// reads, adopts or caches is not the other's, and neither reads for the
// other's programs.
func TestLaunchersShareNoTable(t *testing.T) {
	a, b := NewLauncher(), NewLauncher()
	p := startOn(t, a, fakeSpec(t, "hold"))
	if got := nextLine(t, stdoutLines(t, p)); got != "ready" {
		t.Fatalf("program said %q, want ready", got)
	}
	if _, err := p.Memory(); err != nil {
		t.Fatal(err)
	}
	if a.table.snapshots.current() == 0 {
		t.Errorf("the program's launcher never read the table for its Memory")
	}
	if n := b.table.snapshots.current(); n != 0 {
		t.Errorf("another launcher read the table %d times for a program not its own", n)
	}
	if a.table == b.table {
		t.Errorf("two launchers share one table")
	}
}
