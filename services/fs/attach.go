package fs

import (
	"encoding/json"
	"path/filepath"
)

// RootsFromAttach reads an agent's folders from the params its
// agent/attach carried, as the host keeps them: "cwd" is the agent's
// folder (agent, the cwd of its ACP session), "repo" its repository
// (agentRepo) and "home" its home (agentHome). A member that is absent,
// not a string or not an absolute path is a root the agent lacks.
func RootsFromAttach(attached func(agent string) (json.RawMessage, bool)) RootsFunc {
	return func(agent string) (AgentRoots, bool) {
		raw, ok := attached(agent)
		if !ok {
			return AgentRoots{}, false
		}
		var p map[string]any
		if err := json.Unmarshal(raw, &p); err != nil {
			return AgentRoots{}, false
		}
		return AgentRoots{Agent: absolute(p["cwd"]), Repo: absolute(p["repo"]), Home: absolute(p["home"])}, true
	}
}

func absolute(v any) string {
	s, _ := v.(string)
	if !filepath.IsAbs(s) {
		return ""
	}
	return filepath.Clean(s)
}
