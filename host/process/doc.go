// Package process runs the program of a plugin that is a process: the OS
// layer under the host's supervisor, with no JSON-RPC in it. It starts the
// program in the plugin folder with the environment the host built, hands
// out its stdin and stdout pipes for the wire, turns its stderr into lines
// (keeping the last few for a crash entry), reports how it ended, reads the
// resident memory of its whole process tree, and stops it together with
// everything it started.
//
// Stopping escalates: stdin is closed (a plugin that reads its stdin to the
// end exits by itself), then after a grace the whole group is asked to
// terminate, then after another grace it is killed. Whatever the leader left
// behind is always killed at the end, so a plugin never outlives its stop.
//
//	p, err := process.Start(process.Spec{
//		Dir:     pluginDir,
//		Command: []string{"./run"},
//		Env:     env,
//		Stderr:  func(line string) { journal.Stderr(line) },
//	})
//	...
//	<-p.Done()
//	log.Printf("crash: %v; last lines %q", p.Exit(), p.LastStderr())
//	p.Stop(ctx, time.Second) // kills what it left behind, frees the pipes
//
// # Platforms
//
// Linux and macOS (every Unix): the program leads its own process group
// (Setpgid), and signals go to the whole group. A child that moves itself to
// another group or session (setsid, a daemonising double fork) escapes the
// group and is not signalled; it is still counted by Memory while it
// descends from the program. A host killed before it could stop its
// plugins leaves their programs running; each then sees the end of its
// stdin, which a plugin of the protocol takes as the signal to exit.
//
// Windows: the program is assigned to a Job object with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, so it and all it starts die with the
// job, even when the host itself crashes. os/exec cannot start a process
// suspended, so the program is assigned right after it starts: a child it
// spawns in that first instant, before the assignment, is outside the job.
// Windows has no SIGTERM: Stop closes stdin, waits the grace, then
// terminates the job. A program ended that way reports Signal "killed".
//
// Memory: on Linux it is read from /proc (every process whose parent chain
// leads to the program or that sits in its process group, resident pages ×
// page size). On the other Unix systems there is no /proc: it runs
// `ps -A -o pid= -o ppid= -o pgid= -o rss=` once per call, which macOS and
// the BSDs all provide. On Windows it sums the working set of every process
// of the job.
package process
