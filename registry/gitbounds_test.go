package registry

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/internal/testutil"
)

func TestAllocatedBytesCountsWholeBlocksAtLeastOne(t *testing.T) {
	for size, want := range map[int64]int64{
		0: 4096, 1: 4096, 4096: 4096, 4097: 8192, 1 << 20: 1 << 20,
		math.MaxInt64: math.MaxInt64, math.MaxInt64 - 4095: math.MaxInt64,
	} {
		if got := AllocatedBytes(size); got != want {
			t.Errorf("AllocatedBytes(%d) = %d, want %d", size, got, want)
		}
	}
}

// A repository of 100 folders of 1,000 one-byte files, a few KB
// fetched. Its listing is refused before a file is written: the refusal
// is the tree's ("its tree holds"), which is counted before the checkout.
func TestATreeOfAHundredThousandReusedFilesIsRefusedBeforeItsCheckout(t *testing.T) {
	bare := testutil.GitBareOfReusedTree(t, pluginManifest, 100, 1000)
	home := t.TempDir()
	_, err := Clone(context.Background(), home, "file://"+bare, GitOptions{})
	want := "file://" + bare + ": not installed: its tree holds more than 20000 files and folders, the most a plugin's folder may hold"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	assertEmptyGitDir(t, home)
}

// Ten one-byte files take ten blocks, not ten bytes: the disk bound counts
// what the files allocate.
func TestTheDiskBoundCountsBlocksNotSizes(t *testing.T) {
	bare := testutil.GitBareOfReusedTree(t, pluginManifest, 1, 10) // 12 entries, 48 KiB
	home := t.TempDir()
	_, err := Clone(context.Background(), home, bare, GitOptions{MaxDiskBytes: 32 << 10})
	if err == nil || !strings.Contains(err.Error(), "not installed: its tree holds more than 32 KiB (each file and folder counted as at least 4 KiB)") {
		t.Fatalf("err = %v, want the disk bound of the tree", err)
	}
	assertEmptyGitDir(t, home)
	if _, err := Clone(context.Background(), home, bare, GitOptions{MaxDiskBytes: 48 << 10, MaxFiles: 12}); err != nil {
		t.Fatalf("a tree at its bounds: %v", err)
	}
}

// A working-tree-encoding attribute makes git write four bytes for each
// one of the tree: the listing passes, the checkout is refused, and
// nothing is left.
func TestACheckoutThatGrowsPastItsTreeIsRefusedAndLeavesNothing(t *testing.T) {
	utf32 := strings.Repeat("a\x00\x00\x00", 40000) // 40000 bytes in the tree, 160000 checked out
	bare := bareRepo(t, map[string]string{
		"escouade-plugin.json": pluginManifest,
		".gitattributes":       "*.txt working-tree-encoding=UTF-32LE\n",
		"big.txt":              utf32,
	})
	home := t.TempDir()
	_, err := Clone(context.Background(), home, bare, GitOptions{MaxDiskBytes: 96 << 10})
	if err == nil || !strings.Contains(err.Error(), "not installed: its checkout holds more than 96 KiB") {
		t.Fatalf("err = %v, want the disk bound of the checkout", err)
	}
	assertEmptyGitDir(t, home)
}

// The watch stops git while it writes: with a watch that looks without a
// pause, a checkout of 100,101 entries bounded at 1,000 is stopped far
// before its end.
func TestTheCheckoutWatchStopsGitWhileItWrites(t *testing.T) {
	bare := testutil.GitBareOfReusedTree(t, pluginManifest, 100, 1000)
	always := make(chan time.Time)
	close(always)
	saved := watchTicks
	watchTicks = func() (<-chan time.Time, func()) { return always, func() {} }
	t.Cleanup(func() { watchTicks = saved })

	partial := t.TempDir()
	empty, work := filepath.Join(partial, "empty"), filepath.Join(partial, "work")
	os.Mkdir(empty, 0o700)
	src := gitSource{arg: bare}
	ctx := context.Background()
	if err := fetch(ctx, src, partial, work, empty, GitOptions{}); err != nil {
		t.Fatal(err)
	}
	err := checkoutBounded(ctx, empty, src, work, folderBounds{files: 1000, bytes: MaxFolderBytes})
	if err == nil || err.Error() != "its checkout holds more than 1000 files and folders, the most a plugin's folder may hold" {
		t.Fatalf("err = %v, want the file bound of the checkout", err)
	}
	written := workUsage(work, folderBounds{files: math.MaxInt64, bytes: math.MaxInt64}).files
	if written >= 100101 {
		t.Fatalf("git wrote all %d entries: it was not stopped", written)
	}
	t.Logf("git was stopped after %d of 100101 entries", written)
}

func TestTreeRecordSizeReadsTheHeaderNotThePath(t *testing.T) {
	const sha = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
	for rec, want := range map[string]int64{
		"100644 blob " + sha + "      12\tname\twith a tab": 12,
		"100755 blob " + sha + " 0\tx":                      0,
		"120000 blob " + sha + "      11\tlink":             11,
		"040000 tree " + sha + "       -\td":                0,
		"160000 commit " + sha + "       -\tsub":            0,
	} {
		if got, err := treeRecordSize([]byte(rec)); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", rec, got, err, want)
		}
	}
	for _, rec := range []string{
		"", "100644 blob " + sha + " 12", "100644 blob " + sha + " -5\tx", "100644 blob " + sha + " 1e9\tx",
		"100644 tag " + sha + " 1\tx", "100644 blob 12\tx", "100644 blob " + sha + " 99999999999999999999\tx",
	} {
		if _, err := treeRecordSize([]byte(rec)); err == nil {
			t.Errorf("%q was read", rec)
		}
	}
}

func TestTallyTreeStopsAtTheBound(t *testing.T) {
	const rec = "100644 blob e69de29bb2d1d6434b8b29ae775ad8c2e48c5391       1\tf\x00"
	b := folderBounds{files: 3, bytes: MaxFolderBytes}
	if past, err := tallyTree(strings.NewReader(strings.Repeat(rec, 3)), b); past != "" || err != nil {
		t.Errorf("3 files at a bound of 3: %q, %v", past, err)
	}
	if past, _ := tallyTree(strings.NewReader(strings.Repeat(rec, 4)), b); !strings.HasPrefix(past, "more than 3 files and folders") {
		t.Errorf("4 files at a bound of 3: %q", past)
	}
	long := "100644 blob e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 1\t" + strings.Repeat("d/", 40000) + "f\x00"
	if past, err := tallyTree(strings.NewReader(long), b); !strings.HasPrefix(past, "a path longer than") {
		t.Errorf("a path of 80 KB: %q, %v", past, err)
	}
}

// FuzzTallyTree feeds git's listing as a hostile repository might shape
// its paths: no panic, and what is accepted is within the bounds.
func FuzzTallyTree(f *testing.F) {
	const sha = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
	f.Add([]byte("100644 blob " + sha + "       1\tf\x00040000 tree " + sha + "       -\td\x00"))
	f.Add([]byte("160000 commit " + sha + "       -\ts\x00100644 blob " + sha + " 9223372036854775807\tx"))
	f.Add([]byte("100644 blob " + sha + " 5000\ta\tb\nc\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b := folderBounds{files: 4, bytes: 5 * FolderBlock}
		past, err := tallyTree(strings.NewReader(string(data)), b)
		if past != "" || err != nil || len(data) == 0 {
			return
		}
		var u folderUsage
		for _, rec := range strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00") {
			size, err := treeRecordSize([]byte(rec))
			if err != nil {
				t.Fatalf("%q accepted, yet record %q is not read: %v", data, rec, err)
			}
			u.add(size)
		}
		if u.past(b) != "" {
			t.Fatalf("%q accepted past its bounds: %s", data, fmt.Sprint(u))
		}
	})
}
