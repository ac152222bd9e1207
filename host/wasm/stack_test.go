package wasm

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
	"github.com/escouade-dev/escouade-plugin/transport"
)

const (
	opI32Eqz, opI32LtU, opI32Add, opI32Sub, opLocalTee = 0x45, 0x49, 0x6a, 0x6b, 0x22
	i64                                                = 0x7e
)

// commandOf is a command module of the given types (each already encoded),
// functions (a type index each; function 0 is _start) and bodies (each with
// its locals), with a memory of one page.
func commandOf(types [][]byte, funcTypes []byte, bodies ...[]byte) []byte {
	var decls, codes [][]byte
	for i, body := range bodies {
		decls = append(decls, []byte{funcTypes[i]})
		codes = append(codes, sized(body))
	}
	return rawModule(
		section(secType, vec(types...)),
		section(secFunc, vec(decls...)),
		section(secMemory, vec([]byte{0, 1})),
		section(secExport, vec(append(name("_start"), kindFunc, 0), append(name("memory"), kindMemory, 0))),
		section(secCode, vec(codes...)))
}

var (
	typeVoid  = []byte{funcType, 0, 0}
	typeI32   = []byte{funcType, 1, i32, 0}
	typeToI64 = []byte{funcType, 1, i64, 1, i64}
)

// recursesForever is a command whose _start calls a function that calls
// itself without end: narrow frames, the runtime's own ceiling reached
// after some millions of calls without the budget.
var recursesForever = commandOf([][]byte{typeVoid, typeToI64}, []byte{0, 1},
	[]byte{0, opI64Const, 0, opCall, 1, opDrop, opEnd},
	[]byte{0, opLocalGet, 0, opI64Const, 1, 0x7c, opCall, 1, opEnd})

// A module recursing without end is ended by its stack's budget at once,
// with the runtime's own sentence, not by its turn limit.
func TestStackBudgetEndsRecursion(t *testing.T) {
	tr := newTransport(t, Options{TurnLimit: time.Minute})
	prog := launch(t, tr, specOf(pluginDir(t, recursesForever, nil)))
	got := ended(t, prog)
	want := transport.Exit{Kind: transport.Trapped, Detail: "stack overflow"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("exit (-want +got):\n%s", diff)
	}
	if s := host.CrashSentence(got); s != "its instance crashed: stack overflow" {
		t.Errorf("sentence %q", s)
	}
}

// givesBack is a command whose _start, 20,000 times, calls three
// functions that each recurse 8 deep and leave by a different way: a
// return, the body's end, a branch to the function's label. Half a
// million calls: had any way out kept its weight, the budget would be
// spent in some tens of thousands.
var givesBack = commandOf([][]byte{typeVoid, typeI32}, []byte{0, 1, 1, 1},
	[]byte{1, 1, i32,
		opLoop, blockEmpty,
		opI32Const, 8, opCall, 1, opI32Const, 8, opCall, 2, opI32Const, 8, opCall, 3,
		opLocalGet, 0, opI32Const, 1, opI32Add, opLocalTee, 0,
		opI32Const, 0xa0, 0x9c, 0x01, opI32LtU, opBrIf, 0, // 20,000
		opEnd, opEnd},
	[]byte{0, opLocalGet, 0, opI32Eqz, opIf, blockEmpty, opReturn, opEnd,
		opLocalGet, 0, opI32Const, 1, opI32Sub, opCall, 1, opEnd},
	[]byte{0, opLocalGet, 0, opIf, blockEmpty, opLocalGet, 0, opI32Const, 1, opI32Sub, opCall, 2, opEnd, opEnd},
	[]byte{0, opLocalGet, 0, opI32Eqz, opBrIf, 0,
		opLocalGet, 0, opI32Const, 1, opI32Sub, opCall, 3, opEnd})

// Every way out of a function gives its weight back: a module that calls
// far more than its budget holds, never deep, ends by itself.
func TestStackBudgetGivenBack(t *testing.T) {
	tr := newTransport(t, Options{TurnLimit: time.Minute})
	prog := launch(t, tr, specOf(pluginDir(t, givesBack, nil)))
	if got := ended(t, prog); got.Kind != transport.Exited || got.Code != 0 {
		t.Errorf("exit %+v (%s), want a clean exit", got, host.CrashSentence(got))
	}
}

// A module naming the budget's local or global (one past its own, which
// validation would have refused before the rewrite) is refused: it could
// otherwise refill its budget.
func TestStackRewriteRefusesTheBudgetsIndices(t *testing.T) {
	for name, body := range map[string][]byte{
		"local.set":  {0, opI32Const, 0, 0x21, 0, opEnd},
		"local.tee":  {1, 1, i32, opI32Const, 0, opLocalTee, 1, opDrop, opEnd},
		"global.set": {0, opI32Const, 0, opGlobalSet, 0, opEnd},
		"global.get": {0, 0x23, 0, opDrop, opEnd},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := instrumentStack(commandOf([][]byte{typeVoid}, []byte{0}, body))
			var refusal *boundsError
			if !errors.As(err, &refusal) {
				t.Fatalf("instrumentStack: %v, want a refusal", err)
			}
			t.Log(err)
		})
	}
}

// compiles says whether the runtime compiles b.
func compiles(t testing.TB, b []byte) error {
	ctx := context.Background()
	r := engine.NewRuntime(ctx, engine.NewRuntimeConfig(true))
	defer r.Close(ctx)
	cm, err := r.CompileModule(ctx, b)
	if err == nil {
		_ = cm.Close(ctx)
	}
	return err
}

// The rewrite of a module the runtime compiles is one it compiles too,
// and the budget is exported; what the pre-pass refuses is never passed
// on; no bytes make it panic.
func FuzzInstrumentStack(f *testing.F) {
	f.Add(recursesForever)
	f.Add(givesBack)
	f.Add(callTree(3))
	f.Add(yieldsForever)
	f.Add(writesForever("hi", 2))
	f.Fuzz(func(t *testing.T, b []byte) {
		b, err := bounded(b, 64<<20)
		if err != nil {
			return
		}
		out, err := instrumentStack(b)
		if err != nil {
			return
		}
		if compiles(t, b) != nil {
			return
		}
		if err := compiles(t, out); err != nil {
			t.Fatalf("the rewrite does not compile: %v", err)
		}
	})
}

// throwsDeep is a command whose _start, 20,000 times, calls a function
// that recurses 8 deep and throws, and catches the exception in a
// try_table: the frames the throw unwinds give nothing back, so the
// budget is restored where the exception lands.
var throwsDeep = rawModule(
	section(secType, vec(typeVoid, typeI32)),
	section(secFunc, vec([]byte{0}, []byte{1})),
	section(secMemory, vec([]byte{0, 1})),
	section(secTag, vec([]byte{0, 0})),
	section(secExport, vec(append(name("_start"), kindFunc, 0), append(name("memory"), kindMemory, 0))),
	section(secCode, vec(
		sized([]byte{1, 1, i32,
			opLoop, blockEmpty,
			opBlock, blockEmpty,
			opTryTable, blockEmpty, 1, 2, 0, // catch_all to the block
			opI32Const, 8, opCall, 1,
			opEnd, opEnd,
			opLocalGet, 0, opI32Const, 1, opI32Add, opLocalTee, 0,
			opI32Const, 0xa0, 0x9c, 0x01, opI32LtU, opBrIf, 0,
			opEnd, opEnd}),
		sized([]byte{0, opLocalGet, 0, opI32Eqz, opIf, blockEmpty, opThrow, 0, opEnd,
			opLocalGet, 0, opI32Const, 1, opI32Sub, opCall, 1, opEnd}))))

const secTag = 13

// tailCalls is a command whose _start, 20,000 times, calls a function
// that recurses 8 deep by tail calls.
var tailCalls = commandOf([][]byte{typeVoid, typeI32}, []byte{0, 1},
	[]byte{1, 1, i32,
		opLoop, blockEmpty,
		opI32Const, 8, opCall, 1,
		opLocalGet, 0, opI32Const, 1, opI32Add, opLocalTee, 0,
		opI32Const, 0xa0, 0x9c, 0x01, opI32LtU, opBrIf, 0,
		opEnd, opEnd},
	[]byte{0, opLocalGet, 0, opI32Eqz, opBrIf, 0,
		opLocalGet, 0, opI32Const, 1, opI32Sub, opReturnCall, 1, opEnd})

// A caught exception does not spend the budget of the frames it unwound,
// and a tail call gives the caller's weight back. The host's runtimes run
// neither, so these run on one with every feature on.
func TestStackBudgetWithExceptionsAndTailCalls(t *testing.T) {
	for name, module := range map[string][]byte{"exception": throwsDeep, "tail call": tailCalls} {
		t.Run(name, func(t *testing.T) {
			b, err := instrumentStack(module)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			r := engine.NewRuntime(ctx, engine.WithEveryFeature(engine.NewRuntimeConfig(true)))
			defer r.Close(ctx)
			mod, err := r.Instantiate(ctx, b) // runs _start
			if err != nil {
				t.Fatalf("_start: %v", err)
			}
			if left := int32(mod.ExportedGlobal(stackExport).Get()); left != stackBudget {
				t.Errorf("the budget left is %d, want all of it, %d", left, stackBudget)
			}
		})
	}
}
