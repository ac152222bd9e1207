package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/escouade-dev/escouade-plugin/internal/bqueue"
	"github.com/escouade-dev/escouade-plugin/internal/safetext"
)

// File modes of the journal: lines can name hosts, keys and paths the user
// may not want other accounts of the machine to read.
const (
	dirMode  os.FileMode = 0o700
	fileMode os.FileMode = 0o600
)

// Journal is the journal of one plugin. Its methods are safe for
// concurrent use; one goroutine of its own writes the file until Close.
type Journal struct {
	opts  Options
	path  string
	masks masker
	subs  subscribers
	hooks hooks

	mu      sync.Mutex
	moved   *sync.Cond // broadcast when written grows or the writer stops
	queued  uint64     // lines ever queued, notes of dropped lines included
	written uint64     // lines the writer is done with
	dropped int        // lines dropped since the last note saying so
	closing bool
	err     error // first write error not yet returned by Flush or Close
	done    chan struct{}

	// pending holds the stamped lines the writer has not taken yet, one
	// item per Write, so that the lines of one Write reach subscribers in
	// one delivery. It has no bound of its own: Buffer counts the lines until they are written,
	// those the writer holds included (enqueue). Pushed under mu, closed
	// under mu when closing is set.
	pending *bqueue.Queue[[]string]

	out output // owned by the writer goroutine
}

// hooks are seams for tests; the zero value does nothing.
type hooks struct {
	beforeWrite func() // called by the writer before it writes each batch
}

// Path is the journal file of plugin id under home.
func Path(home, id string) string {
	return filepath.Join(home, "plugin-logs", id+".log")
}

// Open opens the journal of plugin id under home for appending, creating
// plugin-logs/ (mode 0700) and the file (mode 0600) as needed. A journal
// whose file cannot be opened (a read-only or full home) still opens: its
// lines go to Options.Unwritable, by default the host's stderr after one
// warning per folder (see unwritable.go), and each batch tries the file
// again. Only an id that cannot name a file is refused.
func Open(home, id string, opts Options) (*Journal, error) {
	return open(home, id, opts, hooks{})
}

func open(home, id string, opts Options, h hooks) (*Journal, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	path := Path(home, id)
	j := &Journal{
		opts:    opts.withDefaults(),
		path:    path,
		hooks:   h,
		done:    make(chan struct{}),
		pending: bqueue.New[[]string](0, bqueue.Refuse),
	}
	j.moved = sync.NewCond(&j.mu)
	j.out = output{path: path, maxSize: j.opts.MaxSize, unwritable: unwritableTo(j.opts.Unwritable, id, filepath.Dir(path))}
	if err := j.out.open(); err != nil {
		j.out.elsewhere(nil, err) // said now, not at the first line
	}
	go j.run()
	return j, nil
}

// checkID refuses an id that would not name one file inside plugin-logs/.
// The manifest package validates ids properly; this guards the file system
// against a caller that skipped it.
func checkID(id string) error {
	if id == "" || strings.HasPrefix(id, ".") || strings.ContainsAny(id, `/\:`+"\x00") {
		return fmt.Errorf("journal: plugin id %q cannot name a journal file", id)
	}
	if len(rotatedPath(id+".log")) > maxFileName {
		return fmt.Errorf("journal: plugin id of %d bytes is too long to name a journal file (%s.log.1 is over %d bytes)", len(id), "<id>", maxFileName)
	}
	return nil
}

// maxFileName is the longest file name most file systems take.
const maxFileName = 255

// Mask hides secret, from now on and for the life of the Journal, in every
// line written: as is; inside JSON strings however escaped (any mix of
// \uXXXX, surrogate pairs, \/ and the short escapes, up to JSON in JSON in
// JSON); each line of a multi-line secret on its own (a PEM key logged line
// by line), when it has at least 4 bytes; and, at the start or the end of a
// line, a piece of it that a cut made before the journal may have left
// there (at most 3 bytes, and less than half of it, may stay in clear).
// Where secrets overlap, all of them are hidden. An empty secret, or one
// made only of "•", is ignored. Encodings other than JSON's (base64, hex,
// URL encoding) are not masked.
func (j *Journal) Mask(secret string) {
	j.masks.add(secret)
}

// Subscribe calls fn with every line written from now on, after masking,
// from the writer goroutine, in order (the CLI's --follow). fn must not
// block for long, since the file waits for it, and must not call Flush,
// Tail or Close, which wait for the writer. After cancel returns, fn is
// called at most for the lines whose delivery had already begun.
func (j *Journal) Subscribe(fn func(line string)) (cancel func()) {
	return j.subs.add(fn)
}

// Write queues text under tag without ever blocking. The text is masked,
// then split into one line per line of text (a final line break ends the
// last line rather than adding an empty one, and a "\r" before a line break
// is dropped), then each line is masked again as a line (its edges), its
// control characters but tabs (an ANSI escape, a lone "\r" that would
// overwrite the line on a terminal, a NUL) and bidirectional controls are
// escaped as Go writes them ("\x1b"), and it is cut to Options.MaxLine
// bytes, with a note of how many were cut; every line gets the same time
// and tag. Write after Close does nothing.
func (j *Journal) Write(tag, text string) {
	lines := splitLines(j.masks.apply(text))
	for i, line := range lines {
		lines[i] = capLine(safetext.KeepTabs(j.masks.applyLine(line)), j.opts.MaxLine)
	}
	now := j.opts.Now()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closing {
		return
	}
	j.enqueue(now, tag, lines)
}

// Flush waits until the writer has handed every line queued so far to the
// file (not to the disk: there is no fsync) and returns the first write
// error not reported yet.
func (j *Journal) Flush() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.noteDropped()
	target := j.queued
	for j.written < target && !j.stopped() {
		j.moved.Wait()
	}
	return j.takeErr()
}

// Close writes what is queued, stops the writer and closes the file. It
// returns the first write or close error not reported yet. Calling it again
// waits for the first call and returns nil.
func (j *Journal) Close() error {
	j.mu.Lock()
	if !j.closing {
		j.noteDropped()
		j.closing = true
		j.pending.Close()
	}
	j.mu.Unlock()
	<-j.done
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.takeErr()
}

func (j *Journal) stopped() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// takeErr returns the pending error once. j.mu is held.
func (j *Journal) takeErr() error {
	err := j.err
	j.err = nil
	return err
}
