package jsrt

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
	"github.com/escouade-dev/escouade-plugin/protocol"
)

// How an instance ends when its bundle misbehaves, and what the journal
// then says (through ExitOf, as the transport maps it).
func TestInstanceEnds(t *testing.T) {
	const top = "file:///plugin/dist/plugin.mjs"
	cases := []struct {
		name   string
		src    string
		line   string // sent in a second turn when set
		code   int
		detail string // the crash's detail, prefix
		want   string // the sentence, prefix
		budget uint32 // ms; 20000 when zero (the endless cases have 300)
	}{
		{name: "endless loop", src: `for (;;) {}`, code: ExitTurnTooLong, want: "a turn ran past 2000 ms: Escouade stopped its instance", budget: 300},
		{name: "endless loop caught", src: `try { for (;;) {} } catch (e) { process.stdout.write('caught\n') } finally { process.stdout.write('finally\n') }`, code: ExitTurnTooLong, budget: 300},
		{name: "endless loop in a later turn", src: listenSrc + `process.stdin.on('data', () => { while (true) {} })`, line: `{}`, code: ExitTurnTooLong, budget: 300},
		{name: "endless loop in an async function", src: `(async () => { await null; for (;;) {} })().catch(() => {})`, code: ExitTurnTooLong, budget: 300},
		{name: "endless promise jobs", src: `const f = () => Promise.resolve().then(f); f()`, code: ExitTurnTooLong, budget: 300},
		{name: "catastrophic regex", src: `/^(a+)+$/.test('a'.repeat(40) + 'b')`, code: ExitTurnTooLong, budget: 300},
		{name: "deep recursion", src: `function f(n) { return f(n + 1) + 1 } f(0)`, code: ExitCrash,
			detail: "InternalError: stack overflow at f (" + top + ":1:", want: "its instance crashed: InternalError: stack overflow at f ("},
		{name: "memory bomb", src: `const a = []; for (;;) a.push('x'.repeat(1 << 20) + a.length)`, code: ExitOutOfMemory, want: "its instance ran out of its 64 MB of memory"},
		{name: "memory bomb of buffers", src: `const a = []; for (;;) a.push(new Uint8Array(1 << 20))`, code: ExitOutOfMemory},
		{name: "throw", src: "\nfunction boom() { throw new Error('boom') }\nboom()", code: ExitCrash,
			detail: "Error: boom at boom (" + top + ":2:", want: "its instance crashed: Error: boom at boom ("},
		{name: "throw in a line handler", src: listenSrc + `process.stdin.on('data', (l) => { throw new TypeError('bad line ' + l.trim()) })`, line: `{"x":1}`, code: ExitCrash,
			detail: `TypeError: bad line {"x":1} at <anonymous> (` + top},
		{name: "throw a string", src: `throw 'plain'`, code: ExitCrash, detail: "plain"},
		{name: "unhandled rejection", src: `Promise.reject(new TypeError('nope'))`, code: ExitCrash,
			detail: "unhandled rejection: TypeError: nope at <anonymous> (" + top + ":1:", want: "its instance crashed: unhandled rejection: TypeError: nope"},
		{name: "rejection in an async function", src: `async function f() { await null; throw new RangeError('late') } f()`, code: ExitCrash,
			detail: "unhandled rejection: RangeError: late at f (" + top},
		{name: "top-level await rejects", src: `await Promise.resolve(); throw new Error('top')`, code: ExitCrash, detail: "Error: top at <anonymous> (" + top},
		{name: "exit", src: `process.exit(0)`, code: 0, want: "crashed: exit code 0"},
	}
	// Each case runs from the sources, and from the bytecode the host's
	// cache would mount: the limits and the texts are the same.
	for _, c := range cases {
		for _, bytecode := range []bool{false, true} {
			t.Run(startName(bytecode)+"/"+c.name, func(t *testing.T) {
				in := launch(t, c.src, instanceOptions{bytecode: bytecode})
				if c.budget == 0 {
					c.budget = 20000
				}
				in.setBudget(c.budget)
				in.runTurn(nil)
				if c.line != "" && in.ended == nil {
					in.send(c.line)
				}
				if got := in.exitCode(); got != c.code {
					t.Fatalf("exit code %d (%v), want %d; stderr:\n%s", got, in.ended, c.code, in.stderr.String())
				}
				exit := ExitOf(uint32(c.code), in.stderrLines(), protocol.TurnLimit)
				if !strings.HasPrefix(exit.Detail, c.detail) {
					t.Errorf("detail %q, want it to start with %q", exit.Detail, c.detail)
				}
				if !strings.HasPrefix(host.CrashSentence(exit), c.want) {
					t.Errorf("sentence %q, want it to start with %q", host.CrashSentence(exit), c.want)
				}
				if strings.Contains(in.stdout.String(), "caught") {
					t.Errorf("the interrupt was caught: %q", in.stdout.String())
				}
			})
		}
	}
}

// Errors a bundle catches leave its instance usable.
func TestCaughtLimitsKeepTheInstance(t *testing.T) {
	in := launch(t, listenSrc+`
function f(n) { return f(n + 1) + 1 }
try { f(0) } catch (e) { process.stdout.write('recursion: ' + e.message + '\n') }
function bomb() { const a = []; for (;;) a.push('x'.repeat(1000) + a.length) }
try { bomb() } catch (e) { process.stdout.write('memory: ' + e.message + '\n') }
const p = Promise.reject(new Error('later'));
setImmediate(() => {});
queueMicrotask(() => p.catch(() => process.stdout.write('handled in time\n')));
`, instanceOptions{})
	in.setBudget(30000) // filling 64 MB takes a while on a loaded machine
	in.runTurn(nil)
	want := "recursion: stack overflow\nmemory: out of memory\nhandled in time\n"
	if got := in.stdout.String(); got != want || in.ended != nil {
		t.Fatalf("stdout %q, want %q; ended %v; stderr %s", got, want, in.ended, in.stderr.String())
	}
	if got := in.send(`{"still":"here"}`); got != "plugin got {\"still\":\"here\"}\n" {
		t.Errorf("after: %q", got)
	}
}

// Built-ins that never call the interrupt handler are stopped by the
// runtime's own checks when the host's deadline passes: one
// that would run for ages (an array-like of 2^53 elements) and one that
// takes seconds (a BigInt of a million bits turned to decimal).
func TestLongBuiltinStoppedByContext(t *testing.T) {
	for name, src := range map[string]string{
		"includes on 2^53 elements": `process.stdout.write('start\n'); Array.prototype.includes.call({ length: 2 ** 53 }, 1); process.stdout.write('never\n')`,
		"BigInt toString":           `const x = 3n ** 600000n; process.stdout.write('start\n'); x.toString(); process.stdout.write('never\n')`,
	} {
		t.Run(name, func(t *testing.T) {
			in := launch(t, src, instanceOptions{})
			in.setBudget(60000) // the engine's interrupt does not come into it
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			in.runTurn(ctx)
			if !engine.ContextEnded(in.ended) || !errors.Is(in.ended, context.DeadlineExceeded) {
				t.Fatalf("ended %v, want the end of its context", in.ended)
			}
			if strings.Contains(in.stdout.String(), "never") {
				t.Errorf("stdout %q", in.stdout.String())
			}
		})
	}
}
