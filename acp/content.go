package acp

// The decoding of a tool call's content and locations: the wire as the
// agent wrote it, in the types of items.go, with no rule of what to show.

import (
	"encoding/json"
	"strings"
)

// toolContent is one entry of a tool call's content.
type toolContent struct {
	Type    string          `json:"type"`
	Content json.RawMessage `json:"content"`
	Path    string          `json:"path"`
	OldText *string         `json:"oldText"`
	NewText string          `json:"newText"`
	Meta    json.RawMessage `json:"_meta"`
}

func contentEntries(content json.RawMessage) []toolContent {
	var entries []json.RawMessage
	_ = json.Unmarshal(content, &entries) // content that is not a list holds nothing known
	var list []toolContent
	for _, e := range entries {
		var tc toolContent
		if json.Unmarshal(e, &tc) == nil {
			list = append(list, tc)
		}
	}
	return list
}

// diffsOf decodes the diff entries of a tool call's content, a new file
// as a nil old text however the agent spells it. What a permission card
// shows is the harness's rule (harness/diff.go): these first, else the
// diffs it derives from rawInput.
func diffsOf(content json.RawMessage) []Diff {
	var diffs []Diff
	for _, e := range contentEntries(content) {
		if e.Type == "diff" {
			diffs = append(diffs, Diff{Path: e.Path, OldText: oldTextOf(e), NewText: e.NewText})
		}
	}
	return diffs
}

// oldTextOf is a diff's old text; nil for a new file. Gemini CLI writes a
// new file's diff with oldText "" and _meta.kind "add"
// (packages/cli/src/zed-integration/zedIntegration.ts). It is decoded
// here, once, because the tool's name reads it too (a Write, not an Edit).
func oldTextOf(e toolContent) *string {
	var meta struct {
		Kind string `json:"kind"`
	}
	if e.OldText != nil && *e.OldText == "" && json.Unmarshal(e.Meta, &meta) == nil && meta.Kind == "add" {
		return nil
	}
	return e.OldText
}

// contentText joins the text blocks of a tool call's content.
func contentText(content json.RawMessage) string {
	var texts []string
	for _, e := range contentEntries(content) {
		var block contentBlock
		if e.Type == "content" && json.Unmarshal(e.Content, &block) == nil && block.Type == "text" {
			texts = append(texts, block.Text)
		}
	}
	return strings.Join(texts, "\n")
}

func pathsOf(locations json.RawMessage) []string {
	var list []struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(locations, &list) // locations that are not a list name no path
	var paths []string
	for _, l := range list {
		if l.Path != "" {
			paths = append(paths, l.Path)
		}
	}
	return paths
}
