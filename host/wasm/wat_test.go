package wasm

// A tiny WebAssembly encoder for the modules no compiler makes: a module
// that imports what Escouade does not provide, a reactor that traps, a
// loop and an exit written by hand. Enough of the binary format
// (https://webassembly.github.io/spec/core/binary/) for those, no more.

// Value and section codes of the binary format.
const (
	secType, secImport, secFunc, secMemory, secExport, secCode = 1, 2, 3, 5, 7, 10
	i32, funcType, kindFunc, kindMemory                        = 0x7f, 0x60, 0x00, 0x02
)

func uleb(n uint32) []byte {
	var b []byte
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func name(s string) []byte { return append(uleb(uint32(len(s))), s...) }

func vec(items ...[]byte) []byte {
	b := uleb(uint32(len(items)))
	for _, it := range items {
		b = append(b, it...)
	}
	return b
}

func section(id byte, payload []byte) []byte {
	return append(append([]byte{id}, uleb(uint32(len(payload)))...), payload...)
}

// wasmFunc is a function of a hand-made module.
type wasmFunc struct {
	params []byte // value types
	export string
	body   []byte // instructions, without the final end
}

// wasmImport is an imported function.
type wasmImport struct {
	module, name string
	params       []byte
}

// encode makes a module of the imports and funcs, each with a type of its
// own, and a memory of memPages pages when not zero, exported as
// "memory".
func encode(imports []wasmImport, funcs []wasmFunc, memPages uint32) []byte {
	return encodeMemory(imports, funcs, memPages, true)
}

// encodeMemory is encode with a memory exported or not.
func encodeMemory(imports []wasmImport, funcs []wasmFunc, memPages uint32, exported bool) []byte {
	var types, imps, decls, exports, codes [][]byte
	for i, im := range imports {
		types = append(types, append([]byte{funcType}, append(vec(bytesOf(im.params)...), 0)...))
		imps = append(imps, append(append(name(im.module), name(im.name)...), kindFunc, byte(i)))
	}
	for i, f := range funcs {
		idx := uint32(len(imports) + i)
		types = append(types, append([]byte{funcType}, append(vec(bytesOf(f.params)...), 0)...))
		decls = append(decls, uleb(idx))
		if f.export != "" {
			exports = append(exports, append(name(f.export), append([]byte{kindFunc}, uleb(idx)...)...))
		}
		body := append([]byte{0}, append(f.body, opEnd)...) // no locals
		codes = append(codes, append(uleb(uint32(len(body))), body...))
	}
	out := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	out = append(out, section(secType, vec(types...))...)
	if len(imps) > 0 {
		out = append(out, section(secImport, vec(imps...))...)
	}
	out = append(out, section(secFunc, vec(decls...))...)
	if memPages > 0 {
		out = append(out, section(secMemory, vec(append([]byte{0}, uleb(memPages)...)))...)
		if exported {
			exports = append(exports, append(name("memory"), kindMemory, 0))
		}
	}
	out = append(out, section(secExport, vec(exports...))...)
	return append(out, section(secCode, vec(codes...))...)
}

func bytesOf(b []byte) [][]byte {
	out := make([][]byte, len(b))
	for i, c := range b {
		out[i] = []byte{c}
	}
	return out
}

// Hand-made modules of the tests.
var (
	// importsEnvFoo is a command importing env.foo.
	importsEnvFoo = encode([]wasmImport{{module: "env", name: "foo"}}, []wasmFunc{{export: "_start", body: []byte{opCall, 0}}}, 1)
	// trapsInTurn is a reactor whose turn traps.
	trapsInTurn = encode(nil, []wasmFunc{{export: "escouade-turn", body: []byte{opUnreachable}}}, 1)
	// loopsInStart is a command that never stops, calling nothing.
	loopsInStart = encode(nil, []wasmFunc{{export: "_start", body: []byte{opLoop, blockEmpty, opBr, 0, opEnd}}}, 1)
	// loopsInTurn is a reactor whose turn never returns.
	loopsInTurn = encode(nil, []wasmFunc{{export: "escouade-turn", body: []byte{opLoop, blockEmpty, opBr, 0, opEnd}}}, 1)
	// loopsInInitialize is a reactor whose _initialize never returns.
	loopsInInitialize = encode(nil, []wasmFunc{{export: "_initialize", body: []byte{opLoop, blockEmpty, opBr, 0, opEnd}}, {export: "escouade-turn"}}, 1)
	// exitsWith7 is a command calling proc_exit(7).
	exitsWith7 = encode([]wasmImport{{module: "wasi_snapshot_preview1", name: "proc_exit", params: []byte{i32}}},
		[]wasmFunc{{export: "_start", body: []byte{opI32Const, 7, opCall, 0}}}, 1)
	// noEntry exports neither escouade-turn nor _start.
	noEntry = encode(nil, []wasmFunc{{export: "main"}}, 1)
	// hugeMemory starts with 128 MB of memory.
	hugeMemory = encode(nil, []wasmFunc{{export: "_start"}}, 2048)
	// hiddenHugeMemory starts with 128 MB of memory it does not export.
	hiddenHugeMemory = encodeMemory(nil, []wasmFunc{{export: "_start"}}, 2048, false)
	// badBudget exports escouade-budget without its i32.
	badBudget = encode(nil, []wasmFunc{{export: "escouade-turn"}, {export: "escouade-budget"}}, 1)
)

// Modules past the bounds of the pre-pass (bounds.go), each a few bytes.
var (
	// manyLocals is a command whose one function declares 50 million
	// i32 locals in five bytes.
	manyLocals = rawModule(
		section(secType, vec([]byte{funcType, 0, 0})),
		section(secFunc, vec(uleb(0))),
		section(secCode, vec(sized(append(vec(append(uleb(50_000_000), i32)), opEnd)))))
	// deepBlocks is a command whose function nests 5000 blocks.
	deepBlocks = rawModule(
		section(secType, vec([]byte{funcType, 0, 0})),
		section(secFunc, vec(uleb(0))),
		section(secCode, vec(sized(nested(5000)))))
	// hugeTable is a command whose table starts with 2^21 entries.
	hugeTable = rawModule(
		section(secType, vec([]byte{funcType, 0, 0})),
		section(secFunc, vec(uleb(0))),
		section(secTable, vec(append([]byte{refFunc, 0}, uleb(1<<21)...))),
		section(secCode, vec(sized([]byte{0, opEnd}))))
	// manyElements is a module whose element segment says it holds 2^21
	// entries (and holds none: the count alone is refused).
	manyElements = rawModule(
		section(secType, vec([]byte{funcType, 0, 0})),
		section(secFunc, vec(uleb(0))),
		section(secTable, vec([]byte{refFunc, 0, 1})),
		section(secElement, append(uleb(1), append([]byte{0, opI32Const, 0, opEnd}, uleb(1<<21)...)...)))
	// tableGrows is a command that grows its table (declared with no
	// maximum) by 2^27 entries and exits with the grow's result plus 2:
	// 1 when the grow failed.
	tableGrows = rawModule(
		section(secType, vec([]byte{funcType, 0, 0}, []byte{funcType, 1, i32, 0})),
		section(secImport, vec(append(append(name("wasi_snapshot_preview1"), name("proc_exit")...), kindFunc, 1))),
		section(secFunc, vec(uleb(0))),
		section(secTable, vec([]byte{refFunc, 0, 1})),
		section(secExport, vec(append(name("_start"), kindFunc, 1))),
		section(secCode, vec(sized([]byte{0,
			opRefNull, refFunc, opI32Const, 0x80, 0x80, 0x80, 0xc0, 0x00, opPrefixMisc, 15, 0, // table.grow 0 by 2^27
			opI32Const, 2, 0x6a, opCall, 0, opEnd}))))
)

const (
	secTable, secElement = 4, 9
	refFunc              = 0x70
)

// rawModule is the header and the sections given.
func rawModule(sections ...[]byte) []byte {
	out := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	for _, s := range sections {
		out = append(out, s...)
	}
	return out
}

// sized is a function body with its size before it.
func sized(body []byte) []byte { return append(uleb(uint32(len(body))), body...) }

// nested is a function body, without locals, of n blocks one in the
// other.
func nested(n int) []byte {
	body := []byte{0}
	for range n {
		body = append(body, opBlock, blockEmpty)
	}
	for range n + 1 {
		body = append(body, opEnd)
	}
	return body
}

// writesForever is a command that writes, in a loop that never ends, n
// bytes from address 16 of its memory to stdout: text, then zeros. It never
// reads stdin, so its first turn never ends by itself.
func writesForever(text string, n uint32) []byte {
	le := func(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }
	data := append(append(append(le(16), le(n)...), make([]byte, 8)...), text...) // an iovec at 0
	four := []byte{i32, i32, i32, i32}
	return rawModule(
		section(secType, vec([]byte{funcType, 0, 0}, append(append([]byte{funcType}, vec(bytesOf(four)...)...), 1, i32))),
		section(secImport, vec(append(append(name("wasi_snapshot_preview1"), name("fd_write")...), kindFunc, 1))),
		section(secFunc, vec(uleb(0))),
		section(secMemory, vec([]byte{0, 4})),
		section(secExport, vec(append(name("_start"), kindFunc, 1), append(name("memory"), kindMemory, 0))),
		section(secCode, vec(sized([]byte{0,
			opLoop, blockEmpty,
			opI32Const, 1, opI32Const, 0, opI32Const, 1, opI32Const, 8, opCall, 0, opDrop, // fd_write(1, iovec at 0, 1, &written at 8)
			opBr, 0,
			opEnd, opEnd}))),
		section(secData, vec(append([]byte{0, opI32Const, 0, opEnd}, append(uleb(uint32(len(data))), data...)...))))
}

const secData = 11
