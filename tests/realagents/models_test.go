//go:build linux && amd64

package realagents

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A move is what the scripted model does next: call a tool, say a text,
// or start a text and wait until its client goes away (a turn to cancel).
type move struct {
	tool  string         // the tool to call, as the agent offered it
	input map[string]any // its arguments
	text  string
	hang  bool
}

// A script picks the model's move from the last prompt of the
// conversation and the names of the tools the agent offered; after a
// tool's result the model ends the turn with a text.
type script func(prompt string, tools []string) move

// modelServer is a scripted model server on 127.0.0.1; it keeps every
// request it was sent for the failure messages.
type modelServer struct {
	*httptest.Server
	stop     chan struct{}
	mu       sync.Mutex
	requests []string
	bodies   []string
	tools    []string // the tools offered in the first request that had any
}

// keepTools notes the tools the agent offered the model.
func (m *modelServer) keepTools(tools []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tools == nil && len(tools) > 0 {
		m.tools = tools
	}
}

// offeredTools gives the tools the agent offered the model.
func (m *modelServer) offeredTools() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tools
}

// saw says whether a request held text: what a tool gave the agent
// reached the model.
func (m *modelServer) saw(text string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, b := range m.bodies {
		if strings.Contains(b, text) {
			return true
		}
	}
	return false
}

func (m *modelServer) keep(path string, body []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, path+" "+truncate(string(body), 600))
	m.bodies = append(m.bodies, string(body))
	if dir := os.Getenv("REALAGENTS_DUMP"); dir != "" {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%p-%d.json", m, len(m.requests))), body, 0o644)
	}
}

// asked is how many requests the server was sent, to number its answers'
// ids; handlers of concurrent requests read it.
func (m *modelServer) asked() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}

// seen lists the paths and the start of the bodies the server was sent.
func (m *modelServer) seen() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.requests, "\n")
}

func newModelServer(t *testing.T, handler func(m *modelServer, w http.ResponseWriter, r *http.Request, body []byte)) *modelServer {
	m := &modelServer{stop: make(chan struct{})}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
		m.keep(r.Method+" "+r.URL.Path, body)
		handler(m, w, r, body)
	}))
	// A hanging answer ends when the test does, so Close does not wait.
	t.Cleanup(func() { close(m.stop); m.Close() })
	return m
}

// hang holds an answer open until the client goes away or the test ends.
func (m *modelServer) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-m.stop:
	}
}

// sse writes one server-sent event and flushes it.
func sse(w http.ResponseWriter, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	w.(http.Flusher).Flush()
}

// anthropicServer speaks the Anthropic Messages API (POST /v1/messages),
// streamed as server-sent events when the request says "stream": true:
// message_start, content_block_start/delta/stop (text_delta,
// input_json_delta), message_delta with the stop reason and the usage,
// message_stop.
func anthropicServer(t *testing.T, play script) *modelServer {
	return newModelServer(t, func(m *modelServer, w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
			http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"not here"}}`, http.StatusNotFound)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Stream   bool   `json:"stream"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad body"}}`, http.StatusBadRequest)
			return
		}
		var tools []string
		for _, tl := range req.Tools {
			tools = append(tools, tl.Name)
		}
		m.keepTools(tools)
		next := move{text: "Done."}
		// Claude Code ends its messages with a system one: the last
		// message of the conversation is the last that is not.
		last := req.Messages[len(req.Messages)-1]
		for i := len(req.Messages) - 1; i > 0 && last.Role == "system"; i-- {
			last = req.Messages[i-1]
		}
		prompt, afterTool := anthropicLastUser(last.Content)
		if last.Role == "user" && !afterTool && len(tools) > 0 {
			next = play(prompt, tools)
		}
		if !req.Stream {
			anthropicWhole(w, req.Model, next)
			return
		}
		anthropicStream(m, w, r, req.Model, next)
	})
}

// anthropicLastUser gives the text of a user message, and whether it
// carries a tool's result.
func anthropicLastUser(content json.RawMessage) (string, bool) {
	var text string
	if json.Unmarshal(content, &text) == nil {
		return text, false
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(content, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "tool_result" {
			return "", true
		}
		b.WriteString(bl.Text + "\n")
	}
	return b.String(), false
}

var anthropicUsage = map[string]any{"input_tokens": 120, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}

func anthropicWhole(w http.ResponseWriter, model string, next move) {
	content := []any{map[string]any{"type": "text", "text": next.text}}
	stop := "end_turn"
	if next.tool != "" {
		content = []any{map[string]any{"type": "tool_use", "id": "toolu_" + next.tool, "name": next.tool, "input": next.input}}
		stop = "tool_use"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": "msg_whole", "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 120, "output_tokens": 12}})
}

func anthropicStream(m *modelServer, w http.ResponseWriter, r *http.Request, model string, next move) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_" + fmt.Sprint(m.asked()), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": anthropicUsage}})
	text := next.text
	if next.hang {
		text = "Thinking it over"
	}
	if text != "" {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		for _, piece := range strings.SplitAfter(text, " ") {
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": piece}})
		}
		if next.hang {
			m.hang(r)
			return
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	}
	stop := "end_turn"
	if next.tool != "" {
		stop = "tool_use"
		index := 0
		if text != "" {
			index = 1
		}
		args, _ := json.Marshal(next.input)
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": map[string]any{
			"type": "tool_use", "id": "toolu_" + strings.ToLower(next.tool) + fmt.Sprint(m.asked()), "name": next.tool, "input": map[string]any{}}})
		// The arguments come in two pieces, as the API splits them.
		half := len(args) / 2
		for _, piece := range []string{string(args[:half]), string(args[half:])} {
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": piece}})
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 12}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// openAIServer speaks the OpenAI Responses API (POST /v1/responses),
// streamed: response.created, response.output_item.added/done for a
// function call or a message (with response.output_text.delta between),
// response.completed with the usage.
func openAIServer(t *testing.T, play script) *modelServer {
	return newModelServer(t, func(m *modelServer, w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object":"list","data":[],"models":[]}`)
			return
		}
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
			http.Error(w, `{"error":{"message":"not here","type":"invalid_request_error"}}`, http.StatusNotFound)
			return
		}
		var req struct {
			Input []json.RawMessage `json:"input"`
			Tools []struct {
				Type string `json:"type"`
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(body, &req); err != nil || len(req.Input) == 0 {
			http.Error(w, `{"error":{"message":"bad body","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		var tools []string
		for _, tl := range req.Tools {
			tools = append(tools, tl.Name)
		}
		m.keepTools(tools)
		next := move{text: "Done."}
		if prompt, afterTool := openAILastUser(req.Input); !afterTool && len(tools) > 0 {
			next = play(prompt, tools)
		}
		openAIStream(m, w, r, next, req.Tools)
	})
}

// openAILastUser gives the text of the last user message, and whether a
// tool's result came after it. Codex adds messages of its own (its
// environment, its permissions) around the user's: the prompt is the
// last user message that is not one of those, marked by "<".
func openAILastUser(input []json.RawMessage) (string, bool) {
	for i := len(input) - 1; i >= 0; i-- {
		var it struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		json.Unmarshal(input[i], &it)
		if strings.HasSuffix(it.Type, "_output") {
			return "", true
		}
		if it.Role != "user" || len(it.Content) == 0 || strings.HasPrefix(it.Content[0].Text, "<") {
			continue
		}
		var b strings.Builder
		for _, c := range it.Content {
			b.WriteString(c.Text + "\n")
		}
		return b.String(), false
	}
	return "", false
}

func openAIStream(m *modelServer, w http.ResponseWriter, r *http.Request, next move, offered []struct {
	Type string `json:"type"`
	Name string `json:"name"`
}) {
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("resp_%d", m.asked())
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	if next.tool != "" {
		item := map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": "call_" + id, "name": next.tool, "status": "completed"}
		args, _ := json.Marshal(next.input)
		item["arguments"] = string(args)
		for _, o := range offered {
			// A freeform tool (apply_patch) takes its input as text.
			if o.Name == next.tool && o.Type == "custom" {
				item = map[string]any{"type": "custom_tool_call", "id": "ctc_" + id, "call_id": "call_" + id, "name": next.tool, "input": next.input["input"], "status": "completed"}
			}
		}
		sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	} else {
		text := next.text
		if next.hang {
			text = "Thinking it over"
		}
		msg := map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "in_progress", "content": []any{}}
		sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": msg})
		for _, piece := range strings.SplitAfter(text, " ") {
			sse(w, "response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": "msg_" + id, "output_index": 0, "content_index": 0, "delta": piece})
		}
		if next.hang {
			m.hang(r)
			return
		}
		msg["status"] = "completed"
		msg["content"] = []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}
		sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": msg})
	}
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": id, "usage": map[string]any{
		"input_tokens": 120, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 12, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 132}}})
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
