package journal

import (
	"slices"
	"sync"
)

// subscribers are the functions that see every line written, in the order
// they subscribed.
type subscribers struct {
	mu     sync.Mutex
	nextID uint64
	list   []subscription
}

type subscription struct {
	id uint64
	fn func(string)
}

func (s *subscribers) add(fn func(string)) (cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextID
	s.nextID++
	s.list = append(s.list, subscription{id, fn})
	return func() { s.remove(id) }
}

func (s *subscribers) remove(id uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = slices.DeleteFunc(slices.Clone(s.list), func(sub subscription) bool { return sub.id == id })
}

// deliver calls the subscribers outside the lock, so that one may cancel
// itself from inside its function.
func (s *subscribers) deliver(lines []string) {
	s.mu.Lock()
	list := s.list // remove never changes a published slice in place
	s.mu.Unlock()
	for _, sub := range list {
		for _, line := range lines {
			sub.fn(line)
		}
	}
}
