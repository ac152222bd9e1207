package safefile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIdentityCountsNames: two names of one file have one id and count
// two names, from the open file and from a listing alike; another file
// has another id.
func TestIdentityCountsNames(t *testing.T) {
	dir := t.TempDir()
	a, b, other := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "other")
	for _, p := range []string{a, other} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(a, b); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	f, err := os.Open(b)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	idOpen, linksOpen, err := Identity(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(a)
	if err != nil {
		t.Fatal(err)
	}
	idListed, linksListed, err := IdentityAt(a, info)
	if err != nil {
		t.Fatal(err)
	}
	if idOpen != idListed || linksOpen != 2 || linksListed != 2 {
		t.Errorf("a and b: ids %v and %v, names %d and %d; want one id and 2 names", idOpen, idListed, linksOpen, linksListed)
	}
	otherInfo, err := os.Lstat(other)
	if err != nil {
		t.Fatal(err)
	}
	if idOther, links, err := IdentityAt(other, otherInfo); err != nil || idOther == idOpen || links != 1 {
		t.Errorf("other: id %v (a's %v), %d names, %v; want its own id and 1 name", idOther, idOpen, links, err)
	}
}
