package wasm

import (
	"fmt"
)

// Bounds of what a module may make the host spend to compile and to
// instantiate it (docs/protocol.md#limits): a pre-pass over its sections checks
// them before wazero sees the bytes. Each is far above what real modules
// use (a Go-kit module, the JS engine, Rust and C modules: see
// docs/RATIONALE.md) and far below what would cost the host seconds or
// hundreds of MB; wazero's own bounds (2^27 of most things) are not.
const (
	// maxLocalsPerFunction bounds the locals one function declares: they
	// are run-length encoded, so 5 bytes can declare 50 million, which
	// wazero's compiler then allocates one by one.
	maxLocalsPerFunction = 50_000
	// maxLocals bounds the locals of all functions together.
	maxLocals = 5_000_000
	// maxFunctions bounds the functions, imported and defined.
	maxFunctions = 1_000_000
	// maxFunctionSize bounds the bytes of one function's body.
	maxFunctionSize = 8 << 20
	// maxCodeSize bounds the code section.
	maxCodeSize = 64 << 20
	// maxNesting bounds how deep blocks, loops and ifs nest in one
	// function: wazero's compiler takes time in the square of it.
	maxNesting = 4096
	// maxNestingSquares bounds the sum, over all functions, of the square
	// of each one's deepest nesting: what that quadratic time adds up to
	// (eight functions nested maxNesting deep).
	maxNestingSquares = 8 * maxNesting * maxNesting
	// maxTypes bounds the function types.
	maxTypes = 1_000_000
	// maxTableEntries bounds the entries of all tables together, at their
	// maximum: each costs the host 8 bytes, and table.grow allocates them
	// at once, beside the linear memory's limit.
	maxTableEntries = 1 << 20
	// maxTables bounds the tables.
	maxTables = 100
	// maxGlobals bounds the globals.
	maxGlobals = 100_000
	// maxElements bounds the entries of all element segments together.
	maxElements = 1 << 20
	// maxDataSegments bounds the data segments.
	maxDataSegments = 100_000
	// maxImports and maxExports bound those lists.
	maxImports, maxExports = 100_000, 1_000_000
)

// Section ids of the binary format.
const (
	sectionType, sectionImport, sectionFunction, sectionTable, sectionMemory = 1, 2, 3, 4, 5
	sectionGlobal, sectionExport, sectionElement, sectionCode, sectionData   = 6, 7, 9, 10, 11
)

// Import kinds of the binary format.
const (
	importFunc, importTable, importMemory = 0, 1, 2
)

// boundsError is a module past one of the bounds, or one the pre-pass
// cannot read; its text names the file, what is past the bound, and the
// bound.
type boundsError struct{ text string }

func (e *boundsError) Error() string { return e.text }

// bounded measures the module in b against the bounds above and the
// memory limit, and returns the first one it passes; or else the module
// to compile: b, its tables' maxima lowered if need be (boundTables).
// Bytes that are not a WebAssembly binary are returned as they are, for
// the compiler to refuse.
func bounded(b []byte, memoryLimit uint64) ([]byte, error) {
	return boundedAgain(b, memoryLimit, false, false)
}

// boundedAgain is bounded for a module whose function bodies may be known
// to be within their bounds already (bodiesChecked: the same bytes passed
// this pre-pass at this memory limit on an earlier start, checked.go).
// The walk over every instruction of every body is most of the pre-pass
// (over 100 ms of a Go module's start); the sections around it, and the
// tables' bounds written into the bytes, are done again every time.
//
// tablesLimited says the runtime itself bounds each table to
// maxTableEntries: a module whose one table is its own (none imported) is
// then held to the same bound with its bytes as they are, and is not
// copied to write a maximum into them (a Go module declares none).
func boundedAgain(b []byte, memoryLimit uint64, bodiesChecked, tablesLimited bool) ([]byte, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" || string(b[4:8]) != "\x01\x00\x00\x00" {
		return b, nil
	}
	p, err := measureAgain(b, memoryLimit, bodiesChecked)
	if err != nil {
		return nil, err
	}
	if tablesLimited && p.tables == 1 && len(p.defined) == 1 {
		return b, nil
	}
	return p.boundTables(b), nil
}

// measure runs the pre-pass over a WebAssembly binary and returns what it
// found, up to the first bound passed.
func measure(b []byte, memoryLimit uint64) (*prepass, error) {
	return measureAgain(b, memoryLimit, false)
}

func measureAgain(b []byte, memoryLimit uint64, bodiesChecked bool) (*prepass, error) {
	p := &prepass{memoryLimit: memoryLimit, bodiesChecked: bodiesChecked}
	r := &reader{b: b, off: 8}
	for !r.done() {
		start := r.off
		id := r.byte()
		size := r.u32()
		body := r.bytes(size)
		if r.err != nil {
			return p, p.refuse("its sections cannot be read: %v", r.err)
		}
		if id == sectionTable {
			p.tableAt = [2]int{start, r.off}
		}
		if err := p.section(id, body); err != nil {
			return p, err
		}
	}
	return p, nil
}

// prepass holds what the sections read so far add up to.
type prepass struct {
	memoryLimit   uint64
	bodiesChecked bool   // the code section passed before: not walked again
	functions     uint64 // imported, then defined: the function index space
	imported      uint64 // imported functions: the first defined one's index
	tables        uint64
	tableEntries  uint64      // the initial sizes of all tables
	defined       []tableDecl // the tables of the table section
	tableAt       [2]int      // where the table section starts (its id) and ends in the binary
	elements      uint64
	locals        uint64

	// The largest of each per-function measure, for the tests that keep
	// real modules well within the bounds.
	mostLocals, biggestFunction, deepestNesting uint64
	nestingSquares                              uint64
	codeSize                                    int
}

func (p *prepass) refuse(format string, args ...any) error {
	return &boundsError{text: ModuleFile + ": " + fmt.Sprintf(format, args...)}
}

// count checks a section's count against its bound.
func (p *prepass) count(n, limit uint64, what string) error {
	if n > limit {
		return p.refuse("it declares %d %s; the limit is %d", n, what, limit)
	}
	return nil
}

func (p *prepass) section(id byte, body []byte) error {
	r := &reader{b: body}
	var err error
	switch id {
	case sectionType:
		err = p.count(r.u32(), maxTypes, "function types")
	case sectionImport:
		err = p.imports(r)
	case sectionFunction:
		n := r.u32()
		p.functions += n
		err = p.count(p.functions, maxFunctions, "functions")
	case sectionTable:
		err = p.tableSection(r)
	case sectionMemory:
		err = p.memorySection(r)
	case sectionGlobal:
		err = p.count(r.u32(), maxGlobals, "globals")
	case sectionExport:
		err = p.count(r.u32(), maxExports, "exports")
	case sectionElement:
		err = p.elementSection(r)
	case sectionCode:
		if p.bodiesChecked {
			return nil
		}
		err = p.codeSection(r, len(body))
	case sectionData:
		err = p.count(r.u32(), maxDataSegments, "data segments")
	}
	if err != nil {
		return err
	}
	if r.err != nil {
		return p.refuse("its section %d cannot be read at byte %d: %v", id, r.off, r.err)
	}
	return nil
}

func (p *prepass) imports(r *reader) error {
	n := r.u32()
	if err := p.count(n, maxImports, "imports"); err != nil {
		return err
	}
	for ; n > 0 && r.err == nil; n-- {
		r.name()
		r.name()
		switch kind := r.byte(); kind {
		case importFunc:
			r.u32()
			p.functions++
			p.imported++
		case importTable:
			r.byte()
			min, _, _ := r.limits()
			if err := p.table(min, "imported table"); err != nil {
				return err
			}
		case importMemory:
			if err := p.memory(r); err != nil {
				return err
			}
		case 3: // a global: its type and mutability
			r.byte()
			r.byte()
		case 4: // a tag: attribute and type
			r.byte()
			r.u32()
		default:
			r.fail(fmt.Errorf("import kind %#x", kind))
		}
	}
	return p.count(p.functions, maxFunctions, "functions")
}

func (p *prepass) tableSection(r *reader) error {
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		d := tableDecl{refType: r.byte()}
		d.flags = r.b[min(r.off, len(r.b)-1)]
		d.min, d.max, d.hasMax = r.limits()
		if err := p.table(d.min, "table"); err != nil {
			return err
		}
		p.defined = append(p.defined, d)
	}
	return nil
}

// tableDecl is a table the module defines: its type and limits.
type tableDecl struct {
	refType, flags byte
	min, max       uint64
	hasMax         bool
}

// table counts a table and its initial entries, which the host allocates
// at instantiation.
func (p *prepass) table(min uint64, what string) error {
	index := p.tables
	p.tables++
	if err := p.count(p.tables, maxTables, "tables"); err != nil {
		return err
	}
	if p.tableEntries += min; min > maxTableEntries || p.tableEntries > maxTableEntries {
		return p.refuse("%s %d starts with %d entries, past the limit of %d entries in all tables", what, index, min, maxTableEntries)
	}
	return nil
}

// boundTables returns b with the maximum of each table the module defines
// lowered so that all of them together hold at most maxTableEntries: the
// room left above their initial sizes is shared out equally. A table
// without a maximum (Go declares none) gets its share, and table.grow past
// it returns -1, the failure the format allows any grow. b is not changed;
// when every table is within its share, b itself is returned.
func (p *prepass) boundTables(b []byte) []byte {
	if len(p.defined) == 0 {
		return b
	}
	room := (maxTableEntries - p.tableEntries) / uint64(len(p.defined))
	payload := appendULEB(nil, uint64(len(p.defined)))
	lowered := false
	for _, d := range p.defined {
		bound := d.min + room
		if d.hasMax && d.max <= bound {
			bound = d.max
		} else {
			lowered = true
		}
		payload = append(payload, d.refType, d.flags|1)
		payload = appendULEB(appendULEB(payload, d.min), bound)
	}
	if !lowered {
		return b
	}
	// The head is small (the table section comes early); the append of the
	// rest allocates the whole once, and only copies into it, where a
	// buffer made to size first is zeroed and then copied over.
	out := append([]byte(nil), b[:p.tableAt[0]]...)
	out = append(appendULEB(append(out, sectionTable), uint64(len(payload))), payload...)
	return append(out, b[p.tableAt[1]:]...)
}

// appendULEB appends v as an unsigned LEB128.
func appendULEB(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func (p *prepass) memorySection(r *reader) error {
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		if err := p.memory(r); err != nil {
			return err
		}
	}
	return nil
}

// memory checks that a memory starts within the memory limit (its growth
// is refused as it happens: memory.go).
func (p *prepass) memory(r *reader) error {
	min, _, _ := r.limits()
	if r.err == nil && min > p.memoryLimit>>16 {
		return fmt.Errorf("its module needs %d MB of memory at start, past its limit of %d MB", min>>4, p.memoryLimit>>20)
	}
	return nil
}

// elementSection counts the entries of all element segments.
func (p *prepass) elementSection(r *reader) error {
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		flags := r.u32()
		if flags > 7 {
			r.fail(fmt.Errorf("element segment flags %d", flags))
			return nil
		}
		if flags&3 == 2 { // an explicit table index
			r.u32()
		}
		if flags&1 == 0 { // active: an offset
			r.constExpr()
		}
		if flags&3 != 0 { // an element kind or a reference type
			r.byte()
		}
		count := r.u32()
		if p.elements += count; p.elements > maxElements {
			return p.refuse("its element segments hold at least %d entries; the limit is %d", p.elements, maxElements)
		}
		for ; count > 0 && r.err == nil; count-- {
			if flags&4 != 0 {
				r.constExpr()
			} else {
				r.u32()
			}
		}
	}
	return nil
}

// codeSection checks each function's locals, size and nesting.
func (p *prepass) codeSection(r *reader, size int) error {
	p.codeSize = size
	if size > maxCodeSize {
		return p.refuse("its code section holds %d bytes; the limit is %d", size, maxCodeSize)
	}
	n := r.u32()
	for i := uint64(0); i < n && r.err == nil; i++ {
		index := p.imported + i
		bodySize := r.u32()
		if bodySize > maxFunctionSize {
			return p.refuse("function %d is %d bytes long; the limit is %d", index, bodySize, maxFunctionSize)
		}
		p.biggestFunction = max(p.biggestFunction, bodySize)
		body := &reader{b: r.bytes(bodySize)}
		if r.err != nil {
			return nil
		}
		if err := p.function(index, body); err != nil {
			return err
		}
		if body.err != nil {
			return p.refuse("function %d cannot be read at byte %d of its body: %v", index, body.off, body.err)
		}
	}
	return nil
}

// function checks one body: its locals, then how deep its blocks nest.
func (p *prepass) function(index uint64, r *reader) error {
	var locals uint64 // at most 2^32 a group, fewer groups than bytes: no overflow
	for groups := r.u32(); groups > 0 && r.err == nil; groups-- {
		locals += r.u32()
		r.byte()
	}
	p.mostLocals = max(p.mostLocals, locals)
	if locals > maxLocalsPerFunction {
		return p.refuse("function %d declares %d locals; the limit is %d", index, locals, maxLocalsPerFunction)
	}
	if p.locals += locals; p.locals > maxLocals {
		return p.refuse("its functions declare %d locals in all; the limit is %d", p.locals, maxLocals)
	}
	depth, deepest := 1, 1 // the function's own block
	for depth > 0 && !r.done() {
		switch r.instruction() {
		case opBlock, opLoop, opIf, opTry, opTryTable:
			depth++
			deepest = max(deepest, depth)
			p.deepestNesting = max(p.deepestNesting, uint64(depth))
			if depth > maxNesting {
				return p.refuse("function %d nests blocks %d deep; the limit is %d", index, depth, maxNesting)
			}
		case opEnd, opDelegate:
			depth--
		}
	}
	if p.nestingSquares += uint64(deepest * deepest); p.nestingSquares > maxNestingSquares {
		return p.refuse("its functions nest blocks too deep in all: the squares of their depths add up to %d; the limit is %d", p.nestingSquares, maxNestingSquares)
	}
	return nil
}
