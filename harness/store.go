package harness

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// StoreDir is the folder of the harness's agents under the home.
const StoreDir = "harness"

// indexFile lists the agents; each conversation is <agent>.jsonl beside it.
const indexFile = "agents.json"

// Absent is how an agent whose harness is gone is marked (docs/harness.md#persistence-and-harness-absent).
const Absent = "Harness absent"

// AgentRecord is what the host keeps of an agent across restarts.
type AgentRecord struct {
	ID        string `json:"id"`
	Harness   string `json:"harness"` // plugin:<plugin>:<harness>
	Plugin    string `json:"plugin"`
	HarnessID string `json:"harnessId"`
	Cwd       string `json:"cwd"`
	Mode      string `json:"mode,omitempty"`
	Model     string `json:"model,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	// Title is the title the agent gave its session (session_info_update),
	// as boundTitle keeps it; the app names the agent by it.
	Title string `json:"title,omitempty"`
}

// Store keeps the agents of one home and their conversations: the index
// <home>/harness/agents.json, rewritten whole through a temporary file, and
// one JSON line per item in <home>/harness/<agent>.jsonl. It is safe for
// concurrent use.
type Store struct {
	dir string
	mu  sync.Mutex
}

// OpenStore opens (and makes) the store of home.
func OpenStore(home string) (*Store, error) {
	dir := filepath.Join(home, StoreDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &Store{dir: dir}, nil
}

// ExistingStore opens the store of home if it has one; nil, and nothing
// made, when it has none.
func ExistingStore(home string) (*Store, error) {
	dir := filepath.Join(home, StoreDir)
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", dir)
	}
	return &Store{dir: dir}, nil
}

// agentName is what an agent id may hold, so it is a safe file name.
var agentName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// CheckAgentID refuses an agent id that is not a plain file name.
func CheckAgentID(id string) error {
	if !agentName.MatchString(id) {
		return fmt.Errorf("agent id %q: want letters, digits, '.', '_' or '-' (at most 128)", id)
	}
	return nil
}

// Agents lists the recorded agents by id.
func (s *Store) Agents() ([]AgentRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readIndex()
}

// Agent gives the record of one agent.
func (s *Store) Agent(id string) (AgentRecord, bool, error) {
	list, err := s.Agents()
	for _, r := range list {
		if r.ID == id {
			return r, true, err
		}
	}
	return AgentRecord{}, false, err
}

// SaveAgent adds or replaces an agent's record.
func (s *Store) SaveAgent(r AgentRecord) error {
	if err := CheckAgentID(r.ID); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	list, err := s.readIndex()
	if err != nil {
		return err
	}
	replaced := false
	for i := range list {
		if list[i].ID == r.ID {
			list[i], replaced = r, true
		}
	}
	if !replaced {
		list = append(list, r)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	return s.writeIndex(list)
}

func (s *Store) readIndex() ([]AgentRecord, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, indexFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var list []AgentRecord
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", indexFile, err)
	}
	return list, nil
}

func (s *Store) writeIndex(list []AgentRecord) error {
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	return replaceFile(s.dir, indexFile, append(b, '\n'))
}

// replaceFile writes b to name in dir through a temporary file renamed
// over it, so a reader finds the old content or the new, never a part.
func replaceFile(dir, name string, b []byte) error {
	return safefile.Replace(filepath.Join(dir, name), b, 0o600)
}

// Append adds items to an agent's conversation.
func (s *Store) Append(agent string, items ...acp.Item) error {
	if err := CheckAgentID(agent); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.OpenFile(s.conversationPath(agent), os.O_CREATE|os.O_APPEND|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if cut, err := endsCut(f); err != nil {
		f.Close()
		return err
	} else if cut {
		w.WriteByte('\n') // a kill cut the last item: it alone stays unreadable
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			f.Close()
			return err
		}
	}
	return errors.Join(w.Flush(), f.Close())
}

// Conversation reads an agent's items back, in order; a line that cannot
// be read (a write cut by a crash) is skipped.
func (s *Store) Conversation(agent string) ([]acp.Item, error) {
	if err := CheckAgentID(agent); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.Open(s.conversationPath(agent))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var items []acp.Item
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadBytes('\n')
		var it acp.Item
		if len(line) > 0 && json.Unmarshal(line, &it) == nil {
			items = append(items, it)
		}
		if errors.Is(err, io.EOF) {
			return items, nil
		}
		if err != nil {
			return items, err
		}
	}
}

func (s *Store) conversationPath(agent string) string {
	return filepath.Join(s.dir, agent+".jsonl")
}

// Listing is an agent as the app lists it: absent when its harness is not
// there to run it, with why, and what its conversation holds.
type Listing struct {
	AgentRecord
	Absent bool `json:"absent,omitempty"`
	// Reason says why the harness is absent.
	Reason string `json:"reason,omitempty"`
	// LastActivity is when its conversation last changed (its record's
	// when it has none yet); zero when neither can be read.
	LastActivity time.Time `json:"lastActivity,omitzero"`
	// Items is the length of its conversation, in items.
	Items int `json:"items"`
}

// Available is the status of an agent whose harness is there.
const Available = "available"

// Status is Absent ("Harness absent") for an absent agent, else "".
func (l Listing) Status() string {
	if l.Absent {
		return Absent
	}
	return ""
}

// MarshalJSON writes the listing with its status spelled out: Absent or
// Available.
func (l Listing) MarshalJSON() ([]byte, error) {
	type plain Listing
	return json.Marshal(struct {
		plain
		Status string `json:"status"`
	}{plain(l), cmp.Or(l.Status(), Available)})
}

// List gives every agent, marked absent when its plugin is not installed,
// is disabled, no longer describes its harness, or when the ACP harness
// itself is off (acpOn false; ACPEnabled tells). They come back as soon as
// it returns, their conversations kept.
func (s *Store) List(reg *registry.Registry, acpOn bool) ([]Listing, error) {
	records, err := s.Agents()
	if err != nil {
		return nil, err
	}
	out := make([]Listing, len(records))
	for i, r := range records {
		l := Listing{AgentRecord: r}
		l.Reason = absence(reg, r)
		if !acpOn {
			l.Reason = fmt.Sprintf("the ACP harness %s is disabled (escouade-plugin enable %s brings it back)", ACPPluginID, ACPPluginID)
		}
		l.Absent = l.Reason != ""
		l.LastActivity, l.Items = s.activity(r.ID)
		out[i] = l
	}
	return out, nil
}

// absence says why the harness of r cannot run now, "" when it can.
func absence(reg *registry.Registry, r AgentRecord) string {
	e, ok := reg.Get(r.Plugin)
	switch {
	case !ok:
		return fmt.Sprintf("its plugin %s is not installed", r.Plugin)
	case e.Disabled:
		return fmt.Sprintf("its plugin %s is disabled (escouade-plugin enable %s brings it back)", r.Plugin, r.Plugin)
	}
	m, err := manifest.Load(e.Dir, manifest.LoadOptions{})
	if err != nil {
		return fmt.Sprintf("the manifest of its plugin %s cannot be read: %v", r.Plugin, err)
	}
	if h, ok := m.Harness(r.HarnessID); !ok || !h.Described() {
		return fmt.Sprintf("its plugin %s no longer describes the harness %q", r.Plugin, r.HarnessID)
	}
	return ""
}

// activity gives when an agent's conversation last changed and how many
// items it holds (its complete lines: a line cut by a crash is not one).
func (s *Store) activity(agent string) (time.Time, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.Open(s.conversationPath(agent))
	if err != nil {
		st, err := os.Stat(filepath.Join(s.dir, indexFile))
		if err != nil {
			return time.Time{}, 0
		}
		return st.ModTime().UTC(), 0
	}
	defer f.Close()
	var when time.Time
	if st, err := f.Stat(); err == nil {
		when = st.ModTime().UTC()
	}
	n := 0
	buf := make([]byte, 64<<10)
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err != nil {
			return when, n
		}
	}
}

// endsCut reports whether f, not empty, does not end with a newline: its
// last line was cut by a kill in the middle of its write.
func endsCut(f *os.File) (bool, error) {
	info, err := f.Stat()
	if err != nil || info.Size() == 0 {
		return false, err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, info.Size()-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
}
