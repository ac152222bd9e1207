//go:build linux && amd64

package realagents

import (
	"path/filepath"
	"slices"
	"strings"
)

// step reads which step a prompt asks for: the word after "STEP-".
func stepOf(prompt string) string {
	i := strings.LastIndex(prompt, "STEP-")
	if i < 0 {
		return ""
	}
	if word := strings.Fields(prompt[i+len("STEP-"):]); len(word) > 0 {
		return word[0]
	}
	return ""
}

// offered makes a move unless the agent did not offer its tool: then the
// model says so, and the test's checks name what is missing.
func offered(tools []string, m move) move {
	if m.tool != "" && !slices.Contains(tools, m.tool) {
		return move{text: "The agent offered no tool " + m.tool + "; it offered " + strings.Join(tools, ", ")}
	}
	return m
}

// runCommand is the command of the step RUN: its effect is a file.
const runCommand = "echo " + ranMarker + " > ran.txt"

// claudeMoves plays Claude Code's own tools (Read, Write, Edit, Bash).
func claudeMoves(cwd string) script {
	return func(prompt string, tools []string) move {
		switch stepOf(prompt) {
		case "READ":
			return offered(tools, move{tool: "Read", input: map[string]any{"file_path": filepath.Join(cwd, "notes.txt")}})
		case "WRITE":
			return offered(tools, move{tool: "Write", input: map[string]any{"file_path": filepath.Join(cwd, "hello.txt"), "content": helloText}})
		case "EDIT":
			return offered(tools, move{tool: "Edit", input: map[string]any{"file_path": filepath.Join(cwd, "notes.txt"), "old_string": "7f3a", "new_string": "8d4c"}})
		case "RUN":
			return offered(tools, move{tool: "Bash", input: map[string]any{"command": runCommand, "description": "Write the marker"}})
		case "WAIT":
			return move{hang: true}
		}
		return move{text: "Nothing to do."}
	}
}

// codexMoves plays Codex's tools: exec_command for commands, and the
// apply_patch it intercepts in a command for writes and edits.
func codexMoves(cwd string) script {
	patch := func(body string) string {
		return "apply_patch <<'EOF'\n*** Begin Patch\n" + body + "*** End Patch\nEOF\n"
	}
	return func(prompt string, tools []string) move {
		exec := func(cmd string) move {
			return offered(tools, move{tool: "exec_command", input: map[string]any{"cmd": cmd, "workdir": cwd}})
		}
		switch stepOf(prompt) {
		case "READ":
			return exec("cat notes.txt")
		case "WRITE":
			return exec(patch("*** Add File: hello.txt\n+" + strings.TrimSuffix(helloText, "\n") + "\n"))
		case "EDIT":
			return exec(patch("*** Update File: notes.txt\n@@\n-" + strings.TrimSuffix(notesText, "\n") + "\n+" + strings.TrimSuffix(editedText, "\n") + "\n"))
		case "RUN":
			// Outside the sandbox, so that Codex asks, whatever its mode.
			return offered(tools, move{tool: "exec_command", input: map[string]any{"cmd": runCommand, "workdir": cwd,
				"sandbox_permissions": "require_escalated", "justification": "Write the marker file"}})
		case "WAIT":
			return move{hang: true}
		}
		return move{text: "Nothing to do."}
	}
}

// gooseMoves plays the tools of Goose's developer extension: shell,
// write {path, content} and edit {path, before, after}.
func gooseMoves(cwd string) script {
	return func(prompt string, tools []string) move {
		switch stepOf(prompt) {
		case "READ":
			return offered(tools, move{tool: "shell", input: map[string]any{"command": "cat " + filepath.Join(cwd, "notes.txt")}})
		case "WRITE":
			return offered(tools, move{tool: "write", input: map[string]any{"path": filepath.Join(cwd, "hello.txt"), "content": helloText}})
		case "EDIT":
			return offered(tools, move{tool: "edit", input: map[string]any{"path": filepath.Join(cwd, "notes.txt"), "before": "7f3a", "after": "8d4c"}})
		case "RUN":
			return offered(tools, move{tool: "shell", input: map[string]any{"command": "cd " + cwd + " && " + runCommand}})
		case "WAIT":
			return move{hang: true}
		}
		return move{text: "Nothing to do."}
	}
}
