package services

import (
	"fmt"
	"strings"

	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// Levels of the log notification (docs/protocol.md#log).
const (
	LevelDebug = "debug"
	LevelInfo  = "info"
	LevelWarn  = "warn"
	LevelError = "error"
)

func knownLevel(level string) bool {
	switch level {
	case LevelDebug, LevelInfo, LevelWarn, LevelError:
		return true
	}
	return false
}

// fallbackLogLevel files the message of a log with an unknown level, so
// nothing the plugin wrote is lost.
const fallbackLogLevel = LevelInfo

// LogTag is the journal tag of a log line of the given level.
func LogTag(level string) string { return journal.LogTag(level) }

// writeLog serves the log notification: one journal line per line of the
// message, tagged log.<level>. It never has an answer.
func (s *Server) writeLog(params []byte) *Error {
	obj, err := decodeObject(params, "level", "message")
	if err != nil {
		return err
	}
	level, err := obj.requiredString("level")
	if err != nil {
		return err
	}
	message, err := obj.requiredString("message")
	if err != nil {
		return err
	}
	if !knownLevel(level) {
		s.journal(TagRefused, fmt.Sprintf(vocab.MethodLog+": the level %q is not one of debug, info, warn, error; the message is kept as %s",
			level, fallbackLogLevel))
		level = fallbackLogLevel
	}
	for _, line := range messageLines(message) {
		s.journal(LogTag(level), line)
	}
	return nil
}

// messageLines splits a message into journal lines: at "\n", "\r\n" or a
// lone "\r", without an empty last line for a message that ends a line.
func messageLines(message string) []string {
	message = strings.ReplaceAll(message, "\r\n", "\n")
	message = strings.ReplaceAll(message, "\r", "\n")
	lines := strings.Split(message, "\n")
	if len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
