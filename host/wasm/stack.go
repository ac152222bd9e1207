package wasm

import (
	"fmt"
)

// The native stack a module's calls run on is the runtime's, grown by
// doubling up to a ceiling of its own (400 MB) that it offers no setting
// for. The host bounds it itself: each function of the module is rewritten
// to take a weight, an upper bound of its native frame, from a budget kept
// in a global of the instance at its entry, to trap when the budget is
// spent, and to give the weight back on every way out
// (docs/RATIONALE.md#how-is-a-modules-native-stack-bounded).
const (
	// stackBudget is the bytes of weighted frames one instance's calls may
	// hold at once (docs/protocol.md#limits).
	stackBudget = 16 << 20
	// stackExport names the budget's global among the module's exports,
	// for the host to tell its trap from any other.
	stackExport = "escouade.stack-left"
	// frameFixed is a frame's own part: its return address, frame pointer
	// and size, and the registers it saves (at most 16 integer and 16
	// vector ones).
	frameFixed = 512
	// slotBytes is what one value kept in a frame takes; a vector value
	// counts twice.
	slotBytes = 8
)

// stackOverflow is the trap's text when the budget is spent: the
// runtime's own words for its stack's ceiling, so that both read alike
// in the journal.
const stackOverflow = "stack overflow"

// typeShape is what the rewrite needs of a function type: how many values
// it takes and gives back, its vector values, and its results' encoding.
type typeShape struct {
	params, results, vectors int
	resultBytes              []byte
}

// stackRewrite holds what the sections read so far say: the types, the
// type of each function, and the globals, whose count is the budget's
// index.
type stackRewrite struct {
	types     []typeShape
	funcTypes []uint32
	globals   uint64
	newTypes  [][]byte // types () -> results added for the body's block
}

// rawSection is a section of a module: its id and its bytes.
type rawSection struct {
	id   byte
	body []byte
}

// instrumentStack returns b with every function rewritten to take its
// weight from the budget, the budget's global added and exported. Bytes
// that are not a WebAssembly binary are returned as they are.
func instrumentStack(b []byte) ([]byte, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" || string(b[4:8]) != "\x01\x00\x00\x00" {
		return b, nil
	}
	sections, err := splitSections(b)
	if err != nil {
		return nil, err
	}
	s := &stackRewrite{}
	var out []rawSection
	var haveGlobals, haveExports bool
	typeAt := -1
	for _, sec := range sections {
		if !haveGlobals && placedAfter(sec.id, sectionGlobal) {
			out, haveGlobals = append(out, rawSection{sectionGlobal, s.globalsWithBudget(nil)}), true
		}
		if !haveExports && placedAfter(sec.id, sectionExport) {
			out, haveExports = append(out, rawSection{sectionExport, s.exportsWithBudget(nil)}), true
		}
		switch sec.id {
		case sectionType:
			typeAt = len(out)
		case sectionGlobal:
			haveGlobals = true
		case sectionExport:
			haveExports = true
		}
		if sec.body, err = s.rewriteSection(sec); err != nil {
			return nil, err
		}
		out = append(out, sec)
	}
	if !haveGlobals {
		out = append(out, rawSection{sectionGlobal, s.globalsWithBudget(nil)})
	}
	if !haveExports {
		out = append(out, rawSection{sectionExport, s.exportsWithBudget(nil)})
	}
	if typeAt >= 0 && len(s.newTypes) > 0 { // new types need functions, which need a type section
		out[typeAt].body = s.typesWithNew(out[typeAt].body)
	}
	return joinSections(b[:8], out, len(b)+len(b)/8), nil
}

// rewriteSection reads what the rewrite needs of a section and returns
// its body as rewritten: the globals and exports with the budget's, the
// code with each function's weight.
func (s *stackRewrite) rewriteSection(sec rawSection) ([]byte, error) {
	switch sec.id {
	case sectionType:
		return sec.body, s.readTypes(sec.body)
	case sectionImport:
		return sec.body, s.readImports(sec.body)
	case sectionFunction:
		return sec.body, s.readFunctions(sec.body)
	case sectionGlobal:
		err := s.countGlobals(sec.body)
		return s.globalsWithBudget(sec.body), err
	case sectionExport:
		return s.exportsWithBudget(sec.body), nil
	case sectionCode:
		return s.rewriteCode(sec.body)
	}
	return sec.body, nil
}

// splitSections reads a module's sections, after its header.
func splitSections(b []byte) ([]rawSection, error) {
	var sections []rawSection
	r := &reader{b: b, off: 8}
	for !r.done() {
		id := r.byte()
		sections = append(sections, rawSection{id, r.bytes(r.u32())})
	}
	if r.err != nil {
		return nil, stackRefusal("its sections cannot be read: %v", r.err)
	}
	return sections, nil
}

// joinSections writes a module of a header and sections.
func joinSections(header []byte, sections []rawSection, size int) []byte {
	b := append(make([]byte, 0, size), header...)
	for _, sec := range sections {
		b = append(appendULEB(append(b, sec.id), uint64(len(sec.body))), sec.body...)
	}
	return b
}

// sectionOrder is where each known section comes in a module (the tag
// section, 13, before the globals; the data count, 12, before the code).
var sectionOrder = map[byte]int{sectionType: 1, sectionImport: 2, sectionFunction: 3, sectionTable: 4, sectionMemory: 5, 13: 6,
	sectionGlobal: 7, sectionExport: 8, 8: 9, sectionElement: 10, 12: 11, sectionCode: 12, sectionData: 13}

// placedAfter says whether a section of id comes after the section want.
func placedAfter(id, want byte) bool {
	o, ok := sectionOrder[id]
	return ok && o > sectionOrder[want]
}

func stackRefusal(format string, args ...any) error {
	return &boundsError{text: ModuleFile + ": " + fmt.Sprintf(format, args...)}
}

// typesWithNew is the type section body with the types the rewrite
// added after the module's own.
func (s *stackRewrite) typesWithNew(body []byte) []byte {
	var count uint64
	var rest []byte
	if len(body) > 0 {
		r := &reader{b: body}
		count = r.u32()
		rest = body[r.off:]
	}
	out := append(appendULEB(nil, count+uint64(len(s.newTypes))), rest...)
	for _, t := range s.newTypes {
		out = append(out, t...)
	}
	return out
}

// valType reads a value type; vector says it is v128.
func (r *reader) valType() (vector bool) {
	switch c := r.byte(); {
	case c == 0x7b:
		return true
	case c == 0x63 || c == 0x64: // (ref null? heaptype)
		r.sleb(33)
	case c >= 0x69 && c <= 0x7f:
	default:
		r.fail(fmt.Errorf("value type %#x", c))
	}
	return false
}

func (s *stackRewrite) readTypes(body []byte) error {
	r := &reader{b: body}
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		if form := r.byte(); form != 0x60 {
			return stackRefusal("its type section holds a type of form %#x, which the host does not run", form)
		}
		var t typeShape
		for k := r.u32(); k > 0 && r.err == nil; k-- {
			t.params++
			if r.valType() {
				t.vectors++
			}
		}
		start := r.off
		for k := r.u32(); k > 0 && r.err == nil; k-- {
			t.results++
			if r.valType() {
				t.vectors++
			}
		}
		t.resultBytes = body[start:r.off]
		s.types = append(s.types, t)
	}
	return s.readError(r, "type")
}

func (s *stackRewrite) readError(r *reader, what string) error {
	if r.err != nil {
		return stackRefusal("its %s section cannot be read: %v", what, r.err)
	}
	return nil
}

func (s *stackRewrite) readImports(body []byte) error {
	r := &reader{b: body}
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		r.name()
		r.name()
		switch kind := r.byte(); kind {
		case importFunc:
			s.funcTypes = append(s.funcTypes, uint32(r.u32()))
		case importTable:
			r.valType()
			r.limits()
		case importMemory:
			r.limits()
		case 3:
			r.valType()
			r.byte()
			s.globals++
		case 4:
			r.byte()
			r.u32()
		default:
			r.fail(fmt.Errorf("import kind %#x", kind))
		}
	}
	return s.readError(r, "import")
}

func (s *stackRewrite) readFunctions(body []byte) error {
	r := &reader{b: body}
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		s.funcTypes = append(s.funcTypes, uint32(r.u32()))
	}
	return s.readError(r, "function")
}

func (s *stackRewrite) countGlobals(body []byte) error {
	r := &reader{b: body}
	s.globals += r.u32()
	return s.readError(r, "global")
}

// globalsWithBudget is the global section's body, body being the module's
// own (nil for none), with the budget after its globals: a mutable i32
// that starts full.
func (s *stackRewrite) globalsWithBudget(body []byte) []byte {
	b := append(oneMore(body), 0x7f, 1, opI32Const)
	b = appendSLEB(b, stackBudget)
	return append(b, opEnd)
}

// exportsWithBudget is the export section's body with the budget's export.
func (s *stackRewrite) exportsWithBudget(body []byte) []byte {
	b := append(appendULEB(oneMore(body), uint64(len(stackExport))), stackExport...)
	return appendULEB(append(b, 3), s.globals)
}

// oneMore is a vector section's body (nil for none) with its count one
// more, ready for the entry to append.
func oneMore(body []byte) []byte {
	var count uint64
	var rest []byte
	if body != nil {
		r := &reader{b: body}
		count = r.u32()
		rest = body[r.off:]
	}
	return append(appendULEB(nil, count+1), rest...)
}

// appendSLEB appends v as a signed LEB128.
func appendSLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// rewriteCode rewrites every body of the code section.
func (s *stackRewrite) rewriteCode(body []byte) ([]byte, error) {
	r := &reader{b: body}
	n := r.u32()
	if n > uint64(len(s.funcTypes)) {
		return nil, stackRefusal("its code section holds %d bodies for %d functions", n, len(s.funcTypes))
	}
	imported := uint64(len(s.funcTypes)) - n
	out := appendULEB(make([]byte, 0, len(body)+len(body)/4), n)
	for i := uint64(0); i < n && r.err == nil; i++ {
		fn := r.bytes(r.u32())
		if r.err != nil {
			break
		}
		f, err := s.rewriteFunction(imported+i, fn)
		if err != nil {
			return nil, err
		}
		out = append(appendULEB(out, uint64(len(f))), f...)
	}
	return out, s.readError(r, "code")
}

// A function's edits: code inserted into its body at an offset.
type stackEdit struct {
	at   int
	exit bool // the weight given back; else the budget restored
}

// frame is what the walk over a body finds: the values its native frame
// may hold, where its ways out are, and where an exception may land.
type frame struct {
	slots    uint64
	edits    []stackEdit
	handlers bool // it catches exceptions
	end      int  // the offset of its last end
}

// rewriteFunction rewrites one body: a local added for the budget as it
// stands inside the function; at entry the weight taken and checked; the
// body wrapped in a block whose end, like each return and tail call,
// gives the weight back; and, where it catches exceptions, the budget
// restored wherever one may land, since the frames a throw unwinds gave
// nothing back.
func (s *stackRewrite) rewriteFunction(index uint64, body []byte) ([]byte, error) {
	typeIndex := s.funcTypes[index]
	if uint64(typeIndex) >= uint64(len(s.types)) {
		return nil, stackRefusal("function %d has type %d, past its %d types", index, typeIndex, len(s.types))
	}
	t := s.types[typeIndex]
	d := readLocals(body)
	if d.err != nil {
		return nil, stackRefusal("function %d cannot be read: %v", index, d.err)
	}
	groups, code := d.groups, body[d.end:]
	local := uint64(t.params) + d.locals
	f, err := s.walk(index, code, local)
	if err != nil {
		return nil, err
	}
	f.slots += local + d.vectors + uint64(t.vectors)
	weight := int64(min(frameFixed+slotBytes*f.slots, stackBudget+1))
	g := s.globals

	out := make([]byte, 0, len(body)+32+len(f.edits)*8)
	out = appendULEB(out, groups+1)
	out = append(out, body[d.groupsAt:d.end]...)
	out = append(out, 1, 0x7f) // the budget inside this function
	out = takeWeight(out, local, g, weight)
	out = append(append(out, opBlock), s.blockType(t)...)
	at := 0
	for _, e := range f.edits {
		out = append(out, code[at:e.at]...)
		at = e.at
		if e.exit {
			out = giveBack(out, local, g, weight)
		} else if f.handlers {
			out = appendULEB(append(appendULEB(append(out, opLocalGet), local), 0x24), g)
		}
	}
	out = append(append(out, code[at:f.end]...), opEnd)
	return append(giveBack(out, local, g, weight), opEnd), nil
}

// declaredLocals is what a body's declaration of its locals says: how
// many groups, where the first starts and the code begins, how many
// locals, how many of them vectors.
type declaredLocals struct {
	groups, locals, vectors uint64
	groupsAt, end           int
	err                     error
}

func readLocals(body []byte) declaredLocals {
	r := &reader{b: body}
	d := declaredLocals{groups: r.u32()}
	d.groupsAt = r.off
	for g := d.groups; g > 0 && r.err == nil; g-- {
		n := r.u32()
		if r.valType() {
			d.vectors += n
		}
		d.locals += n
	}
	d.end, d.err = r.off, r.err
	return d
}

// takeWeight appends the code that takes a function's weight from the
// budget, keeps what is left in the function's local, and traps when it
// is below zero.
func takeWeight(out []byte, local, global uint64, weight int64) []byte {
	out = append(appendULEB(append(out, 0x23), global), opI32Const)
	out = append(appendSLEB(out, weight), 0x6b) // i32.sub
	out = appendULEB(append(out, 0x22), local)  // local.tee
	out = appendULEB(append(out, 0x24), global)
	out = appendULEB(append(out, opLocalGet), local)
	return append(out, opI32Const, 0, 0x48, opIf, blockEmpty, opUnreachable, opEnd) // i32.lt_s: spent
}

// giveBack appends the code that gives a function's weight back to the
// budget: what it was before the function's entry.
func giveBack(out []byte, local, global uint64, weight int64) []byte {
	out = appendULEB(append(out, opLocalGet), local)
	out = append(appendSLEB(append(out, opI32Const), weight), 0x6a) // i32.add
	return appendULEB(append(out, 0x24), global)
}

// blockType is the type of the block a body is wrapped in: no values,
// one, or a type () -> results added to the module.
func (s *stackRewrite) blockType(t typeShape) []byte {
	switch {
	case t.results == 0:
		return []byte{blockEmpty}
	case len(t.resultBytes) == 2:
		return t.resultBytes[1:]
	}
	want := append([]byte{0x60, 0}, t.resultBytes...)
	for k, have := range s.newTypes {
		if string(have) == string(want) {
			return appendSLEB(nil, int64(len(s.types)+k))
		}
	}
	s.newTypes = append(s.newTypes, want)
	return appendSLEB(nil, int64(len(s.types)+len(s.newTypes)-1))
}

// walk reads a body's instructions: each counts a value its frame may
// keep (a vector one two), a call or a typed block what its type takes
// and gives. It refuses a local or a global past the module's own, which
// would name the budget's.
func (s *stackRewrite) walk(index uint64, code []byte, locals uint64) (frame, error) {
	var f frame
	r := &reader{b: code}
	depth := 1
	for depth > 0 && !r.done() {
		at := r.off
		op := r.instruction()
		im := reader{b: code, off: at + 1}
		if makesValue(op) {
			f.slots++
		}
		switch op {
		case opPrefixSIMD:
			f.slots++
		case opLocalGet, opLocalGet + 1, opLocalGet + 2:
			if n := im.u32(); n >= locals {
				return f, stackRefusal("function %d uses local %d, past its %d locals", index, n, locals)
			}
		case opLocalGet + 3, opGlobalSet:
			if n := im.u32(); n >= s.globals {
				return f, stackRefusal("function %d uses global %d, past the module's %d globals", index, n, s.globals)
			}
		case opCall, opReturnCall:
			n := im.u32()
			if n >= uint64(len(s.funcTypes)) {
				return f, stackRefusal("function %d calls function %d, past the module's %d functions", index, n, len(s.funcTypes))
			}
			f.slots += s.typeSlots(uint64(s.funcTypes[n]))
		case opCallIndirect, opReturnCallIndirect:
			f.slots += s.typeSlots(im.u32())
		case opBlock, opLoop, opIf, opTry, opTryTable:
			depth++
			f.slots += s.blockSlots(&im)
			f.handlers = f.handlers || op == opTry || op == opTryTable
			if op == opLoop {
				f.edits = append(f.edits, stackEdit{at: r.off})
			}
		case opCatch, opCatchAll:
			f.edits = append(f.edits, stackEdit{at: r.off})
		case opEnd, opDelegate:
			if depth--; depth > 0 && op == opEnd {
				f.edits = append(f.edits, stackEdit{at: r.off})
			}
		}
		if op == opReturn || op == opReturnCall || op == opReturnCallIndirect {
			f.edits = append(f.edits, stackEdit{at: at, exit: true})
		}
		if depth == 0 {
			f.end = at
		}
	}
	switch {
	case r.err != nil:
		return f, stackRefusal("function %d cannot be read at byte %d of its code: %v", index, r.off, r.err)
	case depth > 0 || r.off != len(code):
		return f, stackRefusal("function %d does not end where its body does", index)
	}
	return f, nil
}

// makesValue says whether an instruction may make a value of its own in
// the compiled code, one the frame may have to keep: not a branch, a
// block's start or end (a block's values are counted by its type), a
// store, a drop, or a local.set or local.tee (its value is its operand's).
// A local.get counts: where branches meet it may make a value of its own;
// a catch counts for the exception it takes.
func makesValue(op byte) bool {
	switch {
	case op <= opReturn:
		return op == opCatch
	case op == opDrop || op == opGlobalSet || op == opLocalGet+1 || op == opLocalGet+2 || op >= 0x36 && op <= opStoreLast:
		return false
	case op == opDelegate || op == opCatchAll || op == opTryTable:
		return false
	}
	return true
}

// typeSlots is what a call of type n takes and gives; a type past the
// module's counts as none (the compiler refuses it).
func (s *stackRewrite) typeSlots(n uint64) uint64 {
	if n >= uint64(len(s.types)) {
		return 0
	}
	t := s.types[n]
	return uint64(t.params + t.results + t.vectors)
}

// blockSlots is what a block's type takes and gives beyond the one value
// its instruction counts.
func (s *stackRewrite) blockSlots(im *reader) uint64 {
	c := im.byte()
	if c == blockEmpty || c >= 0x63 && c <= 0x7f {
		return 1
	}
	im.off--
	return s.typeSlots(im.u32())
}
