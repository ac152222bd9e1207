package journal

import (
	"io"
	"time"

	"github.com/escouade-dev/escouade-plugin/protocol"
)

// Defaults of Options.
const (
	// DefaultMaxSize is the protocol's rotation size
	// (docs/protocol.md#11-the-journal): "1 MB" read as a decimal
	// megabyte, the unit the sentence uses.
	DefaultMaxSize int64 = protocol.JournalRotateBytes
	// DefaultBuffer is how many lines may wait for the disk before Write
	// starts dropping them: far more than a burst of stderr needs.
	DefaultBuffer = protocol.JournalQueueLines
	// DefaultMaxLine is the longest text of one line: the pieces a long
	// stderr line arrives in, plus 1 KiB of room for the masks and
	// escapes they may gain, so those pass whole, while one line can
	// never fill a file and rotate away everything before it.
	DefaultMaxLine = protocol.StderrPieceBytes + 1<<10
)

// Options tune a Journal. The zero value means the documented defaults.
type Options struct {
	// MaxSize is the size in bytes a file may not grow past: before a line
	// would take it further, <id>.log becomes <id>.log.1. A single line
	// longer than MaxSize still goes, alone, into a fresh file.
	// Zero means DefaultMaxSize.
	MaxSize int64
	// Buffer is how many lines may wait to be written before Write drops
	// new ones. Zero means DefaultBuffer.
	Buffer int
	// MaxLine is the longest text of a line, in bytes: a longer line is
	// cut, after masking, to fit with the note " … (N bytes cut)". Zero
	// means DefaultMaxLine.
	MaxLine int
	// Now stamps the lines. Nil means time.Now.
	Now func() time.Time
	// Unwritable takes what the journal says while its file cannot be
	// written (docs/protocol.md#the-journal-unwritable). Nil means the
	// host's stderr: one warning per folder naming it, the reason and the
	// fix, then each line as "<plugin id> <line>".
	Unwritable io.Writer
}

func (o Options) withDefaults() Options {
	if o.MaxSize <= 0 {
		o.MaxSize = DefaultMaxSize
	}
	if o.Buffer <= 0 {
		o.Buffer = DefaultBuffer
	}
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}
