package harness

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// ConversationEnd reads the items of the last maxBytes of an agent's
// conversation (a line cut by that bound is left out) and counts the
// items of the whole, as Conversation would give them: an app that shows
// a conversation's end holds that end only, however long the agent
// talked.
func (s *Store) ConversationEnd(agent string, maxBytes int64) (items []acp.Item, total int, err error) {
	if err := CheckAgentID(agent); err != nil {
		return nil, 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.Open(s.conversationPath(agent))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	start := int64(0)
	if st, err := f.Stat(); err == nil && st.Size() > maxBytes {
		start = st.Size() - maxBytes
	}
	br := bufio.NewReaderSize(f, 64<<10)
	var offset int64
	for {
		line, err := br.ReadBytes('\n')
		lineStart := offset
		offset += int64(len(line))
		var it acp.Item
		if len(line) > 0 && json.Unmarshal(line, &it) == nil {
			total++
			if lineStart >= start {
				items = append(items, it)
			}
		}
		if errors.Is(err, io.EOF) {
			return items, total, nil
		}
		if err != nil {
			return items, total, err
		}
	}
}
