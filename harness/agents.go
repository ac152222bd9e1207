package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// Agents runs the agents of one home for an app, as the Plugins view's
// Agents page does: it starts an agent of a described harness by harness
// id, keeps each in the home's Store, hands every item to the app's
// subscribers, answers each card once, and lists the agents with their
// state, « Harness absent » included. Everything it starts goes through
// Start, with the same checks as the harness command (the ACP harness and
// the plugin switched on, the plugin's folder what the user consented to,
// the mode offered by caps.modes). It is safe for concurrent use.
type Agents struct {
	opts  AgentsOptions
	store *Store

	mu     sync.Mutex
	agents map[string]*liveAgent // by agent id: those running and those followed
	closed bool
}

// AgentsOptions configure Agents. Home is required.
type AgentsOptions struct {
	Home string
	// Env is the app's environment (os.Environ() when nil); Lang and
	// AppVersion are given to each session.
	Env        []string
	Lang       string
	AppVersion string
	// MCP is the host's MCP server given to each agent; nil gives none.
	MCP MCPServer
	// OnChange is told that an agent came, went or changed state. It is
	// called from a session's goroutine and must not block.
	OnChange func(agent string)
	// CancelGrace and CloseGrace are given to each session.
	CancelGrace, CloseGrace time.Duration
}

// NewAgent is what the app asks to start: a harness id
// (plugin:<plugin>:<harness>), the agent's folder, an app mode from the
// harness's caps.modes and a model from its models (both may be empty).
type NewAgent struct {
	Harness string
	Cwd     string
	Mode    string
	Model   string
}

// Agent states, beside Absent.
const (
	StateStarting = "starting" // launched, its session not open yet
	StateIdle     = "idle"     // running, no turn
	StateWorking  = "working"  // a turn runs
	StateWaiting  = "waiting"  // a card waits for the user
	StateStopped  = "stopped"  // kept, not running; a prompt starts it again
)

// AgentState is an agent as the app lists it: its listing (record, absent
// or not, last activity, items) and what it does now.
type AgentState struct {
	Listing
	State string `json:"state"` // one of the State* constants, or Absent
}

// ErrCardAnswered reports an answer to a card that no longer waits.
var ErrCardAnswered = errors.New("this card was already answered")

// liveAgent is what Agents keeps of an agent it runs or that is followed.
type liveAgent struct {
	mu      sync.Mutex
	session *Session
	state   string
	cards   map[string][]acp.PermissionOption // waiting cards; a question's has no options
	subs    map[int]func(acp.Item)
	nextSub int
	// base is the conversation's length when this run started, delivered
	// the items given since and last the latest: together they let a new
	// subscriber read the stored conversation and miss nothing.
	base, delivered int
	last            acp.Item
}

// OpenAgents opens (and makes) the agents' store of the home.
func OpenAgents(opts AgentsOptions) (*Agents, error) {
	store, err := OpenStore(opts.Home)
	if err != nil {
		return nil, err
	}
	return &Agents{opts: opts, store: store, agents: map[string]*liveAgent{}}, nil
}

// Store is the store the agents are kept in.
func (a *Agents) Store() *Store { return a.store }

// SplitID cuts a harness id plugin:<plugin>:<harness> into its plugin id
// and harness id.
func SplitID(id string) (plugin, harnessID string, err error) {
	rest, ok := strings.CutPrefix(id, "plugin:")
	plugin, harnessID, found := strings.Cut(rest, ":")
	if !ok || !found || plugin == "" || harnessID == "" {
		return "", "", fmt.Errorf("harness %q: want plugin:<plugin>:<harness>", id)
	}
	return plugin, harnessID, nil
}

// Start starts a new agent and gives its id.
func (a *Agents) Start(ctx context.Context, n NewAgent) (string, error) {
	plugin, harnessID, err := SplitID(n.Harness)
	if err != nil {
		return "", err
	}
	m, err := a.installedManifest(plugin)
	if err != nil {
		return "", err
	}
	h, err := Pick(m, harnessID)
	if err != nil {
		return "", err
	}
	if err := CheckMode(h, or(n.Mode, DefaultMode)); err != nil {
		return "", err
	}
	if err := checkModel(h, n.Model); err != nil {
		return "", err
	}
	id, live, err := a.reserve()
	if err != nil {
		return "", err
	}
	rec := AgentRecord{ID: id, Harness: ID(plugin, harnessID), Plugin: plugin, HarnessID: harnessID,
		Cwd: n.Cwd, Mode: or(n.Mode, DefaultMode), Model: n.Model}
	if err := a.launch(ctx, live, m, rec); err != nil {
		a.drop(id)
		return "", err
	}
	return id, nil
}

// Resume starts a kept agent again, in its folder, mode and model, on its
// last session; a running agent is left as it is.
func (a *Agents) Resume(ctx context.Context, id string) error {
	rec, ok, err := a.store.Agent(id)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("no agent %s under this home", id)
	}
	live := a.follow(id)
	live.mu.Lock()
	running := live.session != nil || live.state == StateStarting
	if !running {
		live.state = StateStarting // one resume at a time
	}
	live.mu.Unlock()
	if running {
		return nil
	}
	m, err := a.installedManifest(rec.Plugin)
	if err == nil {
		err = a.launch(ctx, live, m, rec)
	}
	if err != nil {
		live.mu.Lock()
		live.state = ""
		live.mu.Unlock()
		return fmt.Errorf("%s cannot start again: %w", id, err)
	}
	return nil
}

// installedManifest is the manifest of an installed plugin whose
// harnesses may run now: the ACP harness and the plugin switched on, its
// folder what the user consented to.
func (a *Agents) installedManifest(plugin string) (*manifest.Manifest, error) {
	on, err := ACPEnabled(a.opts.Home)
	if err != nil {
		return nil, err
	}
	if !on {
		return nil, fmt.Errorf("%s: the ACP harness %s is disabled: no described harness runs until it is enabled (escouade-plugin enable %s)", Absent, ACPPluginID, ACPPluginID)
	}
	reg, err := registry.Open(a.opts.Home)
	if err != nil {
		return nil, err
	}
	e, ok := reg.Get(plugin)
	switch {
	case !ok:
		return nil, fmt.Errorf("%s: its plugin %s is not installed (install it from the Plugins view, or escouade-plugin install DIR)", Absent, plugin)
	case e.Disabled:
		return nil, fmt.Errorf("%s: its plugin %s is disabled: its harnesses do not run until it is enabled (escouade-plugin enable %s)", Absent, plugin, plugin)
	}
	m, err := manifest.Load(e.Dir, manifest.LoadOptions{AppVersion: a.opts.AppVersion})
	if err != nil {
		return nil, err
	}
	if err := registry.CheckEntry(a.opts.Home, e, m); err != nil { // a development install within its scope passes
		return nil, err
	}
	return m, nil
}

// checkModel refuses a model the harness's models menu does not list,
// when it lists any.
func checkModel(h *manifest.Harness, model string) error {
	if model == "" || len(h.Models) == 0 {
		return nil
	}
	var ids []string
	for _, m := range h.Models {
		if m.ID == model {
			return nil
		}
		ids = append(ids, m.ID)
	}
	return fmt.Errorf("model %q: %s lists %s in its models", model, h.Name.In("en"), strings.Join(ids, ", "))
}

// reserve picks the id of a new agent and follows it.
func (a *Agents) reserve() (string, *liveAgent, error) {
	records, err := a.store.Agents()
	if err != nil {
		return "", nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return "", nil, ErrClosed
	}
	for n := len(records) + 1; ; n++ {
		id := fmt.Sprintf("agent-%d", n)
		_, kept := a.agents[id]
		if !kept && !slices.ContainsFunc(records, func(r AgentRecord) bool { return r.ID == id }) {
			live := &liveAgent{state: StateStarting}
			a.agents[id] = live
			return id, live, nil
		}
	}
}

func (a *Agents) drop(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.agents, id)
}

// follow is the live record of an agent, made when it has none.
func (a *Agents) follow(id string) *liveAgent {
	a.mu.Lock()
	defer a.mu.Unlock()
	live, ok := a.agents[id]
	if !ok {
		live = &liveAgent{}
		a.agents[id] = live
	}
	return live
}

func (a *Agents) lookup(id string) *liveAgent {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.agents[id]
}

// launch starts the session of rec and records it.
func (a *Agents) launch(ctx context.Context, live *liveAgent, m *manifest.Manifest, rec AgentRecord) error {
	_, stored, err := a.store.ConversationEnd(rec.ID, 0) // its length, none of its items
	if err != nil {
		return err
	}
	if err := a.store.SaveAgent(rec); err != nil {
		return err
	}
	live.mu.Lock()
	live.base, live.delivered, live.state = stored, 0, StateStarting
	live.cards = map[string][]acp.PermissionOption{}
	live.mu.Unlock()
	s, err := Start(ctx, Options{
		// installedManifest has just checked m against its consent.
		Manifest: m, Admit: registry.AnyFolder, Harness: rec.HarnessID, Agent: rec.ID, Cwd: rec.Cwd,
		Mode: rec.Mode, Model: rec.Model, Env: a.opts.Env, Lang: a.opts.Lang, AppVersion: a.opts.AppVersion,
		MCP: a.opts.MCP, Store: a.store, CancelGrace: a.opts.CancelGrace, CloseGrace: a.opts.CloseGrace,
		OnItem: func(it acp.Item) { a.delivered(rec.ID, live, it) },
	})
	if err != nil {
		return err
	}
	live.mu.Lock()
	if live.state != StateStopped { // an agent that ended at once stays ended
		live.session = s
	}
	live.mu.Unlock()
	a.changed(rec.ID)
	return nil
}

// delivered is each session's OnItem: the agent's state follows its
// items, then every subscriber gets the item.
func (a *Agents) delivered(id string, live *liveAgent, it acp.Item) {
	live.mu.Lock()
	before := live.state
	live.delivered++
	live.last = it
	switch it.Type {
	case acp.TypeSession:
		live.state = StateIdle
	case acp.TypePermission, acp.TypeQuestion:
		live.cards[it.Request] = it.Options
		live.state = StateWaiting
	case acp.TypeAnswered:
		delete(live.cards, it.Request)
		if len(live.cards) == 0 && live.state == StateWaiting {
			live.state = StateWorking
		}
	case acp.TypeTurn:
		live.state = StateIdle
	case acp.TypeClosed:
		live.state, live.session = StateStopped, nil
	}
	for _, f := range live.subs {
		f(it)
	}
	// A mode item changes the agent's record (the mode the host applies),
	// which its state shows; a session's title, the name it is listed by.
	changed := live.state != before || it.Type == acp.TypeMode || it.Type == acp.TypeSessionInfo
	live.mu.Unlock()
	if changed {
		a.changed(id)
	}
}

func (a *Agents) changed(id string) {
	if a.opts.OnChange != nil {
		a.opts.OnChange(id)
	}
}

// Subscribe gives the agent's conversation so far and calls f with every
// item that follows, in order, until cancel; nothing is missed or given
// twice between the two. f is called from the session's goroutine and
// must not block.
func (a *Agents) Subscribe(id string, f func(acp.Item)) (history []acp.Item, cancel func(), err error) {
	history, _, cancel, err = a.SubscribeEnd(id, math.MaxInt64, f)
	return history, cancel, err
}

// SubscribeEnd is Subscribe for a page that shows a conversation's end:
// the items of its last maxBytes (Store.ConversationEnd), and how many
// earlier ones it left out.
func (a *Agents) SubscribeEnd(id string, maxBytes int64, f func(acp.Item)) (history []acp.Item, earlier int, cancel func(), err error) {
	if _, ok, err := a.store.Agent(id); err != nil || !ok {
		return nil, 0, nil, cmpErr(err, fmt.Errorf("no agent %s under this home", id))
	}
	live := a.follow(id)
	live.mu.Lock()
	defer live.mu.Unlock()
	history, total, err := a.store.ConversationEnd(id, maxBytes)
	if err != nil {
		return nil, 0, nil, err
	}
	// The session gives an item to its subscribers before it stores it:
	// the latest may not be stored yet.
	if live.delivered > 0 && total == live.base+live.delivered-1 {
		history = append(history, live.last)
		total++
	}
	n := live.nextSub
	live.nextSub++
	if live.subs == nil {
		live.subs = map[int]func(acp.Item){}
	}
	live.subs[n] = f
	return history, total - len(history), func() {
		live.mu.Lock()
		defer live.mu.Unlock()
		delete(live.subs, n)
	}, nil
}

func cmpErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// List gives every kept agent with what it does now: Absent when its
// harness is gone (Store.List), else running, waiting, idle or stopped.
func (a *Agents) List() ([]AgentState, error) {
	reg, err := registry.Open(a.opts.Home)
	if err != nil {
		return nil, err
	}
	on, err := ACPEnabled(a.opts.Home)
	if err != nil {
		return nil, err
	}
	listings, err := a.store.List(reg, on)
	if err != nil {
		return nil, err
	}
	out := make([]AgentState, len(listings))
	for i, l := range listings {
		if l.Absent {
			a.stopAbsent(l.ID)
		}
		out[i] = AgentState{Listing: l, State: a.stateOf(l)}
	}
	return out, nil
}

// Get gives one kept agent as List does.
func (a *Agents) Get(id string) (AgentState, bool, error) {
	list, err := a.List()
	for _, st := range list {
		if st.ID == id {
			return st, true, nil
		}
	}
	return AgentState{}, false, err
}

func (a *Agents) stateOf(l Listing) string {
	live := a.lookup(l.ID)
	state := ""
	if live != nil {
		live.mu.Lock()
		if live.session != nil || live.state == StateStarting {
			state = live.state
		}
		live.mu.Unlock()
	}
	switch {
	case l.Absent:
		return Absent
	case state != "":
		return state
	}
	return StateStopped
}

// stopAbsent ends the session of an agent whose harness went away while
// it ran (its plugin disabled or uninstalled, the ACP harness switched
// off): what the user switched off does not run, in the app as on the
// command line. The agent stays, with its conversation.
func (a *Agents) stopAbsent(id string) {
	if s, _, err := a.session(id); err == nil {
		go s.Close(context.Background())
	}
}

// session is the running session of an agent, or why there is none.
func (a *Agents) session(id string) (*Session, *liveAgent, error) {
	live := a.lookup(id)
	if live != nil {
		live.mu.Lock()
		s := live.session
		live.mu.Unlock()
		if s != nil {
			return s, live, nil
		}
	}
	return nil, nil, fmt.Errorf("%s is not running: send it a prompt to start it again", id)
}

// Prompt sends a prompt to the agent, started again first when it is
// kept and not running.
func (a *Agents) Prompt(ctx context.Context, id, text string) error {
	if strings.TrimSpace(text) == "" {
		return errors.New("the prompt is empty: type what the agent should do")
	}
	if err := a.Resume(ctx, id); err != nil {
		return err
	}
	s, live, err := a.session(id)
	if err != nil {
		return err
	}
	live.mu.Lock()
	busy := live.state == StateWorking || live.state == StateWaiting
	live.mu.Unlock()
	if busy {
		return fmt.Errorf("%s is in a turn: wait for its end or cancel it", id)
	}
	if err := s.Prompt(text); err != nil {
		return err
	}
	live.mu.Lock()
	if live.state == StateIdle || live.state == StateStarting {
		live.state = StateWorking
	}
	live.mu.Unlock()
	a.changed(id)
	return nil
}

// AnswerPermission answers a waiting permission card with the option of
// that id. A card is answered once: a second answer (another tab's) is
// ErrCardAnswered.
func (a *Agents) AnswerPermission(id, request, optionID string) error {
	s, live, err := a.session(id)
	if err != nil {
		return err
	}
	if err := live.take(request, func(options []acp.PermissionOption) error {
		if !slices.ContainsFunc(options, func(o acp.PermissionOption) bool { return o.ID == optionID }) {
			return fmt.Errorf("card %s offers no option %q", request, optionID)
		}
		return nil
	}); err != nil {
		return err
	}
	return s.AnswerOption(request, optionID)
}

// AnswerQuestion answers a waiting question card, once.
func (a *Agents) AnswerQuestion(id, request string, answers [][]string) error {
	s, live, err := a.session(id)
	if err != nil {
		return err
	}
	if err := live.take(request, func([]acp.PermissionOption) error { return nil }); err != nil {
		return err
	}
	return s.AnswerQuestion(request, answers)
}

// take claims a waiting card for one answer, once check accepts it.
func (l *liveAgent) take(request string, check func([]acp.PermissionOption) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	options, ok := l.cards[request]
	if !ok {
		return fmt.Errorf("%w (card %s waits no more)", ErrCardAnswered, request)
	}
	if err := check(options); err != nil {
		return err
	}
	delete(l.cards, request)
	return nil
}

// Cancel cancels the agent's running turn.
func (a *Agents) Cancel(id string) error {
	s, _, err := a.session(id)
	if err != nil {
		return err
	}
	return s.Cancel()
}

// SetMode changes the agent's app mode (refused outside caps.modes).
func (a *Agents) SetMode(id, mode string) error {
	s, _, err := a.session(id)
	if err != nil {
		return err
	}
	return s.SetMode(mode)
}

// SetModel changes the agent's model (refused outside its models).
func (a *Agents) SetModel(id, model string) error {
	s, _, err := a.session(id)
	if err != nil {
		return err
	}
	if err := checkModel(s.harness, model); err != nil {
		return err
	}
	return s.SetModel(model)
}

// Ask is the MCP server's Asker: the agent's question card of the tool
// ask_question.
func (a *Agents) Ask(ctx context.Context, agent string, questions json.RawMessage) ([][]string, error) {
	s, _, err := a.session(agent)
	if err != nil {
		return nil, ErrClosed
	}
	return s.Ask(ctx, questions)
}

// Close ends every running agent, each kept with its conversation.
func (a *Agents) Close(ctx context.Context) {
	a.mu.Lock()
	a.closed = true
	var running []*Session
	for _, live := range a.agents {
		live.mu.Lock()
		if live.session != nil {
			running = append(running, live.session)
		}
		live.mu.Unlock()
	}
	a.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range running {
		wg.Go(func() { s.Close(ctx) })
	}
	wg.Wait()
}
