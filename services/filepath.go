package services

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// forbiddenFile is the wire message of every files/read refusal with
// CodeForbidden.
const forbiddenFile = vocab.MessageForbiddenRead

// Bounds of an asked-for path. Longer ones are refused before the system
// sees them: its own limits differ (255 bytes a name on Linux, 255 UTF-16
// units on macOS and Windows, 260 a path on Windows without long paths),
// and where it reports them as a missing file, "missing" would be a lie.
const (
	maxNameBytes = 255
	maxPathBytes = 4096
)

// checkPath applies the refusals of docs/protocol.md#filesread that the path alone
// decides. It returns the reason of the refusal, or "" for a path that
// names a file inside the folder, on every system. One trailing "/" is
// allowed (it names a folder, which the read then refuses as not a
// regular file), and so is a lone "." segment, the folder itself.
func checkPath(path string) string { return checkPathWith(path, pathRules{}) }

// pathRules are the refusals of docs/protocol.md#filesread that fs/* (docs/protocol.md#fs) lifts: hidden names under
// the agent's roots, and the manifest everywhere.
type pathRules struct {
	allowHidden, allowManifest bool
}

func checkPathWith(path string, rules pathRules) string {
	switch {
	case path == "":
		return "an empty path"
	case len(path) > maxPathBytes:
		return fmt.Sprintf("a path too long (over %d bytes)", maxPathBytes)
	case strings.ContainsRune(path, 0):
		return "a NUL in the path"
	case strings.IndexFunc(path, unicode.IsControl) >= 0:
		return "a control character in the path"
	case strings.HasPrefix(path, `\\`):
		return "a UNC path"
	case strings.ContainsRune(path, '\\'):
		return "a backslash in the path (use /)"
	case strings.HasPrefix(path, "/"):
		return "an absolute path"
	case hasDrive(path):
		return "a drive form"
	case strings.ContainsRune(path, ':'):
		return "a colon in the path (a drive or stream form)"
	}
	for segment := range strings.SplitSeq(trimFolderSlash(path), "/") {
		if segment == "." {
			continue
		}
		if why := checkSegmentWith(segment, rules); why != "" {
			return why
		}
	}
	return ""
}

// trimFolderSlash drops the one "/" that may end a path naming a folder.
func trimFolderSlash(path string) string {
	return strings.TrimSuffix(path, "/")
}

// checkSegment judges one name of a path, either asked for or read from a
// link's target.
func checkSegment(name string) string { return checkSegmentWith(name, pathRules{}) }

func checkSegmentWith(name string, rules pathRules) string {
	switch {
	case name == "":
		return "an empty segment (// or a trailing /)"
	case len(name) > maxNameBytes:
		return fmt.Sprintf("a name too long (over %d bytes)", maxNameBytes)
	case name == "..":
		return `a ".." segment`
	case !rules.allowHidden && strings.HasPrefix(name, "."):
		return "a hidden name (starting with .)"
	case !rules.allowManifest && isManifest(name):
		return "the manifest"
	case isDeviceName(name):
		return "a Windows device name"
	case isShortName(name):
		return "a Windows short name (~ and a digit), which may alias a hidden file or the manifest"
	}
	return ""
}

func hasDrive(path string) bool {
	return len(path) >= 2 && path[1] == ':' && isASCIILetter(path[0])
}

func isASCIILetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// windowsTrimmed drops the trailing dots and spaces Windows ignores in a
// name, so "escouade-plugin.json." opens the manifest there.
func windowsTrimmed(name string) string {
	return strings.TrimRight(name, ". ")
}

// isManifest compares case-insensitively, with Unicode folding, because
// macOS and Windows folders usually are case-insensitive.
func isManifest(name string) bool {
	return strings.EqualFold(windowsTrimmed(name), manifest.FileName)
}

// isDeviceName reports a name Windows maps to a device whatever the folder:
// CON, PRN, AUX, NUL, CONIN$, CONOUT$, COM0–9 and LPT0–9 (also with the
// superscript digits ¹²³), in any case, with or without an extension.
func isDeviceName(name string) bool {
	stem, _, _ := strings.Cut(name, ".")
	stem = strings.ToUpper(strings.TrimRight(stem, " "))
	switch stem {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	prefix, digit := stem[:min(len(stem), 3)], stem[min(len(stem), 3):]
	if prefix != "COM" && prefix != "LPT" {
		return false
	}
	switch digit {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}

// isShortName reports an 8.3 short-name form (PROGRA~1): on Windows it may
// name a long name this package would refuse.
func isShortName(name string) bool {
	i := strings.IndexByte(name, '~')
	return i >= 0 && i+1 < len(name) && '0' <= name[i+1] && name[i+1] <= '9'
}
