package wasm

import (
	"errors"
	"fmt"
)

// A reader of the WebAssembly binary format
// (https://webassembly.github.io/spec/core/binary/), only as far as the
// pre-pass of bounds.go needs: sections, counts, limits, locals, constant
// expressions and the immediates of instructions, to measure what a module
// would cost the host before wazero compiles it.

// errTruncated is what a reader past its end says.
var errTruncated = errors.New("unexpected end")

// reader reads a byte slice front to back; the first error sticks and
// every later read returns zero.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.off = len(r.b)
}

func (r *reader) done() bool { return r.err != nil || r.off >= len(r.b) }

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) {
		r.fail(errTruncated)
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

// bytes returns the next n bytes.
func (r *reader) bytes(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.off) {
		r.fail(errTruncated)
		return nil
	}
	s := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return s
}

// uleb reads an unsigned LEB128 of at most bits bits.
func (r *reader) uleb(bits uint) uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		if shift >= bits || shift == 63 && c > 1 {
			r.fail(errors.New("integer too long"))
			return 0
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			if bits < 64 && v>>bits != 0 {
				r.fail(errors.New("integer too large"))
				return 0
			}
			return v
		}
	}
}

func (r *reader) u32() uint64 { return r.uleb(32) }

// sleb skips a signed LEB128 of at most bits bits (its value is never
// needed here).
func (r *reader) sleb(bits uint) {
	for n := uint(0); ; n += 7 {
		c := r.byte()
		if r.err != nil {
			return
		}
		if n >= bits {
			r.fail(errors.New("integer too long"))
			return
		}
		if c&0x80 == 0 {
			return
		}
	}
}

// name skips a name or any vector of bytes.
func (r *reader) name() { r.bytes(r.u32()) }

// limits reads a table's or a memory's limits: min, and max when hasMax.
// Flag bit 0 says a max follows, bit 1 a shared memory, bit 2 64-bit
// bounds.
func (r *reader) limits() (min, max uint64, hasMax bool) {
	flags := r.byte()
	if flags > 7 {
		r.fail(fmt.Errorf("limits flags %#x", flags))
		return
	}
	bits := uint(32)
	if flags&4 != 0 {
		bits = 64
	}
	min = r.uleb(bits)
	if flags&1 != 0 {
		max, hasMax = r.uleb(bits), true
	}
	return
}

// Opcodes the reader tells apart.
const (
	opUnreachable, opLoop, opBr, opEnd, opCall, opI32Const = 0x00, 0x03, 0x0c, 0x0b, 0x10, 0x41
	opDrop, opSelect                                       = 0x1a, 0x1b
	blockEmpty                                             = 0x40

	opBlock, opIf, opElse, opTry, opCatch, opThrow, opRethrow = 0x02, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09
	opThrowRef, opBrIf, opBrTable, opReturn, opCallIndirect   = 0x0a, 0x0d, 0x0e, 0x0f, 0x11
	opReturnCall, opReturnCallIndirect, opDelegate            = 0x12, 0x13, 0x18
	opCatchAll, opSelectT, opTryTable                         = 0x19, 0x1c, 0x1f
	opLocalGet, opGlobalSet, opTableGet, opTableSet           = 0x20, 0x24, 0x25, 0x26
	opLoadFirst, opStoreLast, opMemorySize, opMemoryGrow      = 0x28, 0x3e, 0x3f, 0x40
	opI64Const, opF32Const, opF64Const                        = 0x42, 0x43, 0x44
	opNumericFirst, opNumericLast                             = 0x45, 0xc4
	opRefNull, opRefIsNull, opRefFunc                         = 0xd0, 0xd1, 0xd2
	opPrefixMisc, opPrefixSIMD, opPrefixAtomic                = 0xfc, 0xfd, 0xfe
)

// blockType skips a block type: empty, a value type, or a type index (a
// non-negative signed LEB128).
func (r *reader) blockType() {
	c := r.byte()
	if c == blockEmpty || c >= 0x6f && c <= 0x7f || c == 0x7b {
		return
	}
	r.off--
	r.sleb(33)
}

// memarg skips a memory instruction's alignment and offset; with the
// multi-memory bit (6) of the alignment set, a memory index comes between.
func (r *reader) memarg() {
	if align := r.u32(); align&(1<<6) != 0 {
		r.u32()
	}
	r.uleb(64)
}

// instruction reads one instruction of a function body and returns its
// opcode, its immediates skipped.
func (r *reader) instruction() byte {
	op := r.byte()
	switch {
	case op == opBlock || op == opLoop || op == opIf || op == opTry:
		r.blockType()
	case op == opBr || op == opBrIf || op == opCall || op == opReturnCall || op == opThrow || op == opRethrow ||
		op == opDelegate || op == opRefFunc || op == opCatch || op >= opLocalGet && op <= opTableSet:
		r.u32()
	case op == opBrTable:
		for n := r.u32(); n > 0 && r.err == nil; n-- {
			r.u32()
		}
		r.u32()
	case op == opCallIndirect || op == opReturnCallIndirect:
		r.u32()
		r.u32()
	case op == opSelectT:
		for n := r.u32(); n > 0 && r.err == nil; n-- {
			r.byte()
		}
	case op == opTryTable:
		r.blockType()
		for n := r.u32(); n > 0 && r.err == nil; n-- {
			if kind := r.byte(); kind <= 1 { // catch, catch_ref: a tag
				r.u32()
			}
			r.u32()
		}
	case op >= opLoadFirst && op <= opStoreLast:
		r.memarg()
	case op == opMemorySize || op == opMemoryGrow:
		r.u32()
	case op == opI32Const:
		r.sleb(32)
	case op == opI64Const:
		r.sleb(64)
	case op == opF32Const:
		r.bytes(4)
	case op == opF64Const:
		r.bytes(8)
	case op == opRefNull:
		r.byte()
	case op == opPrefixMisc:
		r.misc()
	case op == opPrefixSIMD:
		r.simd()
	case op == opPrefixAtomic:
		if sub := r.u32(); sub != 3 { // atomic.fence has one zero byte
			r.memarg()
		} else {
			r.byte()
		}
	case op <= opReturn || op == opDrop || op == opSelect || op == opCatchAll ||
		op >= opNumericFirst && op <= opNumericLast || op == opRefIsNull:
		// no immediates
	default:
		r.fail(fmt.Errorf("unknown opcode %#x", op))
	}
	return op
}

// misc skips the immediates of a 0xfc instruction: saturating
// conversions, bulk memory, tables.
func (r *reader) misc() {
	switch sub := r.u32(); {
	case sub <= 7: // trunc_sat
	case sub == 8: // memory.init data, mem
		r.u32()
		r.u32()
	case sub == 9 || sub == 11 || sub == 13 || sub >= 15 && sub <= 17: // data.drop, memory.fill, elem.drop, table.grow/size/fill
		r.u32()
	case sub == 10 || sub == 12 || sub == 14: // memory.copy, table.init, table.copy
		r.u32()
		r.u32()
	default:
		r.fail(fmt.Errorf("unknown opcode 0xfc %d", sub))
	}
}

// simd skips the immediates of a 0xfd instruction.
func (r *reader) simd() {
	switch sub := r.u32(); {
	case sub <= 11 || sub == 92 || sub == 93: // loads, store, load_zero
		r.memarg()
	case sub == 12 || sub == 13: // v128.const, i8x16.shuffle
		r.bytes(16)
	case sub >= 21 && sub <= 34: // extract/replace lane
		r.byte()
	case sub >= 84 && sub <= 91: // load/store lane
		r.memarg()
		r.byte()
	case sub <= 275:
		// no immediates
	default:
		r.fail(fmt.Errorf("unknown opcode 0xfd %d", sub))
	}
}

// constExpr skips a constant expression up to its end.
func (r *reader) constExpr() {
	for r.err == nil {
		switch op := r.byte(); op {
		case opEnd:
			return
		case opI32Const:
			r.sleb(32)
		case opI64Const:
			r.sleb(64)
		case opF32Const:
			r.bytes(4)
		case opF64Const:
			r.bytes(8)
		case 0x23, opRefFunc: // global.get, ref.func
			r.u32()
		case opRefNull:
			r.byte()
		case 0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e: // extended constants: add, sub, mul
		case opPrefixSIMD:
			if r.u32() != 12 {
				r.fail(errors.New("not a constant instruction"))
			}
			r.bytes(16)
		default:
			r.fail(fmt.Errorf("opcode %#x in a constant expression", op))
		}
	}
}
