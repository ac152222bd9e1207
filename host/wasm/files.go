package wasm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing/fstest"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// pluginFiles is the snapshot of a plugin folder's root JSON files that an
// instance sees, read-only, at /plugin (docs/protocol.md#files-of-its-folder): never the
// manifest (whatever its case) nor a hidden file, at most each bytes a file and all bytes together; a file left
// out is named in a "wasm" journal line. Only regular files count: a link
// could lead out of the folder. Files go in by name, so which ones fit
// under the total does not depend on the order the OS lists them.
func pluginFiles(dir string, each, all int64, journal func(string)) (fstest.MapFS, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list the plugin folder: %w", err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	files := fstest.MapFS{}
	var total int64
	left := leftOut{journal: journal, limits: fmt.Sprintf("%s a file and %s in all", kb(each), kb(all))}
	defer left.summary()
	journal = left.add
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") || strings.EqualFold(name, manifest.FileName) {
			continue // a hidden file and the manifest are never given, as files/read refuses them
		}
		data, size, err := readUpTo(filepath.Join(dir, name), each)
		switch {
		case err != nil:
			journal(fmt.Sprintf("%s left out of /plugin: %v", name, err))
		case size > each:
			journal(fmt.Sprintf("%s left out of /plugin: %s, past the limit of %s a file", name, kb(size), kb(each)))
		case total+size > all:
			journal(fmt.Sprintf("%s left out of /plugin: with it the files would hold %s, past the limit of %s in all", name, kb(total+size), kb(all)))
		default:
			total += size
			files[name] = &fstest.MapFile{Data: data, Mode: 0o444}
		}
	}
	return files, nil
}

// leftOutLines is how many files left out of /plugin get a journal line
// each; the others are counted in one line that names a few, so a folder
// of 100,000 JSON files does not flood the journal.
const leftOutLines = 5

// leftOut journals the files left out of /plugin: a line each for the
// first leftOutLines, one line for the rest.
type leftOut struct {
	journal func(string)
	limits  string   // "256 KB a file and 1024 KB in all"
	more    []string // the names past the first lines
	count   int
}

// add takes the line of a file left out ("<name> left out of /plugin: …").
func (l *leftOut) add(line string) {
	if l.count++; l.count <= leftOutLines {
		l.journal(line)
		return
	}
	if len(l.more) < leftOutLines {
		l.more = append(l.more, line[:strings.Index(line, " left out ")])
	}
}

func (l *leftOut) summary() {
	if n := l.count - leftOutLines; n > 0 {
		names := strings.Join(l.more, ", ")
		if n > len(l.more) {
			names += ", …"
		}
		l.journal(fmt.Sprintf("%d more files left out of /plugin (past its limits of %s, or unreadable): %s", n, l.limits, names))
	}
}

// readUpTo reads a file of at most limit bytes; a larger one is not read,
// only its size returned. Anything but a regular file (one swapped in
// since the folder was listed) is refused without waiting on it.
func readUpTo(path string, limit int64) ([]byte, int64, error) {
	data, err := safefile.Read(path, filepath.Base(path), limit)
	var refused *safefile.Error
	if errors.Is(err, safefile.ErrTooLarge) && errors.As(err, &refused) {
		return nil, refused.Size, nil
	}
	if err != nil {
		return nil, 0, err
	}
	return data, int64(len(data)), nil
}

// kb writes a size for a journal line: whole KB as such, small sizes in
// bytes, others in KB rounded up, so a file one byte past 256 KB does not
// read as 256 KB.
func kb(n int64) string {
	if n%1024 != 0 && n < 10<<10 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d KB", (n+1023)/1024)
}
