// Package fs serves the disk to module programs (docs/protocol.md#fs): fs/read, fs/write, fs/list, fs/stat, fs/remove and fs/mkdir
// under the roots of permissions.files the user granted — agent,
// agentRepo and agentHome, resolved from the attached agent the call
// names, and temp, a folder of the plugin's own — each optionally
// read-only (:ro).
//
// A path is judged by the rules of files/read (services.CheckRootPath):
// relative, no "..", no backslash, drive, device or short name, except that
// hidden names are allowed under the agent's roots. Every open goes
// through an os.Root, so no link can lead out of a root between a check
// and its open; links are also followed name by name first, so a link
// whose target leaves the root, or is hidden under temp, is refused
// rather than met as a failure. Escouade's home and every installed
// plugin's folder (Config.Installed) are never read nor changed, and the
// plugin's own folder never changed, whatever root holds them: folders
// are compared by identity (home.go, own.go, installed.go).
//
//	svc := fssvc.New(fssvc.Config{PluginID: m.ID, Granted: granted,
//		Roots: agentRoots, TempDir: filepath.Join(home, "plugin-temp", m.ID)})
//
// Decisions where the protocol leaves room:
//
//   - fs/write creates or replaces a file, never its folder (fs/mkdir
//     makes folders); a link named by the path is followed, within the
//     root.
//   - fs/remove removes a link itself, not its target.
//   - fs/list under temp leaves hidden names out, as they cannot be
//     reached there; an entry that is a link is described by its target
//     when the target is within the root.
//   - An agent the host does not know, or a root the agent lacks, is
//     -32003: the plugin may not reach it.
package fs
