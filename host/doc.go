// Package host runs Escouade's plugins: one supervisor per plugin that
// starts its program on activation, speaks protocol 1 to it, serves what it
// asks (secrets, settings, log, files, and for modules the module-only
// services), restarts it after a crash, watches its memory and stops it
// with the host. Example makes a host, adds an installed plugin and calls
// it.
//
// What a person consented to is what runs, by default: every start of a
// plugin is checked against the home's record of what was installed and
// consented to (registry.Admit; Config.Admit nil), and what is granted is
// what was recorded (Config.Granted nil grants nothing). A plugin added
// from a folder nobody installed is not started unless the app says, by
// name, that it runs a folder the person named themselves
// (Config{Admit: registry.AnyFolder}). docs/embedding.md shows an app
// doing all of it.
//
// The supervisor speaks lines, never the OS: programs are started by the
// transports of Options.Transports (package transport is the seam;
// package modules gives every run kind's), which the host owns and closes
// with it. The seam says what ended a program, with no wording (it exited
// with a code, the host ended it, asked or forced, it broke a limit):
// the words the journal and the app read are the host's (crash.go). It
// names each program with one ID, and what only some programs have the
// host reads through an optional interface (status.go). Services are made
// per instance of a program (ServiceMaker) and closed when the instance
// ends.
//
// # The life of a plugin
//
// A plugin's state is changed in one place, decide (lifecycle.go), with
// the plugin's lock held, by the table machine: every event goes through
// it, an instance's, a user change, a first call and the host's close.
// States (State), and the table's rows:
//
//	idle ──first call (or activation fact), start──▶ starting
//	any ──queue flushed after initialize──▶ ready
//	ready ──stdout ends, or its wire ended under a call──▶ restarting
//	starting, ready, restarting ──crash, within 3 in 5 minutes──▶ restarting (new instance)
//	starting, ready, restarting ──the 4th crash within 5 minutes──▶ stopped
//	any ──launch failed, or stop for good (no initialize answer in 10 s,
//	      another version, memory past the limit)──▶ stopped
//	any ──Disable──▶ disabled ──Enable──▶ idle
//	any but disabled ──Restart, permissions or update──▶ idle ──start──▶ starting
//	stopped ──Update (the user said yes to a new version)──▶ idle
//	any but disabled ──Close──▶ stopped ("the host closed")
//
// A halt (Disable, Restart, a change, Close) also asks the program to
// stop; a stop ends the queue with the default answer. Any other pair of
// a state and an event changes nothing (machine_test.go walks them all).
// A halted plugin meets the "any" rows of an instance (flushed, launch
// failed, stop for good) only through an instance that was launching or
// already dying as it was halted; they are kept as the host has always
// behaved.
//
// Each instance of the program has a phase: launching, greeting (only
// initialize may be sent), serving, ending (its stdout ended by itself: a
// crash under way), stopping (the host asked it to end: no crash) and gone.
// Events of an instance that is no longer the plugin's current one change
// nothing.
//
// The ways a program stops, by what they mean:
//   - a crash: it ends by itself; calls under way end "crashed" and it is
//     restarted under the crash window (exitedLocked, then the machine);
//   - a stop for good: the handshake is refused or memory runs out; no
//     restart until Restart (stopForGood);
//   - a user change (disable, permissions, update, restart): shutdown is
//     asked, then the program is stopped; the next start gets the manifest
//     and permissions of now (halt);
//   - the host closes: shutdown to every plugin at once, ShutdownWait for
//     all of them together, then every program stopped (Close).
//
// While a program starts, what the app sends waits in a queue of
// QueueSize; a full queue drops its oldest message. What agents attached
// is sent again, in first-attach order, to every new program before the
// queue.
package host
