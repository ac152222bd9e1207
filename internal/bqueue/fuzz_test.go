package bqueue

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzModel runs a sequence of operations against the queue and against a
// plain slice that models it: the items, their order, the bound and what
// each push drops must agree after every step.
func FuzzModel(f *testing.F) {
	f.Add(uint8(3), uint8(DropOldest), []byte{0, 0, 0, 0, 1, 0, 2, 0})
	f.Add(uint8(2), uint8(Refuse), []byte{0, 0, 0, 1, 1, 0, 0})
	f.Add(uint8(1), uint8(Block), []byte{0, 0, 2, 0, 1})
	f.Add(uint8(0), uint8(Refuse), []byte{0, 0, 0, 0, 0, 0, 3, 1})
	f.Fuzz(func(t *testing.T, limit, policy uint8, ops []byte) {
		p := Policy(policy % 3)
		q := New[int](int(limit%8), p)
		var model []int
		bound := int(limit % 8)
		for step, op := range ops {
			switch op % 4 {
			case 0: // push
				d, was, err := q.Push(step)
				full := bound > 0 && len(model) >= bound
				switch {
				case !full:
					model = append(model, step)
					if was || err != nil {
						t.Fatalf("step %d: push on room gave %d, %v, %v", step, d, was, err)
					}
				case p == DropOldest:
					if !was || d != model[0] || err != nil {
						t.Fatalf("step %d: push dropped %d, %v, %v; want %d", step, d, was, err, model[0])
					}
					model = append(model[1:], step)
				default:
					if err != ErrFull {
						t.Fatalf("step %d: push on a full queue: %v, want ErrFull", step, err)
					}
				}
			case 1: // pop
				v, ok := q.TryPop()
				if ok != (len(model) > 0) || ok && v != model[0] {
					t.Fatalf("step %d: TryPop = %d, %v; model %v", step, v, ok, model)
				}
				if ok {
					model = model[1:]
				}
			case 2: // drain
				got := q.Drain()
				if len(model) == 0 {
					model = nil
				}
				if diff := cmp.Diff(model, got); diff != "" {
					t.Fatalf("step %d: Drain (-model +got):\n%s", step, diff)
				}
				model = nil
			case 3: // len
				if n := q.Len(); n != len(model) {
					t.Fatalf("step %d: Len = %d, model %d", step, n, len(model))
				}
			}
			if bound > 0 && q.Len() > bound {
				t.Fatalf("step %d: %d items past the bound %d", step, q.Len(), bound)
			}
		}
	})
}
