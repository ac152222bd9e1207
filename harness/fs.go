package harness

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// serveFS answers the agent's fs/read_text_file or fs/write_text_file,
// behind the fence; a fenced path is refused with a notice.
func (s *Session) serveFS(it acp.Item) {
	var result any
	var err error
	if it.Type == acp.TypeFSRead {
		result, err = ReadText(s.fence, it.Path, it.Line, it.Limit)
	} else {
		result, err = struct{}{}, WriteText(s.fence, it.Path, it.Text)
	}
	if errors.Is(err, ErrFenced) {
		what := map[string]string{acp.TypeFSRead: "read", acp.TypeFSWrite: "write"}[it.Type]
		s.emit(noticeItem(fmt.Sprintf(noticeFencedFormat, what, it.Path)))
	}
	s.stdin.send(outLines(s.client.Reply(it.Request, result, wireError(err)))...)
}

// MaxReadBytes bounds a file fs/read_text_file reads: its text goes into
// one JSON line to the agent, and a device like /dev/zero would otherwise
// be read for ever.
const MaxReadBytes = 16 << 20

// errNotRegular refuses a device, a FIFO or a folder: reading one can
// wait for ever or never end, and writing one is not writing a file.
var errNotRegular = errors.New("not a regular file")

// checkRegular refuses what f is if it is not a regular file, and a file
// over limit bytes (limit 0: no bound).
func checkRegular(path string, f *os.File, limit int64) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", path, errNotRegular)
	}
	if limit > 0 && info.Size() > limit {
		return fmt.Errorf("%s: the file is over %d MiB", path, limit>>20)
	}
	return nil
}

// readResult is the answer of fs/read_text_file.
type readResult struct {
	Content string `json:"content"`
}

// ReadText serves fs/read_text_file: the file's text from line (1-based)
// for limit lines, both optional, opened behind the fence (Fence.Open).
func ReadText(fence *Fence, path string, line, limit *int) (any, error) {
	f, err := fence.Open(path, false)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := checkRegular(path, f, MaxReadBytes); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxReadBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxReadBytes {
		return nil, fmt.Errorf("%s: the file is over %d MiB", path, MaxReadBytes>>20)
	}
	return readResult{Content: sliceLines(string(b), line, limit)}, nil
}

// sliceLines keeps limit lines from line (1-based); line endings are kept.
func sliceLines(text string, line, limit *int) string {
	if line == nil && limit == nil {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	start := 0
	if line != nil {
		start = min(max(*line-1, 0), len(lines))
	}
	end := len(lines)
	if limit != nil {
		end = min(start+max(*limit, 0), len(lines))
	}
	return strings.Join(lines[start:end], "")
}

// WriteText serves fs/write_text_file: the file, and the folders it needs,
// opened behind the fence (Fence.Open), and only then truncated.
func WriteText(fence *Fence, path, content string) error {
	f, err := fence.Open(path, true)
	if err != nil {
		return err
	}
	if err := checkRegular(path, f, 0); err != nil {
		f.Close()
		return err
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = io.WriteString(f, content)
	}
	return errors.Join(err, f.Close())
}

// wireError gives the ACP error of a failed fs request.
func wireError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return &acp.Error{Code: acp.CodeResourceNotFound, Message: "Resource not found: " + err.Error()}
	case errors.Is(err, ErrFenced):
		return &acp.Error{Code: acp.CodeInvalidParams, Message: "access refused: " + err.Error()}
	}
	return &acp.Error{Code: acp.CodeInvalidParams, Message: err.Error()}
}
