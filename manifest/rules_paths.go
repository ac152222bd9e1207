package manifest

import (
	"fmt"
	"path"
	"strings"
)

// MaxIDBytes is the longest plugin id: the journal names a file after it
// (<id>.log.1, 6 bytes more), and file names stop at 255 bytes; the rest
// is room for what the app adds around an id.
const MaxIDBytes = 200

// checkIDLength refuses an id too long to name the plugin's files. The
// schema's pattern already says what it may hold.
func checkIDLength(doc map[string]any) []Problem {
	id, _ := doc["id"].(string)
	if len(id) <= MaxIDBytes {
		return nil
	}
	return []Problem{{
		Pointer: "/id",
		Message: fmt.Sprintf("is %d bytes long, over %d: the plugin's journal file is named after it", len(id), MaxIDBytes),
		Fix:     fmt.Sprintf("use a shorter id (at most %d bytes)", MaxIDBytes),
	}}
}

// checkCommandPath refuses a program that would not run from where the
// protocol says (docs/protocol.md#1-the-manifest): a first element starting with ./ names a
// program inside the plugin folder, so it may not climb out of it nor
// name the folder itself; any other relative path with a separator would
// be taken from the plugin folder without that check, and is neither a
// name looked up in PATH.
func checkCommandPath(doc map[string]any) []Problem {
	command, _ := valueAt(doc, []string{"run", "command"}).([]any)
	if len(command) == 0 {
		return nil
	}
	program, ok := command[0].(string)
	if !ok || program == "" {
		return nil
	}
	why := commandFault(program)
	if why == "" {
		return nil
	}
	return []Problem{{
		Pointer: "/run/command/0",
		Message: quoteShort(program) + " " + why,
		Fix:     `name a program inside the plugin folder as "./path/to/program", or a program in PATH by its name alone`,
	}}
}

// commandFault says what is wrong with the program of run.command, or "".
// Backslashes count as separators: on Windows they are.
func commandFault(program string) string {
	slashed := strings.ReplaceAll(program, `\`, "/")
	rest, relative := strings.CutPrefix(slashed, "./")
	switch {
	case relative:
		clean := path.Clean("/" + rest) // rooted: what climbs stops at the root
		climbs := path.Clean(rest)
		switch {
		case climbs == ".." || strings.HasPrefix(climbs, "../"):
			return "climbs out of the plugin folder"
		case clean == "/":
			return "names the plugin folder itself, not a program"
		}
	case path.IsAbs(slashed) || hasDriveLetter(slashed):
		// An absolute path is the user's machine's business.
	case strings.Contains(slashed, "/"):
		return "is a relative path that does not start with ./: it would be taken from the plugin folder unchecked"
	}
	return ""
}

func hasDriveLetter(p string) bool {
	return len(p) >= 3 && p[1] == ':' && p[2] == '/' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}
