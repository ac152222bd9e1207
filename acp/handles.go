package acp

import (
	"encoding/json"
	"fmt"
	"slices"
)

// waiting is what a handle stands for: a request of the agent waiting for
// the host's answer, or a question card.
type waiting struct {
	itemType  string          // permission, fsRead, fsWrite or question
	id        json.RawMessage // the agent's request id, as it wrote it
	options   []PermissionOption
	questions []Question
	cursor    *cursorAsk // a card of a cursor/* request, answered to the agent
}

// handles names what waits for the host, in the order it came.
type handles struct {
	seq     int
	order   []string
	waiting map[string]waiting
}

func newHandles() handles { return handles{waiting: map[string]waiting{}} }

func (h *handles) add(w waiting) string {
	h.seq++
	handle := fmt.Sprintf("r%d", h.seq)
	h.order = append(h.order, handle)
	h.waiting[handle] = w
	return handle
}

func (h *handles) addQuestion(questions []Question) string {
	return h.add(waiting{itemType: TypeQuestion, questions: questions})
}

func (h *handles) take(handle string) (waiting, bool) {
	w, ok := h.waiting[handle]
	if ok {
		delete(h.waiting, handle)
		h.order = slices.DeleteFunc(h.order, func(s string) bool { return s == handle })
	}
	return w, ok
}

// ofType lists the handles waiting of one item type, oldest first.
func (h *handles) ofType(itemType string) []string {
	var list []string
	for _, handle := range h.order {
		if h.waiting[handle].itemType == itemType {
			list = append(list, handle)
		}
	}
	return list
}
