package harness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Stop ends a running agent's session (its turn cancelled, its program
// stopped as Session.Close does) and waits for its end; the agent stays,
// Stopped, with its conversation, and its next prompt starts it again. An
// agent that is not running is left as it is.
func (a *Agents) Stop(ctx context.Context, id string) error {
	if _, ok, err := a.store.Agent(id); err != nil || !ok {
		return cmpErr(err, fmt.Errorf("no agent %s under this home", id))
	}
	if s, _, err := a.session(id); err == nil {
		s.Close(ctx)
	}
	a.changed(id)
	return nil
}

// Delete stops the agent if it runs, then forgets it: its record and its
// conversation are removed from the home (Store.Delete). What it changed in
// its folder stays.
func (a *Agents) Delete(ctx context.Context, id string) error {
	// A start under way records the agent again as its session opens: it
	// is deleted once started.
	if live := a.lookup(id); live != nil {
		live.mu.Lock()
		starting := live.session == nil && live.state == StateStarting
		live.mu.Unlock()
		if starting {
			return fmt.Errorf("%s is starting: delete it once it has started", id)
		}
	}
	if err := a.Stop(ctx, id); err != nil {
		return err
	}
	if err := a.store.Delete(id); err != nil {
		return err
	}
	a.drop(id)
	a.changed(id)
	return nil
}

// Delete removes an agent's record from the index, then its conversation.
// The index goes first: an agent is listed only with its conversation, and
// a kill between the two leaves a conversation no record names, which the
// next Delete of that id (or a new agent given the id) replaces.
func (s *Store) Delete(id string) error {
	if err := CheckAgentID(id); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	list, err := s.readIndex()
	if err != nil {
		return err
	}
	kept := slices.DeleteFunc(slices.Clone(list), func(r AgentRecord) bool { return r.ID == id })
	if len(kept) == len(list) {
		return fmt.Errorf("no agent %s under this home", id)
	}
	if err := s.writeIndex(kept); err != nil {
		return err
	}
	if err := os.Remove(s.conversationPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s is forgotten but its conversation %s could not be removed: %w", id, filepath.Base(s.conversationPath(id)), err)
	}
	return nil
}

// titleBytes bounds the title an agent gives its session, as it is kept
// (docs/harness.md#persistence-and-harness-absent): a name to list agents
// by, not a text of the agent's to store whole.
const titleBytes = 200

// boundTitle is a session's title as it is kept: one line, its first
// titleBytes bytes.
func boundTitle(title string) string {
	title = strings.Join(strings.Fields(title), " ")
	if len(title) <= titleBytes {
		return title
	}
	return strings.ToValidUTF8(title[:titleBytes], "") + "…"
}
