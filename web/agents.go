package web

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/harness"
	"github.com/escouade-dev/escouade-plugin/harness/mcp"
	"github.com/escouade-dev/escouade-plugin/internal/safetext"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// agentsView is the Agents page's part of the server: the harness
// package's Agents over the home (nothing done another way than the
// harness command does it), the host's MCP server its agents ask their
// questions through, and the broker of the agents' state changes.
type agentsView struct {
	lib     *harness.Agents
	mcp     *mcp.Server
	changes *broker // "agent" events, data: the agent's id
}

// openAgents makes the Agents page's part of the server.
func (s *Server) openAgents() (*agentsView, error) {
	v := &agentsView{changes: newBroker()}
	srv, err := mcp.Start(context.Background(), mcp.Options{Ask: func(ctx context.Context, agent string, q json.RawMessage) ([][]string, error) {
		return v.lib.Ask(ctx, agent, q)
	}})
	if err != nil {
		return nil, err
	}
	v.mcp = srv
	v.lib, err = harness.OpenAgents(harness.AgentsOptions{
		Home: s.home, Env: s.env(), Lang: s.lang, AppVersion: s.opts.Host.AppVersion, MCP: srv,
		OnChange: func(id string) {
			data, _ := json.Marshal(id)
			v.changes.publish(sse("agent", string(data)))
		},
	})
	if err != nil {
		srv.Close()
		return nil, err
	}
	return v, nil
}

// close ends every running agent (each kept with its conversation), the
// streams, and the MCP server.
func (v *agentsView) close(ctx context.Context) {
	v.lib.Close(ctx)
	v.changes.close()
	v.mcp.Close()
}

func (s *Server) agentRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /agents", s.pageAgents)
	// The list's fragment and stream are outside /agents/, where every
	// name is an agent's (the command's --agent may be "list").
	m.HandleFunc("GET /agents-list", s.fragmentAgents)
	m.HandleFunc("GET /agents-events", s.streamAgentChanges)
	m.HandleFunc("POST /agents", s.postNewAgent)
	m.HandleFunc("GET /agents/{agent}", s.pageAgent)
	m.HandleFunc("GET /agents/{agent}/state", s.getAgentState)
	m.HandleFunc("GET /agents/{agent}/events", s.streamAgent)
	m.HandleFunc("POST /agents/{agent}/prompt", s.postAgent(func(ctx context.Context, a *harness.Agents, id string, r *http.Request) error {
		return a.Prompt(ctx, id, r.PostFormValue("text"))
	}))
	m.HandleFunc("POST /agents/{agent}/cancel", s.postAgent(func(_ context.Context, a *harness.Agents, id string, _ *http.Request) error {
		return a.Cancel(id)
	}))
	m.HandleFunc("POST /agents/{agent}/mode", s.postAgent(func(_ context.Context, a *harness.Agents, id string, r *http.Request) error {
		return a.SetMode(id, r.PostFormValue("mode"))
	}))
	m.HandleFunc("POST /agents/{agent}/model", s.postAgent(func(_ context.Context, a *harness.Agents, id string, r *http.Request) error {
		return a.SetModel(id, r.PostFormValue("model"))
	}))
	m.HandleFunc("POST /agents/{agent}/stop", s.postAgentStop)
	m.HandleFunc("POST /agents/{agent}/delete", s.postAgentDelete)
	m.HandleFunc("POST /agents/{agent}/permission", s.postAgent(func(_ context.Context, a *harness.Agents, id string, r *http.Request) error {
		return a.AnswerPermission(id, r.PostFormValue("request"), r.PostFormValue("option"))
	}))
	m.HandleFunc("POST /agents/{agent}/question", s.postAgent(func(_ context.Context, a *harness.Agents, id string, r *http.Request) error {
		var answers [][]string
		if err := json.Unmarshal([]byte(r.PostFormValue("answers")), &answers); err != nil {
			return errors.New(`the answers are not a JSON list of lists of texts (the form field "answers")`)
		}
		return a.AnswerQuestion(id, r.PostFormValue("request"), answers)
	}))
}

// agentsPage is the data of the Agents pages.
type agentsPage struct {
	page
	Choices []harness.Choice
	Agents  []agentRow
	Agent   agentRow
	Modes   []harness.ModeChoice  // the agent's harness's, on its page
	Models  []harness.ModelChoice // idem
}

// agentRow is an agent in the list and at the top of its page; every
// text that came from the agent or its plugin is escaped.
type agentRow struct {
	ID, Harness, Cwd, Mode, Model string
	// Name is the title the agent gave its session, else its id.
	Name     string
	State    agentStateView
	Activity string
	Items    int
}

// agentStateView is an agent's state as the page shows it; it is also
// the data of a "state" event.
type agentStateView struct {
	ID       string `json:"id"`
	State    string `json:"state"` // a harness.State* constant, or "absent"
	Label    string `json:"label"`
	Reason   string `json:"reason,omitempty"`
	Activity string `json:"activity,omitempty"`
	Mode     string `json:"mode,omitempty"`
	Model    string `json:"model,omitempty"`
	Name     string `json:"name"`
	// Fix is where in the view a « Harness absent » agent's harness comes
	// back (its plugin's page and its Enable), FixLabel the link's text.
	Fix      string `json:"fix,omitempty"`
	FixLabel string `json:"fixLabel,omitempty"`
}

func (s *Server) agentRowOf(st harness.AgentState) agentRow {
	key := st.State
	if key == harness.Absent {
		key = "absent"
	}
	activity := ""
	if !st.LastActivity.IsZero() {
		activity = st.LastActivity.Local().Format(time.DateTime)
	}
	r := agentRow{ID: st.ID, Harness: safetext.Line(st.Harness), Cwd: safetext.Line(st.Cwd), Mode: safetext.Line(st.Mode),
		Model: safetext.Line(st.Model), Name: cmp.Or(safetext.Line(st.Title), st.ID), Activity: activity, Items: st.Items}
	r.State = agentStateView{ID: st.ID, State: key, Label: tr(s.lang, "agents.state."+key), Reason: safetext.Line(st.Reason),
		Activity: activity, Mode: r.Mode, Model: r.Model, Name: r.Name}
	if st.Absent {
		s.absentFix(&r.State, st.Plugin)
	}
	return r
}

// absentFix says why an agent's harness is absent in the view's words and
// links to where the view brings it back: its plugin's page, whose Enable
// switches it on again, or the Plugins page to install it; the ACP
// harness itself, switched off, to its row in the Plugins list.
func (s *Server) absentFix(v *agentStateView, plugin string) {
	if on, err := harness.ACPEnabled(s.home); err != nil {
		return
	} else if !on {
		v.Reason = tr(s.lang, "agent.absent.acp", harness.ACPPluginID)
		v.Fix, v.FixLabel = "/#plugin-"+harness.ACPPluginID, tr(s.lang, "agent.absent.enable", harness.ACPPluginID)
		return
	}
	reg, err := registry.Open(s.home)
	if err != nil {
		return
	}
	e, ok := reg.Get(plugin)
	switch {
	case !ok:
		v.Reason = tr(s.lang, "agent.absent.missing", safetext.Line(plugin))
		v.Fix, v.FixLabel = "/", tr(s.lang, "agent.absent.install")
	case e.Disabled:
		v.Reason = tr(s.lang, "agent.absent.disabled", safetext.Line(plugin))
		v.Fix, v.FixLabel = "/plugins/"+url.PathEscape(plugin), tr(s.lang, "agent.absent.enable", safetext.Line(plugin))
	default: // its manifest no longer reads, or no longer describes the harness: the reason says which
		v.Fix, v.FixLabel = "/plugins/"+url.PathEscape(plugin), tr(s.lang, "agent.absent.open", safetext.Line(plugin))
	}
}

func (s *Server) agentRows() ([]agentRow, error) {
	list, err := s.ag.lib.List()
	if err != nil {
		return nil, err
	}
	rows := make([]agentRow, len(list))
	for i, st := range list {
		rows[i] = s.agentRowOf(st)
	}
	return rows, nil
}

func (s *Server) pageAgents(w http.ResponseWriter, r *http.Request) {
	if _, err := s.sync(r.Context()); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	p := agentsPage{page: s.newPage(tr(s.lang, "agents.title"))}
	p.Nav = navAgents
	var err error
	if p.Choices, err = s.ag.lib.Harnesses(); err == nil {
		p.Agents, err = s.agentRows()
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for i := range p.Choices {
		p.Choices[i].Name = safetext.Line(p.Choices[i].Name)
	}
	s.render(w, "agents.html", http.StatusOK, p)
}

// fragmentAgents is the table of the agents alone, which the script
// fetches when an agent or a plugin changes.
func (s *Server) fragmentAgents(w http.ResponseWriter, r *http.Request) {
	rows, err := s.agentRows()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.render(w, "agent-rows", http.StatusOK, rows)
}

// postNewAgent starts an agent of the harness chosen, in its folder, mode
// and model, and sends the page to its conversation.
func (s *Server) postNewAgent(w http.ResponseWriter, r *http.Request) {
	cwd := strings.TrimSpace(r.PostFormValue("cwd"))
	if !filepath.IsAbs(cwd) {
		reply(w, http.StatusUnprocessableEntity, answer{Error: "the folder " + quote(cwd) + " is not an absolute path: give the full path of the agent's project folder",
			Fields: map[string]string{"cwd": "give an absolute path"}})
		return
	}
	id, err := s.ag.lib.Start(context.WithoutCancel(r.Context()), harness.NewAgent{
		Harness: r.PostFormValue("harness"), Cwd: cwd, Mode: r.PostFormValue("mode"), Model: r.PostFormValue("model"),
	})
	if err != nil {
		fail(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	done(w, answer{Redirect: "/agents/" + id})
}

// postAgentStop ends a running agent; it stays, Stopped, with its
// conversation.
func (s *Server) postAgentStop(w http.ResponseWriter, r *http.Request) {
	s.agentAction(w, r, s.ag.lib.Stop, "agent.stopped")
}

// postAgentDelete stops an agent and forgets it with its conversation
// (harness.Agents.Delete); the list drops its row at the change.
func (s *Server) postAgentDelete(w http.ResponseWriter, r *http.Request) {
	s.agentAction(w, r, s.ag.lib.Delete, "agent.deleted")
}

// agentAction applies act to the request's agent and says it was done,
// by the agent's name, with the text whose key is said.
func (s *Server) agentAction(w http.ResponseWriter, r *http.Request, act func(context.Context, string) error, said string) {
	st, ok := s.agent(w, r)
	if !ok {
		return
	}
	if err := act(context.WithoutCancel(r.Context()), st.ID); err != nil {
		fail(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	done(w, answer{Message: tr(s.lang, said, s.agentRowOf(st).Name)})
}

// agent is the agent of the request's path, or false once a 404 is sent.
func (s *Server) agent(w http.ResponseWriter, r *http.Request) (harness.AgentState, bool) {
	id := r.PathValue("agent")
	st, ok, err := s.ag.lib.Get(id)
	switch {
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	case !ok:
		http.Error(w, "no agent "+quote(id)+" under this home", http.StatusNotFound)
	}
	return st, err == nil && ok
}

func (s *Server) pageAgent(w http.ResponseWriter, r *http.Request) {
	st, ok := s.agent(w, r)
	if !ok {
		return
	}
	row := s.agentRowOf(st)
	p := agentsPage{page: s.newPage(row.Name), Agent: row}
	p.Nav = navAgents
	choices, err := s.ag.lib.Harnesses()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for _, c := range choices {
		if c.ID == st.Harness {
			p.Modes, p.Models = c.Modes, c.Models
		}
	}
	s.render(w, "agents_chat.html", http.StatusOK, p)
}

func (s *Server) getAgentState(w http.ResponseWriter, r *http.Request) {
	st, ok := s.agent(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	json.NewEncoder(w).Encode(s.agentRowOf(st).State)
}

// postAgent is a change to one agent; a card answered already is 409, as
// is an agent that is not running or is in a turn.
func (s *Server) postAgent(op func(context.Context, *harness.Agents, string, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		st, ok := s.agent(w, r)
		if !ok {
			return
		}
		if err := op(context.WithoutCancel(r.Context()), s.ag.lib, st.ID, r); err != nil {
			status := http.StatusUnprocessableEntity
			if errors.Is(err, harness.ErrCardAnswered) || errors.Is(err, harness.ErrClosed) {
				status = http.StatusConflict
			}
			fail(w, status, err.Error())
			return
		}
		done(w, answer{})
	}
}

// agentStreamBuffer is how many items wait for a slow page before its
// stream is ended; its script then connects again and reads the
// conversation afresh.
const agentStreamBuffer = 1024

// streamAgent sends the agent's conversation so far ("reset", its end
// when it is long: resetViews), then each
// item as it comes ("item") and its state when it changes ("state"): the
// agent's own changes and its plugin's (a plugin disabled makes it
// « Harness absent »).
func (s *Server) streamAgent(w http.ResponseWriter, r *http.Request) {
	st, ok := s.agent(w, r)
	if !ok {
		return
	}
	items := make(chan acp.Item, agentStreamBuffer)
	ended := false // touched only by the subscriber, which is called in turn
	history, earlier, cancel, err := s.ag.lib.SubscribeEnd(st.ID, resetRead, func(it acp.Item) {
		if ended {
			return
		}
		select {
		case items <- it:
		default:
			ended = true
			close(items)
		}
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer cancel()
	changes, stopChanges := s.ag.changes.subscribe()
	defer stopChanges()
	plugins, stopPlugins := s.states.subscribe()
	defer stopPlugins()
	f, ok := startStream(w)
	if !ok {
		return
	}
	data, _ := json.Marshal(resetViews(history, earlier))
	w.Write(sse("reset", string(data)))
	s.writeAgentState(w, st.ID)
	f.Flush()
	for {
		select {
		case it, open := <-items:
			if !open {
				return
			}
			data, _ := json.Marshal(viewOf(it))
			w.Write(sse("item", string(data)))
		case msg, open := <-changes:
			if !open {
				return
			}
			if strings.Contains(string(msg), quote(st.ID)) {
				s.writeAgentState(w, st.ID)
			}
		case _, open := <-plugins:
			if !open {
				return
			}
			s.writeAgentState(w, st.ID)
		case <-r.Context().Done():
			return
		}
		f.Flush()
	}
}

// streamAgentChanges tells the agents list that an agent changed
// ("agent", its id), so it reads the list again.
func (s *Server) streamAgentChanges(w http.ResponseWriter, r *http.Request) {
	changes, stop := s.ag.changes.subscribe()
	defer stop()
	f, ok := startStream(w)
	if !ok {
		return
	}
	relay(w, f, r, changes)
}

func (s *Server) writeAgentState(w http.ResponseWriter, id string) {
	st, ok, err := s.ag.lib.Get(id)
	if err != nil || !ok {
		return
	}
	data, _ := json.Marshal(s.agentRowOf(st).State)
	w.Write(sse("state", string(data)))
}
