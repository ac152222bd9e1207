// Package proc runs programs for module programs (docs/protocol.md#procrun): proc/run starts a program named in the granted
// permissions.programs, found in PATH, with no shell, in a working folder
// under a granted permissions.files root, and answers its exit code and
// outputs. The program and everything it starts are one family, tracked
// by process as a plugin's program is (its process group, the
// instance token in its environment, the host its subreaper, kills by
// pidfd on Linux; a Job object on Windows).
//
//	svc := procsvc.New(procsvc.Config{PluginID: m.ID, Granted: granted,
//		Roots: agentRoots, TempDir: tempDir})
//	defer svc.Close() // kills every program still running, with all it started
//
// Decisions where the protocol leaves room:
//
//   - Each output keeps its first 1 MiB; the rest is read and dropped, so
//     the program never blocks on a full pipe, and the journal says so
//     (tag "dropped"). Outputs are strings: bytes that are not UTF-8 are
//     replaced with U+FFFD.
//   - A program past its time (timeoutMs, at most and by default 60 s) is
//     killed with its group and the call fails with -32004; a program
//     ended by a signal answers code 128 + the signal, as shells do.
//   - When the program exits, what it left running is killed too, those
//     that left its group (setsid, setsid -f, a double fork) included, and
//     the answer comes once they are gone: nothing a call started outlives
//     it, nor the time limit, nor the instance (Close: its end, the
//     plugin's disable, the host's exit). On Linux a process that both
//     clears its environment and leaves the tree before the kill reads the
//     process table is not found; on macOS and the BSDs one that leaves
//     its group and its tree escapes (see process).
//   - A program not found in PATH fails with -32004; a name with a path
//     separator is refused with -32003, so only what PATH holds runs.
//   - The program runs with the user's rights, but gets the environment a
//     process plugin gets (process.Environ, docs/protocol.md#plugin-env):
//     the variables a program needs to run (PATH, HOME, the language…),
//     TMPDIR (TEMP and TMP) naming a folder of the call's own under the
//     plugin's temporary folder, removed after it, and on Linux
//     ESCOUADE_INSTANCE_TOKEN. No other variable of the host's reaches it:
//     the tokens and keys of the app's environment stay there.
package proc
