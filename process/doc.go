// Package process runs the program of a plugin that is a process: the OS
// layer under the host's supervisor, with no JSON-RPC in it. It starts the
// program in the plugin folder with what of the environment the host built
// a program needs (Environ: never the app's keys or tokens), hands
// out its stdin and stdout pipes for the wire, turns its stderr into lines
// (keeping the last few for a crash entry), reports how it ended, reads the
// resident memory of its whole process tree, and stops it together with
// everything it started.
//
// Stopping escalates: stdin is closed (a plugin that reads its stdin to the
// end exits by itself), then after a grace everything the program started
// is asked to terminate, then after another grace it is all killed. A
// program already asked to end (StopAlreadyAsked: it was sent shutdown and
// had its delay) skips the first grace: SIGTERM goes with the closing of
// stdin. Whatever the program left behind is always killed at the end, so
// a plugin never outlives its stop. Example starts a program, speaks to it
// and stops it; ExampleStartFamily runs a program of a module's proc/run
// as a Family.
//
// # Platforms
//
// Linux: the program leads its own process group (Setpgid) and gets SIGKILL
// when the host dies (Pdeathsig). Start also adds TokenEnv to its
// environment, a random token that every process it starts inherits, and
// makes the host process a child subreaper (prctl PR_SET_CHILD_SUBREAPER),
// once, at its first Start. So a process that leaves the group (setsid,
// setpgid) or whose parent ends (a daemon's double fork) is adopted by the
// host rather than by init, and is still known as the program's: by its
// token, read once from /proc/<pid>/environ, or because it was seen in the
// program's tree or group before. Stop signals the group and each such
// process (through a pidfd checked against the process's start time, so a
// reused pid is never hit), kills again what was started meanwhile, waits
// until all are gone and reaps those the host adopted, each by its own pid:
// never a wait for any child, which would take the statuses os/exec and
// other code of the host wait for. Memory counts them all.
//
// Where the system refuses the subreaper (a sandbox's seccomp filter),
// the strays are adopted by init instead: the token still finds them, Stop
// still kills them and init reaps them.
//
// Being the subreaper is process-wide: the app that embeds the host adopts
// the orphans of all its children, not only of plugins. The host reaps
// those of plugins, and any process it saw adopted (its parent changed to
// the host between two reads of the process table) once it ends; an orphan
// of another child of the app that is adopted and ends between two reads
// stays a zombie until the app exits (it holds only a pid).
//
// Pdeathsig is only the program's. So that what it started dies with the
// host too, even when the host is killed (SIGKILL, a crash), the first
// Start runs a watchdog: the host's own binary (/proc/self/exe) run again
// with an argument and a variable that make the package's init run it and
// exit before main. The host tells it each program's token before the
// start and the group it leads after, and that the program is gone at its
// release, on a pipe only the host holds. When the pipe ends, with the
// host, the watchdog kills every process carrying a token still listed,
// every process of a listed group while the group is the program's (its
// leader runs, or a process with the token is in it: a group's id is not
// reused while it has members), and all they started, scanning again
// until a scan finds none running, then exits. It leads a group of its
// own, so a Ctrl-C to the host's group does not end it first. A watchdog
// that stops reading is killed and replaced; one that ends is replaced at
// once, told of every program still running (the list is in its pipe
// before it starts); where it cannot start, the host runs without.
//
// The limits that remain: a process that both clears its environment and
// leaves the tree before the host reads the table is not found (nor, when
// the host died, one that clears it and leaves the group); and a program
// that starts processes faster than they are killed is killed in rounds,
// eight at most (64 by the watchdog).
//
// macOS and the other Unix systems: the program leads its own process
// group, and signals go to the whole group and to every process of its
// tree that ps lists. There is no subreaper, no Pdeathsig and no readable
// environment of another process: a child that moves itself to another
// group or session and whose parent then ends (a daemonising double fork)
// escapes and is neither signalled nor counted; while it descends from the
// program, it is counted and killed. There is no watchdog either: a host
// killed before it could stop its plugins leaves their programs running;
// each then sees the end of its stdin, which a plugin of the protocol takes
// as the signal to exit. A watchdog there could kill the groups it was
// told of (checked by ps against the leader), not what left them.
//
// Windows: the program is assigned to a Job object with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, so it and all it starts die with the
// job, even when the host itself crashes. The program starts suspended and
// runs only once it is in the job, so nothing it starts is outside it.
// Windows has no SIGTERM: Stop closes stdin, waits the grace, then
// terminates the job. A program ended that way reports Signal "killed".
//
// Memory: on Linux it is read from /proc (the program's tree, its group and
// the processes known as its, resident pages × page size). One read of the
// process table serves every Process that asks within a second, and
// stops under way at once share their reads, so watching or stopping many
// plugins costs a few reads, not one each. On the other Unix systems there
// is no /proc: it runs `ps -A -o pid= -o ppid= -o pgid= -o rss=`, shared
// the same way, which macOS and the BSDs all provide. On Windows it sums the
// working set of every process of the job.
package process
