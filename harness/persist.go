package harness

import "fmt"

// sessionToResume is the ACP session the agent re-attaches to: the one
// asked for, else the last one the store knows of this agent.
func (s *Session) sessionToResume() string {
	if s.opts.SessionID != "" || s.opts.Store == nil {
		return s.opts.SessionID
	}
	r, ok, err := s.opts.Store.Agent(s.opts.Agent)
	if err != nil || !ok || r.Harness != s.id {
		return "" // an unreadable index or another harness's agent: a new session
	}
	return r.SessionID
}

// saveAgent updates the agent's record in the store.
func (s *Session) saveAgent(change func(*AgentRecord)) {
	st := s.opts.Store
	if st == nil {
		return
	}
	r, _, err := st.Agent(s.opts.Agent)
	if err == nil {
		r.ID, r.Harness, r.Plugin, r.HarnessID = s.opts.Agent, s.id, s.opts.Manifest.ID, s.harness.ID
		r.Cwd, r.Mode = s.fence.own, s.mode
		change(&r)
		err = st.SaveAgent(r)
	}
	if err != nil && !s.loop.saveFailed {
		s.loop.saveFailed = true
		s.opts.OnItem(noticeItem(fmt.Sprintf("cannot save the agent: %v", err)))
	}
}
