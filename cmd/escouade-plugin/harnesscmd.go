package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/cmd/escouade-plugin/internal/console"
	"github.com/escouade-dev/escouade-plugin/harness"
	"github.com/escouade-dev/escouade-plugin/harness/mcp"
	"github.com/escouade-dev/escouade-plugin/harness/term"
	"github.com/escouade-dev/escouade-plugin/internal/safetext"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// harnessFlags are the flags of the harness command (docs/CLI.md#harness).
type harnessFlags struct {
	common
	harness, mode, model, cwd, agent string
	fences                           dirList
	json, update, list               bool
	cwdSet, agentSet                 bool // given on the command line
}

func (f *harnessFlags) register(fs *flag.FlagSet) {
	f.common.registerOnly(fs, harnessCommon)
	fs.StringVar(&f.harness, "harness", "", "the harness id (default: the plugin's first described harness)")
	fs.StringVar(&f.mode, "mode", "", "the app mode: default, acceptEdits, bypassPermissions, readOnly…")
	fs.StringVar(&f.model, "model", "", "the model id")
	fs.StringVar(&f.cwd, "cwd", ".", "the agent's folder")
	fs.StringVar(&f.agent, "agent", harness.DefaultAgent, "the agent's name: its conversation is kept under home and re-attached")
	fs.Var(&f.fences, "fence", "DIR: a private project's folder the agent must not touch (repeatable)")
	fs.BoolVar(&f.json, "json", false, "the JSON-lines console even in a terminal")
	fs.BoolVar(&f.list, "list", false, "list the agents kept under the home, as escouade-plugin agents does; nothing starts")
	fs.BoolVar(&f.update, "update", false, "print the command that updates the agent's program (updateCommand), for you to run; nothing starts")
}

// dirList is a repeatable folder flag.
type dirList []string

func (d *dirList) String() string     { return strings.Join(*d, ",") }
func (d *dirList) Set(s string) error { *d = append(*d, s); return nil }

func cmdHarness(e env, args []string) error {
	fs := flag.NewFlagSet("harness", flag.ContinueOnError)
	var f harnessFlags
	f.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	fs.Visit(func(fl *flag.Flag) {
		f.cwdSet = f.cwdSet || fl.Name == "cwd"
		f.agentSet = f.agentSet || fl.Name == "agent"
	})
	if f.list {
		if len(pos) != 0 {
			return usagef("--list takes no plugin folder: escouade-plugin harness --list [--json]")
		}
		return listAgents(e, f.homeDir(), f.json)
	}
	if err := harness.CheckAgentID(f.agent); err != nil {
		return usagef("--agent: %v", err)
	}
	dir, err := harnessFolder(&f, pos)
	if err != nil {
		return err
	}
	m, err := manifest.Load(dir, manifest.LoadOptions{AppVersion: f.appVersion})
	if err != nil {
		return err
	}
	h, err := harness.Pick(m, f.harness)
	if err != nil {
		return err
	}
	if f.update {
		return printUpdate(e, m.ID, h, f.json)
	}
	if err := harness.CheckMode(h, cmp.Or(f.mode, harness.DefaultMode)); err != nil {
		return usagef("--mode: %v", err) // a mode it does not offer is a mistake of the command line
	}
	if err := harnessSwitchedOn(f.homeDir(), m.ID); err != nil {
		return err
	}
	return runHarness(e, m, &f)
}

// harnessFolder is the plugin folder of the command: DIR, or with
// --agent ID alone the installed folder of that kept agent's plugin, its
// harness, folder and mode then coming from its record.
func harnessFolder(f *harnessFlags, pos []string) (string, error) {
	switch {
	case len(pos) == 1:
		return pos[0], nil
	case len(pos) == 0 && f.agentSet:
		return resumeAgent(f.homeDir(), f)
	}
	return "", usagef("want one plugin folder: escouade-plugin harness DIR (or --agent ID alone, to start a kept agent again)")
}

func runHarness(e env, m *manifest.Manifest, f *harnessFlags) error {
	cwd, err := filepath.Abs(f.cwd)
	if err != nil {
		return err
	}
	if err := checkFolder("--cwd", cwd, "the agent's folder"); err != nil {
		return err
	}
	for _, fence := range f.fences {
		if err := checkFolder("--fence", fence, "a private project's folder"); err != nil {
			return err
		}
	}
	// A run that fails at once leaves nothing under the home: what this
	// run makes there is removed again if the session does not start.
	undo := trackCreated(f.homeDir(), filepath.Join(f.homeDir(), harness.StoreDir))
	store, err := harness.OpenStore(f.homeDir())
	if err != nil {
		undo()
		return err
	}
	var session atomic.Pointer[harness.Session]
	ctx := context.Background()
	srv, err := mcp.Start(ctx, mcp.Options{Ask: func(ctx context.Context, _ string, q json.RawMessage) ([][]string, error) {
		if s := session.Load(); s != nil {
			return s.Ask(ctx, q)
		}
		return nil, harness.ErrClosed
	}})
	if err != nil {
		return err
	}
	defer srv.Close()
	con := newHarnessConsole(e, f.json || !isTerminal(e.stdin))
	history, _ := store.Conversation(f.agent) // no history to show is no reason to stop
	con.history(history)
	s, err := harness.Start(ctx, harness.Options{
		// A folder the person runs themselves, as under run: no consent checked.
		Manifest: m, Admit: registry.AnyFolder, Harness: f.harness, Agent: f.agent, Cwd: cwd, Fences: f.fences,
		Mode: f.mode, Model: f.model, Lang: f.lang, AppVersion: f.appVersion,
		MCP: srv, Store: store, OnItem: con.item,
	})
	if err != nil {
		undo()
		return err
	}
	session.Store(s)
	return con.serve(ctx, s)
}

// printUpdate prints how to update the agent's program: its
// updateCommand, shown and never run (docs/harness.md#the-harness-entry), else its install
// command for this system.
func printUpdate(e env, plugin string, h *manifest.Harness, asJSON bool) error {
	advice, err := harness.UpdateAdvice(h, runtime.GOOS)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(e.stdout, map[string]string{
			"harness": harness.ID(plugin, h.ID), "updateCommand": safetext.Line(h.UpdateCommand),
			"installCommand": safetext.Line(harness.InstallCommand(h, runtime.GOOS)), "message": safetext.Line(advice),
		})
	}
	fmt.Fprintln(e.stdout, safetext.Line(advice))
	return nil
}

// harnessSwitchedOn refuses to start an agent while the ACP harness is
// switched off, or while the plugin, installed under the home, is
// disabled: neither the app nor the command line runs what the user
// switched off. A folder that is not installed runs, as run runs it.
func harnessSwitchedOn(home, plugin string) error {
	on, err := harness.ACPEnabled(home)
	if err != nil {
		return err
	}
	if !on {
		return fmt.Errorf("the ACP harness %s is disabled: no described harness runs until it is enabled (escouade-plugin enable %s)", harness.ACPPluginID, harness.ACPPluginID)
	}
	reg, err := registry.Open(home)
	if err != nil {
		return err
	}
	if en, ok := reg.Get(plugin); ok && en.Disabled {
		return fmt.Errorf("%s is installed and disabled: its harnesses do not run until it is enabled (escouade-plugin enable %s)", plugin, plugin)
	}
	return nil
}

// checkFolder refuses a folder flag that names no folder, naming the flag
// and the folder rather than what would fail to start in it.
func checkFolder(flagName, dir, what string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usagef("%s %s: no such folder (fix: give %s, an existing folder)", flagName, dir, what)
	case err != nil:
		return usagef("%s %s: %s (fix: give %s, an existing folder)", flagName, dir, fileProblem(err), what)
	case !st.IsDir():
		return usagef("%s %s: not a folder (fix: give %s, an existing folder)", flagName, dir, what)
	}
	return nil
}

// trackCreated notes which of dirs (parents first) do not exist yet; the
// returned func removes those, if they hold nothing but what the others
// made, deepest first.
func trackCreated(dirs ...string) func() {
	var missing []string
	for _, d := range dirs {
		if _, err := os.Lstat(d); err != nil {
			missing = append(missing, d)
		}
	}
	return func() {
		for i := len(missing) - 1; i >= 0; i-- {
			removeIfEmpty(missing[i])
		}
	}
}

// removeIfEmpty removes dir and what a failed start leaves in it: an
// empty folder tree. A file means someone else wrote there: it stays.
func removeIfEmpty(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, en := range entries {
		if !en.IsDir() {
			return
		}
		removeIfEmpty(filepath.Join(dir, en.Name()))
	}
	os.Remove(dir)
}

// isTerminal tells whether r is a character device: a person types there.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// harnessConsole is the harness command's input and output: JSON lines, or the
// terminal rendering.
type harnessConsole struct {
	e        env
	json     bool
	mu       sync.Mutex
	renderer term.Renderer

	// What the end of input waits for: cards waiting for an answer
	// (guarded by mu); changed is signalled on every item.
	cards   int
	changed chan struct{}

	// files are what /attach gave for the next typed prompt.
	files []string
}

func newHarnessConsole(e env, jsonLines bool) *harnessConsole {
	return &harnessConsole{e: e, json: jsonLines, renderer: term.Renderer{Color: !jsonLines}, changed: make(chan struct{}, 1)}
}

func (c *harnessConsole) history(items []acp.Item) {
	for _, it := range items {
		it.History = true
		c.item(it)
	}
}

// item writes one conversation item.
func (c *harnessConsole) item(it acp.Item) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.track(it)
	if c.json {
		c.writeJSON(itemLine{Op: "item", Item: it})
		return
	}
	io.WriteString(c.e.stdout, c.renderer.Render(it))
}

type itemLine struct {
	Op   string   `json:"op"`
	Item acp.Item `json:"item"`
}

// track counts running turns and waiting cards from the items. Called with
// mu held.
func (c *harnessConsole) track(it acp.Item) {
	if it.History {
		return
	}
	switch it.Type {
	case acp.TypePermission, acp.TypeQuestion:
		c.cards++
	case acp.TypeAnswered:
		c.cards = max(c.cards-1, 0)
	case acp.TypeTurn, acp.TypeClosed:
		c.cards = 0
	}
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// drain waits, at the end of input, for the turns under way to end; a card
// then waits for an answer nobody can give, so the turn is cancelled.
func (c *harnessConsole) drain(s *harness.Session) {
	cancelled := false
	for s.Busy() {
		c.mu.Lock()
		cards := c.cards
		c.mu.Unlock()
		if cards > 0 && !cancelled {
			cancelled = true
			s.Cancel()
		}
		select {
		case <-s.Done():
			return
		case <-c.changed:
		}
	}
}

func (c *harnessConsole) writeJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"op": "error", "message": err.Error()})
	}
	c.e.stdout.Write(append(b, '\n'))
}

func (c *harnessConsole) problem(msg string) {
	if c.json {
		c.mu.Lock()
		c.writeJSON(map[string]string{"op": "error", "message": msg})
		c.mu.Unlock()
		return
	}
	c.item(acp.Item{Type: acp.TypeNotice, Text: msg})
}

// serve reads commands until close, the end of input or the agent's end.
// The reader of a terminal that never ends is left to the process's exit.
func (c *harnessConsole) serve(ctx context.Context, s *harness.Session) error {
	lines := make(chan string)
	go func() {
		defer close(lines)
		br := bufio.NewReader(c.e.stdin)
		for {
			l, err := br.ReadString('\n')
			if strings.TrimSpace(l) != "" {
				lines <- l
			}
			if err != nil {
				return
			}
		}
	}()
	for {
		select {
		case <-s.Done():
			s.Wait()
			return nil
		case l, ok := <-lines:
			if !ok {
				c.drain(s) // the end of input: let the turns under way end
				return s.Close(ctx)
			}
			if c.command(s, strings.TrimSpace(l)) {
				return s.Close(ctx)
			}
		}
	}
}

// command runs one input line; true asks to close.
func (c *harnessConsole) command(s *harness.Session, line string) bool {
	if c.json {
		return c.jsonCommand(s, line)
	}
	return c.typed(s, line)
}

// consoleOp is one input line of the JSON console (docs/harness.md#the-json-console).
type consoleOp struct {
	Op      string     `json:"op"`
	Text    string     `json:"text"`
	Files   []string   `json:"files"`
	Request string     `json:"request"`
	Kind    string     `json:"kind"`
	Option  string     `json:"option"`
	Answers [][]string `json:"answers"`
	Mode    string     `json:"mode"`
	Model   string     `json:"model"`
}

func (c *harnessConsole) jsonCommand(s *harness.Session, line string) bool {
	var op consoleOp
	if err := json.Unmarshal([]byte(line), &op); err != nil {
		c.problem(fmt.Sprintf(`not a command: %s (a command is one JSON object per line, e.g. {"op":"prompt","text":"hello"})`, console.DescribeJSONError(err)))
		return false
	}
	var err error
	switch op.Op {
	case "prompt":
		if len(op.Files) > 0 {
			err = s.PromptFiles(op.Text, op.Files)
		} else {
			err = s.Prompt(op.Text)
		}
	case "answer":
		if op.Option != "" {
			err = s.AnswerOption(op.Request, op.Option)
		} else {
			err = s.Answer(op.Request, op.Kind)
		}
	case "answerQuestion":
		err = s.AnswerQuestion(op.Request, op.Answers)
	case "cancel":
		err = s.Cancel()
	case "mode":
		err = s.SetMode(op.Mode)
	case "model":
		err = s.SetModel(op.Model)
	case "close":
		return true
	default:
		c.problem(fmt.Sprintf("unknown op %q: want prompt, answer, answerQuestion, cancel, mode, model or close", op.Op))
	}
	if err != nil {
		c.problem(err.Error())
	}
	return false
}

// typed runs a line a person typed: a card's answer when one waits, a
// /command, or a prompt.
func (c *harnessConsole) typed(s *harness.Session, line string) bool {
	c.mu.Lock()
	card, waiting := c.renderer.Waiting()
	c.mu.Unlock()
	var err error
	switch {
	case line == "/quit" || line == "/close":
		return true
	case line == "/cancel":
		err = s.Cancel()
	case strings.HasPrefix(line, "/mode "):
		err = s.SetMode(strings.TrimSpace(strings.TrimPrefix(line, "/mode ")))
	case strings.HasPrefix(line, "/model "):
		err = s.SetModel(strings.TrimSpace(strings.TrimPrefix(line, "/model ")))
	case strings.HasPrefix(line, "/attach "):
		path := strings.TrimSpace(strings.TrimPrefix(line, "/attach "))
		c.files = append(c.files, path)
		c.item(acp.Item{Type: acp.TypeNotice, Text: path + " goes with the next prompt"})
	case waiting:
		err = c.answerCard(s, card, line)
	case len(c.files) > 0:
		err = s.PromptFiles(line, c.files)
		c.files = nil // refused or sent, they were for this prompt
	default:
		err = s.Prompt(line)
	}
	if err != nil {
		c.problem(err.Error())
	}
	return false
}

func (c *harnessConsole) answerCard(s *harness.Session, card acp.Item, line string) error {
	if card.Type == acp.TypePermission {
		kind, err := term.PermissionKey(card, line)
		if err != nil {
			return err
		}
		return s.Answer(card.Request, kind)
	}
	answers, err := term.ParseAnswer(card, line)
	if err != nil {
		return err
	}
	return s.AnswerQuestion(card.Request, answers)
}
