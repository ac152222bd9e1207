package harness

// Texts of the notices and refusals the harness writes itself.
const (
	refusePrivateFormat       = "%s does not start in a private project: it reads and writes files by itself (\"fs\": false), where the private-project fence cannot hold"
	noticeUnfencedFormat      = "%s reads or writes %s by itself: the private-project fence does not hold for its own file accesses"
	noticeCancelIgnoredFormat = "%s ignored the cancel for %s: it was stopped (its process group killed)"
	noticeCrashFormat         = "%s stopped (%s)"
	noticeOutputEndedFormat   = "%s closed its output while still running: it was stopped"
	noticeLineTooLongFormat   = "the agent wrote a line of %d bytes, over the limit of %d: it was dropped"
	noticeFencedFormat        = "refused the agent's %s of %s: it belongs to another private project"
	noticeCursor              = "Cursor's cursor/* extensions are not supported yet: their requests are refused"
)
