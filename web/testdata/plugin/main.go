// Command plugin is the plugin the Plugins view's tests install: it reads
// its secrets and settings when asked, logs, and crashes on demand. It
// speaks protocol 1 with the standard library alone, so the view's tests
// depend on nothing but the host.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

var (
	outMu   sync.Mutex
	out     = json.NewEncoder(os.Stdout)
	mu      sync.Mutex
	nextID  = 1
	waiting = map[string]chan message{}
)

func send(m message) {
	m.JSONRPC = "2.0"
	outMu.Lock()
	defer outMu.Unlock()
	out.Encode(m)
}

// ask calls the host and waits for its answer.
func ask(method string, params any) message {
	raw, _ := json.Marshal(params)
	mu.Lock()
	id := fmt.Sprint(nextID)
	nextID++
	ch := make(chan message, 1)
	waiting[id] = ch
	mu.Unlock()
	send(message{ID: json.RawMessage(id), Method: method, Params: raw})
	return <-ch
}

func answer(id json.RawMessage, result any) {
	raw, _ := json.Marshal(result)
	send(message{ID: id, Result: raw})
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 8<<20)
	for in.Scan() {
		var m message
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		if m.Method == "" { // an answer to one of ours
			mu.Lock()
			ch := waiting[string(m.ID)]
			delete(waiting, string(m.ID))
			mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		go serve(m)
	}
}

func serve(m message) {
	var p struct{ Key, Message string }
	json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "initialize":
		answer(m.ID, map[string]any{"protocolVersion": 1, "capabilities": map[string]bool{}})
	case "shutdown":
		answer(m.ID, nil)
		os.Exit(0)
	case "fixture/secret":
		// The host's answer goes back as is, its error code included.
		a := ask("secrets/get", map[string]string{"key": p.Key})
		var value string
		if json.Unmarshal(a.Result, &value) == nil && value != "" {
			// A careless plugin: the journal must mask it.
			fmt.Fprintln(os.Stderr, "got the secret "+value)
		}
		send(message{ID: m.ID, Result: a.Result, Error: a.Error})
	case "fixture/settings":
		a := ask("settings/get", map[string]any{})
		send(message{ID: m.ID, Result: a.Result, Error: a.Error})
	case "fixture/log":
		raw, _ := json.Marshal(map[string]string{"level": "info", "message": p.Message})
		send(message{Method: "log", Params: raw})
		answer(m.ID, "logged")
	case "fixture/pid":
		answer(m.ID, os.Getpid())
	case "fixture/crash":
		fmt.Fprintln(os.Stderr, "crashing on purpose")
		os.Exit(3)
	default:
		if m.ID != nil {
			send(message{ID: m.ID, Error: json.RawMessage(`{"code":-32601,"message":"Method not found"}`)})
		}
	}
}
