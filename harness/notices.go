package harness

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Texts of the notices and refusals the harness writes itself.
const (
	refuseNoFolderFormat      = "the agent's folder %s is not a folder that exists: give an existing folder as its cwd"
	refusePrivateFormat       = "%s does not start in a private project: it reads and writes files by itself (\"fs\": false), where the private-project fence cannot hold"
	noticeUnfencedFormat      = "%s reads or writes %s by itself: the private-project fence does not hold for its own file accesses"
	noticeCancelIgnoredFormat = "%s ignored the cancel for %s: it was stopped (its process group killed)"
	noticeCrashFormat         = "%s stopped (%s)"
	noticeOutputEndedFormat   = "%s closed its output while still running: it was stopped"
	noticeLineTooLongFormat   = "the agent wrote a line of %d bytes, over the limit of %d: it was dropped"
	noticeFencedFormat        = "refused the agent's %s of %s: it belongs to another private project"
	noticeNoVersionFormat     = "cannot read the version of %s (%v): it is not compared with the versions this plugin was tried with; an agent that prints no version has \"versionArgs\": [] in its harness entry"
	// A known cause's notice (causes.go): %s is the agent's name.
	noticeRootFormat    = "%s refuses to run as root (the administrator, uid 0) unless IS_SANDBOX=1 is in its environment: run the app as another user, or, where the machine is itself a sandbox (a container, a VM), add \"IS_SANDBOX\": \"1\" to the \"env\" of its harness's acp object"
	noticeBwrapFormat   = "%s runs its shell commands in a bubblewrap sandbox, and bubblewrap (bwrap) is not installed: install the bubblewrap package (Debian, Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap), then try again"
	noticeOwnModeFormat = "%s switched itself to its mode %s%s; the host still applies the app mode %s and asks what that mode asks"
	// noticeLoginFormat names the agent's own command (docs/harness.md#the-session):
	// the speaker, the program, then what the agent offers and the end.
	noticeLoginFormat = "%s needs you to log in: run `%s` in a terminal to log in%s"
)

// acpLoginNotice starts the client's notice of an agent that asks to log
// in; the client does not know the agent's command, the harness does.
const acpLoginNotice = "the agent needs you to log in: run its own login command in a terminal"

// ownNotice rewrites a notice of the client with what only the harness
// knows: the log-in notice names the agent and the command to run.
func (s *Session) ownNotice(text string) string {
	rest, ok := strings.CutPrefix(text, acpLoginNotice)
	if !ok {
		return text
	}
	return fmt.Sprintf(noticeLoginFormat, s.speaker(), s.programName(), rest)
}

// programName is the name the agent's program is run by, as the user
// types it in a terminal: the name found in PATH, without .exe.
func (s *Session) programName() string {
	if s.program == "" {
		return firstOr(s.harness.Locate.Names, "the agent")
	}
	base := filepath.Base(s.program)
	return strings.TrimSuffix(strings.TrimSuffix(base, ".exe"), ".EXE")
}

func firstOr(list []string, fallback string) string {
	if len(list) == 0 {
		return fallback
	}
	return list[0]
}
