package main

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// The watch of dev (docs/CLI.md#dev): every change of a plugin's folder,
// but what a build or a run writes, wakes a rebuild once the folder has
// been quiet for devQuiet, so that an editor's save of ten files is one
// rebuild.
const devQuiet = 300 * time.Millisecond

// maxWatchedFolders bounds the folders of a plugin watched: past it the
// deeper ones are not, and dev says so.
const maxWatchedFolders = 4096

// burst is a run of changes with quiet after it: the first path changed,
// relative to the folder, and how many changes it held.
type burst struct {
	first string
	n     int
}

// debounce turns raw changes into bursts: one once no change came for
// quiet, as after measures it (time.After, or a test's clock).
func debounce(ctx context.Context, raw <-chan string, quiet time.Duration, after func(time.Duration) <-chan time.Time) <-chan burst {
	out := make(chan burst)
	go func() {
		defer close(out)
		var cur burst
		var timer <-chan time.Time
		for {
			select {
			case <-ctx.Done():
				return
			case rel, ok := <-raw:
				if !ok {
					return
				}
				if cur.n == 0 {
					cur.first = rel
				}
				cur.n++
				timer = after(quiet)
			case <-timer:
				select {
				case out <- cur:
				case <-ctx.Done():
					return
				}
				cur, timer = burst{}, nil
			}
		}
	}()
	return out
}

// folderWatch is the fsnotify watch of a plugin's folder and of every
// folder in it (fsnotify watches one level), new ones included.
type folderWatch struct {
	dir     string
	ignored func(rel string) bool
	w       *fsnotify.Watcher
	folders int
	// Raw gets the path, relative to dir, of each change not ignored.
	Raw chan string
	// Full is said once, when the folders past maxWatchedFolders are left.
	Full bool
}

// watchFolder watches dir until ctx ends.
func watchFolder(ctx context.Context, dir string, ignored func(rel string) bool) (*folderWatch, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	fw := &folderWatch{dir: dir, ignored: ignored, w: w, Raw: make(chan string, 64)}
	fw.addTree(dir)
	go fw.loop(ctx)
	return fw, nil
}

// addTree watches root and the folders under it that are not ignored.
func (fw *folderWatch) addTree(root string) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if rel, _ := filepath.Rel(fw.dir, p); rel != "." && fw.ignored(filepath.ToSlash(rel)) {
			return filepath.SkipDir
		}
		if fw.folders >= maxWatchedFolders {
			fw.Full = true
			return filepath.SkipAll
		}
		if fw.w.Add(p) == nil {
			fw.folders++
		}
		return nil
	})
}

func (fw *folderWatch) loop(ctx context.Context) {
	defer fw.w.Close()
	defer close(fw.Raw)
	for {
		select {
		case <-ctx.Done():
			return
		case <-fw.w.Errors:
		case ev, ok := <-fw.w.Events:
			if !ok {
				return
			}
			rel, err := filepath.Rel(fw.dir, ev.Name)
			if err != nil || fw.ignored(filepath.ToSlash(rel)) {
				continue
			}
			if ev.Has(fsnotify.Create) {
				fw.addTree(ev.Name) // a new folder: watched too (a file: nothing to add)
			}
			select {
			case fw.Raw <- filepath.ToSlash(rel):
			case <-ctx.Done():
				return
			}
		}
	}
}

// devIgnored is what dev does not rebuild for: what builds fetch and
// write (.git, node_modules, target, Cargo.lock, the build's own
// output), and what a run writes in its folder (__pycache__, .pyc):
// a rebuild or a restart would otherwise wake the next one.
func devIgnored(outputs []string) func(rel string) bool {
	return func(rel string) bool {
		for _, part := range strings.Split(rel, "/") {
			if strings.HasPrefix(part, ".") || part == "node_modules" || part == "target" || part == "__pycache__" {
				return true
			}
		}
		// cargo makes target/ through a temporary target<random> beside it.
		if strings.HasSuffix(rel, ".pyc") || rel == "Cargo.lock" || strings.HasPrefix(rel, "target") && !strings.ContainsAny(rel, "./") {
			return true
		}
		for _, out := range outputs {
			if rel == out || strings.HasPrefix(rel, out+"/") || strings.HasPrefix(rel, out+".") {
				return true
			}
		}
		return false
	}
}
