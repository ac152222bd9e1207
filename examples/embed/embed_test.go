package embed_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/harness"
	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// notesID is the id of the plugin the app installs and calls.
const notesID = "dev.escouade.example.python-notes"

// Example_app is an app that embeds the host: it installs two plugins
// with the person's consent, calls one, reads its journal, runs an agent
// the other describes, answers the agent's permission card, and closes.
func Example_app() {
	ctx := context.Background()

	install(ctx, notesFolder)
	install(ctx, agentFolder)

	h := newHost(ctx)
	notes, err := h.AddInstalled(notesID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("granted secrets:", notes.Granted().Secrets)

	factAndCall(ctx, h, notes)
	strayIsRefused(ctx, h)
	printJournal(notes)
	agentWithCard(ctx)

	if err := h.Close(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println("closed:", notes.Status().State, notes.Status().Reason)

	// Output:
	// Install Notes (Python) 0.1.0 (dev.escouade.example.python-notes)
	// It runs a program on your computer, with your rights: python3 notes.py.
	// It asks for secrets: token
	// It gets only these variables of your environment, where you have them: PATH, HOME, USER, LOGNAME, SHELL, TMPDIR, LANG, LANGUAGE, LC_*, TZ, XDG_CONFIG_HOME, XDG_CACHE_HOME, XDG_DATA_HOME, XDG_STATE_HOME, XDG_CONFIG_DIRS, XDG_DATA_DIRS, and HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY when they hold no user or password; no other: no key or token of Escouade's environment.
	// Install Fake ACP 1.0.0 (dev.escouade.fake-acp)
	// It runs no program of its own: it only describes what it adds.
	// Its agents run a program on your computer, with your rights: fake-acp
	// granted secrets: [token]
	// fact journaled: log.info ticket.column: {"column":"done","ticket":7}
	// call answered: {"text":"Hello, Ada!","words":5,"token":true}
	// stray: default answer "stopped": not started: it is not installed: install it first
	// journal: start
	// journal: ready initialize answered: {"protocolVersion":1,"capabilities":{"batch":true}}
	// journal: log.info ticket.column: {"column":"done","ticket":7}
	// journal: log.info greeted Ada
	// journal: secret key "token" asked for
	// harness: plugin:dev.escouade.fake-acp:fake-acp (Fake ACP)
	// agent says: I will list the folder.
	// card: shell · ls: Allow (allow_once), Reject (reject_once)
	// answered: allow_once
	// agent says: permission: selected yes
	// tool done: shell · ls completed
	// turn ended: end_turn
	// closed: stopped the host closed
}

// install is the install window of an app: read the folder, show what the
// plugin runs and asks for, and record the person's yes.
func install(ctx context.Context, folder string) {
	offer, err := registry.Prepare(ctx, home, folder, registry.InstallOptions{
		Compile: modules.Compiler(home, ""),
	})
	if err != nil {
		log.Fatal(err)
	}
	// Every text of the window is escaped: print it anywhere.
	offer.Window("en").Print(os.Stdout)
	// The person said yes to all it asks: that is what is granted.
	if _, err := offer.Accept(offer.Granted()); err != nil {
		log.Fatal(err)
	}
}

// newHost makes the app's host over its home, with every kind of program
// and the keychain the plugins' secrets are read from.
func newHost(ctx context.Context) *host.Host {
	kc := keychain.NewMemory()
	if err := kc.Set(keychain.Service, keychain.PluginName(notesID, "token"), "s3cret"); err != nil {
		log.Fatal(err)
	}
	opts := host.Options{Home: home, Keychain: kc}
	if _, err := modules.Configure(ctx, &opts, modules.Options{Home: home}); err != nil {
		log.Fatal(err)
	}
	return host.New(opts)
}

// factAndCall tells a fact the plugin listens to (which starts it) and
// waits for the line its handler logs, then calls one of its methods.
func factAndCall(ctx context.Context, h *host.Host, notes *host.Plugin) {
	logged := make(chan string, 1)
	cancel := notes.Journal().Subscribe(func(line string) {
		if _, text, ok := strings.Cut(line, " log.info ticket.column: "); ok {
			select {
			case logged <- "log.info ticket.column: " + text:
			default:
			}
		}
	})
	h.Fact("ticket.column", map[string]any{"ticket": 7, "column": "done"})
	fmt.Println("fact journaled:", <-logged)
	cancel()

	out := notes.Call(ctx, "notes/greet", map[string]any{"name": "Ada"})
	if out.IsDefault() {
		log.Fatalf("default answer %q: %s", out.Default, out.Reason)
	}
	if out.Error != nil {
		log.Fatal(out.Error.Message)
	}
	fmt.Printf("call answered: %s\n", out.Result)
}

// strayIsRefused adds a folder the person never installed: the host does
// not start it, and its calls get the default answer.
func strayIsRefused(ctx context.Context, h *host.Host) {
	m, err := manifest.Load(strayFolder, manifest.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	stray, err := h.Add(m, host.Config{})
	if err != nil {
		log.Fatal(err)
	}
	out := stray.Call(ctx, "hello/greet", map[string]any{"name": "Ada"})
	reason, _, _ := strings.Cut(out.Reason, " (") // the rest names the folder
	fmt.Printf("stray: default answer %q: %s\n", out.Default, reason)
}

// printJournal prints the plugin's journal, its tag and text, without the
// time. Its stderr lines come through a pipe of their own, so where they
// fall among the others is not fixed; a start's text holds the pid.
func printJournal(notes *host.Plugin) {
	lines, err := notes.Journal().Tail(100)
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range lines {
		_, tagged, _ := strings.Cut(line, " ")
		tag, _, _ := strings.Cut(tagged, " ")
		switch tag {
		case "stderr":
		case "start":
			fmt.Println("journal:", tag)
		default:
			fmt.Println("journal:", tagged)
		}
	}
}

// agentWithCard starts an agent of the harness the second plugin
// describes, prompts it, and answers its permission card.
func agentWithCard(ctx context.Context) {
	agents, err := harness.OpenAgents(harness.AgentsOptions{Home: home})
	if err != nil {
		log.Fatal(err)
	}
	defer agents.Close(ctx)

	// The Harness menu: described harnesses of installed, enabled plugins.
	choices, err := agents.Harnesses()
	if err != nil || len(choices) == 0 {
		log.Fatal("no harness to offer: ", err)
	}
	fmt.Printf("harness: %s (%s)\n", choices[0].ID, choices[0].Name)

	id, err := agents.Start(ctx, harness.NewAgent{Harness: choices[0].ID, Cwd: projectFolder})
	if err != nil {
		log.Fatal(err)
	}
	// The callback runs on the agent's goroutine and must not block: the
	// channel holds more than this turn's items.
	items := make(chan acp.Item, 64)
	_, unsubscribe, err := agents.Subscribe(id, func(it acp.Item) { items <- it })
	if err != nil {
		log.Fatal(err)
	}
	defer unsubscribe()
	if err := agents.Prompt(ctx, id, "list the folder"); err != nil {
		log.Fatal(err)
	}
	for it := range items {
		switch it.Type {
		case acp.TypeText:
			fmt.Println("agent says:", it.Text)
		case acp.TypePermission:
			fmt.Printf("card: %s: %s\n", it.Title, optionsOf(it))
			// The person pressed Allow once.
			if err := agents.AnswerPermission(id, it.Request, optionOfKind(it, harness.KindAllowOnce)); err != nil {
				log.Fatal(err)
			}
		case acp.TypeAnswered:
			fmt.Println("answered:", it.Kind)
		case acp.TypeToolDone:
			fmt.Println("tool done:", it.Title, it.Status)
		case acp.TypeTurn, acp.TypeClosed:
			fmt.Println("turn ended:", it.StopReason)
			return
		}
	}
}

// optionsOf lists a card's options: the agent names each, and an app
// labels it by its kind, whatever the name.
func optionsOf(card acp.Item) string {
	var shown []string
	for _, o := range card.Options {
		shown = append(shown, fmt.Sprintf("%s (%s)", o.Name, o.Kind))
	}
	return strings.Join(shown, ", ")
}

// optionOfKind is the id of the card's first option of that kind.
func optionOfKind(card acp.Item, kind string) string {
	for _, o := range card.Options {
		if o.Kind == kind {
			return o.ID
		}
	}
	log.Fatalf("the card offers no %s option", kind)
	return ""
}
