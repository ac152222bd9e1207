package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// ConversationEnd gives the items of the conversation's last bytes, and
// the count of the whole as Conversation gives it: a cut line and a line
// that is no item are not counted.
func TestConversationEndReadsTheEndAndCountsTheWhole(t *testing.T) {
	home := t.TempDir()
	st, err := OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := st.Append("a1", acp.Item{Type: acp.TypeText, Text: strings.Repeat("x", 100) + string(rune('a'+i%26))}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(home, StoreDir, "a1.jsonl")
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("7\n{\"type\":\"text\",\"te") // not an item, then a line cut by a crash
	f.Close()
	whole, err := st.Conversation("a1")
	if err != nil {
		t.Fatal(err)
	}
	end, total, err := st.ConversationEnd("a1", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if total != len(whole) || total != 100 {
		t.Errorf("total %d, Conversation gives %d, want 100", total, len(whole))
	}
	if len(end) == 0 || len(end) > 1000/100 || end[len(end)-1].Text != whole[len(whole)-1].Text {
		t.Errorf("the end: %d items, last %q", len(end), end[len(end)-1].Text)
	}
	if all, n, _ := st.ConversationEnd("a1", 1<<30); len(all) != n || n != 100 {
		t.Errorf("the whole through ConversationEnd: %d of %d", len(all), n)
	}
	if none, n, _ := st.ConversationEnd("a1", 0); len(none) != 0 || n != 100 {
		t.Errorf("no bytes: %d items of %d", len(none), n)
	}
}

// A kill in the middle of an item's write leaves a cut last line: the
// next item starts a line of its own, so only the cut one is lost.
func TestAppendAfterACutLineKeepsTheNextItem(t *testing.T) {
	home := t.TempDir()
	st, err := OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Append("a1", acp.Item{Type: acp.TypeText, Text: "before"}); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(filepath.Join(home, StoreDir, "a1.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"text","text":"cu`) // the kill
	f.Close()
	if err := st.Append("a1", acp.Item{Type: acp.TypeText, Text: "after"}); err != nil {
		t.Fatal(err)
	}
	items, err := st.Conversation("a1")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, it := range items {
		texts = append(texts, it.Text)
	}
	if strings.Join(texts, ",") != "before,after" {
		t.Errorf("items after a cut line: %q, want before and after", texts)
	}
}
