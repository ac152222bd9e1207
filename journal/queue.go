package journal

import (
	"fmt"
	"strings"
	"time"
)

// stampLayout is RFC 3339 in UTC with milliseconds, as docs/protocol.md#11-the-journal wants.
const stampLayout = "2006-01-02T15:04:05.000Z"

func stamp(t time.Time, tag, text string) string {
	return t.UTC().Format(stampLayout) + " " + tag + " " + text
}

func splitLines(text string) []string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, line := range lines {
		lines[i] = strings.TrimSuffix(line, "\r")
	}
	return lines
}

// capLine cuts line, already masked, to at most maxLine bytes, the note of
// what was cut included, before a rune.
func capLine(line string, maxLine int) string {
	if len(line) <= maxLine {
		return line
	}
	// The note is sized for the count it would hold at most.
	room := maxLine - len(cutNote(len(line)))
	kept := cutRunes(line, room)
	return kept + cutNote(len(line)-len(kept))
}

func cutNote(n int) string {
	return fmt.Sprintf(" … (%d bytes cut)", n)
}

// enqueue queues the lines of one Write, stamped, as one item, but those
// past Buffer lines already waiting, which it counts as dropped (and
// neither stamps nor keeps). j.mu is held.
func (j *Journal) enqueue(now time.Time, tag string, lines []string) {
	room := uint64(j.opts.Buffer) - min(j.queued-j.written, uint64(j.opts.Buffer))
	kept := int(min(uint64(len(lines)), room))
	if kept > 0 {
		// The note goes where the gap is, even one past Buffer, so that
		// the count of lost lines is never lost itself.
		j.noteDropped()
		stamped := make([]string, kept)
		for i, line := range lines[:kept] {
			stamped[i] = stamp(now, tag, line)
		}
		j.pending.Push(stamped)
		j.queued += uint64(kept)
	}
	j.dropped += len(lines) - kept
}

// noteDropped queues the line saying how many lines were dropped, if any
// were. j.mu is held.
func (j *Journal) noteDropped() {
	if j.dropped == 0 || j.closing {
		return
	}
	note := fmt.Sprintf("journal: %d lines dropped", j.dropped)
	j.pending.Push([]string{stamp(j.opts.Now(), TagDropped, note)})
	j.queued++
	j.dropped = 0
}
