// Package host runs Escouade's plugins: one supervisor per plugin that
// starts its program on activation, speaks protocol 1 to it, serves what it
// asks (secrets, settings, log, files, and for modules the module-only
// services), restarts it after a crash, watches its memory and stops it
// with the host.
//
//	h := host.New(host.Options{Keychain: keychain.NewMemory()})
//	defer h.Close(ctx)
//	p, err := h.Add(m, host.Config{})
//	out := p.Call(ctx, "test/do", map[string]any{"x": 1})
//
// The supervisor speaks lines, never the OS: programs are started by the
// transports of Options.Transports (package host/transport is the seam;
// package modules gives every run kind's), which the host owns and closes
// with it. The seam says what ended a program in words any transport can
// mean (it exited with a code, the host ended it, asked or forced, it
// broke a limit) and names each program with one ID. Services are made
// per instance of a program (ServiceMaker) and closed when the instance
// ends.
//
// # The life of a plugin
//
// A plugin's state is changed in one place, decide (lifecycle.go), with the
// plugin's lock held. States (State):
//
//	idle ──first call or activation fact──▶ starting
//	starting ──initialize answered, queue sent──▶ ready
//	starting ──no answer in 10 s, other version, launch failed──▶ stopped
//	ready ──stdout ends or program exits (crash)──▶ restarting
//	restarting ──initialize answered, attaches and queue sent──▶ ready
//	restarting ──the 4th crash within 5 minutes──▶ stopped
//	ready ──memory past the limit──▶ stopped
//	any ──Disable──▶ disabled ──Enable──▶ idle
//	any ──Restart (crash history forgotten)──▶ idle ──▶ starting
//	any ──Close──▶ stopped ("the host closed")
//
// Each instance of the program has a phase: launching, greeting (only
// initialize may be sent), serving, ending (its stdout ended by itself: a
// crash under way), stopping (the host asked it to end: no crash) and gone.
// Events of an instance that is no longer the plugin's current one change
// nothing.
//
// The ways a program stops, by what they mean:
//   - a crash: it ends by itself; calls under way end "crashed" and it is
//     restarted under the crash window (exitedLocked);
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
