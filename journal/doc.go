// Package journal writes the journal of each plugin (docs/protocol.md#11-the-journal): one file
// per plugin, <home>/plugin-logs/<id>.log, renamed <id>.log.1 once it would
// grow past Options.MaxSize, with lines of the form
//
//	<RFC 3339 UTC time with ms> <tag> <text>
//	2026-11-30T15:04:05.123Z stderr boom
//
// Write never blocks the protocol: it masks the text, stamps it and queues
// it for the one goroutine that owns the file. When Options.Buffer lines are
// waiting, further lines are counted instead of queued, and the first line
// that finds room again (or Flush, or Close) is preceded by the line
//
//	<time> dropped journal: <N> lines dropped
//
// The tag of that line is TagDropped, the tag the protocol already uses for
// messages lost to a full queue, so a reader filtering on losses sees both.
//
// Secrets handed to a plugin are registered with Mask; from then on every
// line carries "••••" in place of the secret, of its JSON-escaped forms
// (however escaped), of each line of a multi-line secret, of a piece of it
// at a line's edge (where a longer line may have been cut) and of any
// occurrence that masking itself would make appear, for the life of the
// Journal (the host keeps one per plugin across program restarts). A text
// cut outside the journal must be masked first: MaskedText, Excerpt.
//
// After masking, control characters but tabs and bidirectional controls
// are escaped ("\x1b"), so that reading the journal on a terminal is safe,
// and a line is cut to Options.MaxLine bytes (65 KiB) with a note of the
// bytes cut, so that one line never fills a file and rotates the rest away.
//
// Tail and ReadTail read the last lines back, across <id>.log.1 and <id>.log.
//
//	j, err := journal.Open(home, "dev.example.hello", journal.Options{})
//	if err != nil { … }
//	defer j.Close()
//	j.Mask(token)
//	j.Write(journal.TagStderr, "connecting with "+token) // "… stderr connecting with ••••"
//	lines, err := j.Tail(500)
package journal
