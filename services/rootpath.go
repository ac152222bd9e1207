package services

// CheckRootPath applies to a path under a root of fs/* (docs/protocol.md#fs)
// the refusals of files/read (docs/protocol.md#filesread) the path alone decides, except that
// hidden names are allowed when allowHidden is true (under the agent's
// roots) and the manifest's name is an ordinary one. It returns the reason
// of the refusal, or "" for a path that stays under its root on every
// system.
func CheckRootPath(path string, allowHidden bool) string {
	return checkPathWith(path, pathRules{allowHidden: allowHidden, allowManifest: true})
}

// CheckRootName judges one name read from a link's target under a root
// of fs/*, with the rules of CheckRootPath.
func CheckRootName(name string, allowHidden bool) string {
	return checkSegmentWith(name, pathRules{allowHidden: allowHidden, allowManifest: true})
}
