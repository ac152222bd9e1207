package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/kit"
)

// The facts the manifest declares, which the code must agree with.
const (
	wordsFile       = "data/words.txt"
	tokenKey        = "token"
	greetingSetting = "greeting"
	shoutSetting    = "shout"
	defaultGreeting = "Hello" // contributes.settings.greeting.default
	crashExitCode   = 3
	crashLines      = 3
)

// notes holds what the handlers share: the kit, where traces go, and how
// the program ends (os.Exit, replaced in tests).
type notes struct {
	plugin *kit.Plugin
	stderr io.Writer
	exit   func(code int)
}

// register adds the plugin's methods and events to plugin.
func register(plugin *kit.Plugin, stderr io.Writer, exit func(int)) {
	n := &notes{plugin: plugin, stderr: stderr, exit: exit}
	plugin.Handle("notes/greet", n.greet)
	plugin.Handle("notes/echo", echo)
	plugin.Handle("notes/crash", n.crash)
	plugin.Handle("notes/sleep", sleep)
	plugin.OnEvent("ticket.column", n.ticketColumn)
}

type greetParams struct {
	Name    string `json:"name"`
	Project string `json:"project,omitempty"`
}

type greetResult struct {
	Text  string `json:"text"`
	Words int    `json:"words"`
	Token bool   `json:"token"`
}

// greet answers "<greeting>, <name>!" with the user's settings, the line
// count of data/words.txt and whether a token is kept, never the token.
func (n *notes) greet(ctx context.Context, params json.RawMessage) (any, error) {
	in, err := kit.Decode[greetParams](params)
	if err != nil {
		return nil, err
	}
	if in.Name == "" {
		return nil, fmt.Errorf("%w: name is required", jsonrpc.ErrInvalidParams)
	}
	settings, err := n.plugin.Settings(ctx, in.Project)
	if err != nil {
		return nil, err
	}
	words, err := n.plugin.ReadFile(ctx, wordsFile)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("%s, %s!", stringSetting(settings, greetingSetting, defaultGreeting), in.Name)
	if boolSetting(settings, shoutSetting, false) {
		text = strings.ToUpper(text)
	}
	n.plugin.Log(kit.LevelInfo, "greeted "+in.Name)
	fmt.Fprintf(n.stderr, "go-notes: greeting %s\n", in.Name)
	return greetResult{Text: text, Words: countLines(words), Token: n.hasToken(ctx)}, nil
}

// hasToken reports whether the user keeps a token. A keychain out of reach
// is not the caller's fault: it reads as no token, with a warning.
func (n *notes) hasToken(ctx context.Context) bool {
	_, found, err := n.plugin.Secret(ctx, tokenKey)
	if err != nil {
		n.plugin.Log(kit.LevelWarn, "no token: "+err.Error())
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

// crash shows what the host does with a crash: a few stderr lines, then an
// exit without answering.
func (n *notes) crash(context.Context, json.RawMessage) (any, error) {
	for i := 1; i <= crashLines; i++ {
		fmt.Fprintf(n.stderr, "go-notes: crashing on purpose (%d/%d)\n", i, crashLines)
	}
	n.exit(crashExitCode)
	return nil, nil // reached only when exit returns, in tests
}

type sleepParams struct {
	Ms int `json:"ms"`
}

// sleep answers after ms milliseconds, to show the host's delay at work.
func sleep(ctx context.Context, params json.RawMessage) (any, error) {
	in, err := kit.Decode[sleepParams](params)
	if err != nil {
		return nil, err
	}
	if in.Ms < 0 {
		return nil, fmt.Errorf("%w: ms must not be negative", jsonrpc.ErrInvalidParams)
	}
	timer := time.NewTimer(time.Duration(in.Ms) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-timer.C:
		return map[string]int{"slept": in.Ms}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ticketColumn journals the event it gets.
func (n *notes) ticketColumn(_ context.Context, params json.RawMessage) {
	n.plugin.Log(kit.LevelInfo, "ticket.column: "+string(params))
}
