package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/kit"
)

// The facts the manifest declares, which the code must agree with.
const (
	greetingsFile   = "greetings.json" // a JSON file at the plugin's root
	tokenKey        = "token"          // permissions.secrets
	greetingSetting = "greeting"
	shoutSetting    = "shout"
	defaultGreeting = "Hello" // contributes.settings.greeting.default
	maxDelay        = time.Minute
)

// greetings is greetings.json.
type greetings struct {
	Punctuation string            `json:"punctuation"`
	Emoji       map[string]string `json:"emoji"`
}

// hello holds what the handlers share.
type hello struct {
	plugin    *kit.Plugin
	greetings func() (greetings, error)
}

// register adds the plugin's methods and events to plugin.
func register(plugin *kit.Plugin) {
	h := &hello{plugin: plugin, greetings: sync.OnceValues(loadGreetings)}
	plugin.Handle("hello/greet", h.greet)
	plugin.Handle("hello/echo", echo)
	plugin.OnEvent("ticket.column", h.ticketColumn)
}

// rootFile reads a file at the root of the plugin folder: a module finds
// the root JSON files in its read-only /plugin directory, a process runs
// in the plugin folder.
func rootFile(name string) ([]byte, error) {
	if runtime.GOOS == "wasip1" {
		return os.ReadFile("/plugin/" + name)
	}
	return os.ReadFile(name)
}

func loadGreetings() (greetings, error) {
	var g greetings
	b, err := rootFile(greetingsFile)
	if err != nil {
		return g, err
	}
	if err := json.Unmarshal(b, &g); err != nil {
		return g, fmt.Errorf("%s: %v", greetingsFile, err)
	}
	return g, nil
}

type greetParams struct {
	Name    string `json:"name"`
	Project string `json:"project,omitempty"`
	// DelayMs waits this long first, on a timer (timer/set in a module).
	DelayMs int `json:"delayMs,omitempty"`
}

type greetResult struct {
	Text   string `json:"text"`
	Emoji  string `json:"emoji"`
	Token  bool   `json:"token"`
	Waited int    `json:"waited"`
}

// greet answers "<greeting>, <name><punctuation>" with the user's
// settings and greetings.json, the emoji of the host's language, and
// whether a token is kept, never the token.
func (h *hello) greet(ctx context.Context, params json.RawMessage) (any, error) {
	in, err := kit.Decode[greetParams](params)
	if err != nil {
		return nil, err
	}
	if in.Name == "" {
		return nil, fmt.Errorf("%w: name is required", jsonrpc.ErrInvalidParams)
	}
	delay := time.Duration(in.DelayMs) * time.Millisecond
	if delay < 0 || delay > maxDelay {
		return nil, fmt.Errorf("%w: delayMs must be between 0 and %d", jsonrpc.ErrInvalidParams, maxDelay.Milliseconds())
	}
	if delay > 0 {
		if err := h.plugin.Sleep(ctx, delay); err != nil {
			return nil, err
		}
	}
	g, err := h.greetings()
	if err != nil {
		return nil, err
	}
	settings, err := h.plugin.Settings(ctx, in.Project)
	if err != nil {
		return nil, err
	}
	greeting, _ := settings[greetingSetting].(string)
	if greeting == "" {
		greeting = defaultGreeting
	}
	text := greeting + ", " + in.Name + g.Punctuation
	if shout, _ := settings[shoutSetting].(bool); shout {
		text = strings.ToUpper(text)
	}
	h.plugin.Log(kit.LevelInfo, "greeted "+in.Name)
	fmt.Fprintf(os.Stderr, "hello-wasm: greeting %s\n", in.Name)
	return greetResult{Text: text, Emoji: h.emoji(g), Token: h.hasToken(ctx), Waited: in.DelayMs}, nil
}

// emoji is the emoji of the host's language, else of English.
func (h *hello) emoji(g greetings) string {
	if e, ok := g.Emoji[h.plugin.Init().Lang]; ok {
		return e
	}
	return g.Emoji["en"]
}

// hasToken reports whether the user keeps a token. A keychain out of reach
// reads as no token, with a warning.
func (h *hello) hasToken(ctx context.Context) bool {
	_, found, err := h.plugin.Secret(ctx, tokenKey)
	if err != nil {
		h.plugin.Log(kit.LevelWarn, "no token: "+err.Error())
	}
	return found
}

// echo answers its params unchanged.
func echo(_ context.Context, params json.RawMessage) (any, error) {
	if params == nil {
		return nil, nil
	}
	return params, nil
}

// ticketColumn logs the event.
func (h *hello) ticketColumn(_ context.Context, params json.RawMessage) {
	h.plugin.Log(kit.LevelInfo, "ticket.column: "+string(params))
}
