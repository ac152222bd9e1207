// Package procsvc runs programs for module programs (plugin protocol 1,
// §9.5): proc/run starts a program named in the granted
// permissions.programs, found in PATH, with no shell, in a process group
// of its own (a Job object on Windows), in a working folder under a
// granted permissions.files root, and answers its exit code and outputs.
//
//	svc := procsvc.New(procsvc.Config{PluginID: m.ID, Granted: granted,
//		Roots: agentRoots, TempDir: tempDir})
//	defer svc.Close() // kills every program still running, with its group
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
//   - When the program exits, what it left running in its group is killed
//     too, so nothing a call started outlives it.
//   - A program not found in PATH fails with -32004; a name with a path
//     separator is refused with -32003, so only what PATH holds runs.
//   - The program gets the host's environment: it runs with the user's
//     rights, as a program the user starts.
package procsvc
