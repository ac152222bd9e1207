//go:build linux && amd64

package realagents

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// realAgent says how to run one agent from npm against its model server.
type realAgent struct {
	name   string
	pkg    npmPackage
	plugin string // the plugin folder describing it
	// program is the name the plugin's locate.names looks for.
	program string
	server  func(t *testing.T, play script) *modelServer
	// env gives the variables pointing the agent at its model server,
	// with home as its configuration folder.
	env func(t *testing.T, srv *modelServer, home string) []string
	// moves is the model's script for a conversation in cwd, in the
	// agent's own tools.
	moves func(cwd string) script
	// readTool is the app name of the tool that reads a file.
	readTool string
	// writeName is the app name of the card of a new file.
	writeName string
	// acceptEdits is the agent's own mode for the app mode acceptEdits.
	acceptEdits string
	// helpers are more programs it runs by name: name → path in its
	// install folder.
	helpers map[string]string
	// needTools are tools the model must be offered.
	needTools []string
}

var agents = map[string]realAgent{
	"claude": {
		name: "Claude Code", pkg: claudePkg, plugin: "testdata/claude", program: "claude-agent-acp",
		server: anthropicServer, moves: claudeMoves,
		readTool: "Read", writeName: "Write", acceptEdits: "acceptEdits",
		env: func(t *testing.T, srv *modelServer, home string) []string {
			return []string{"ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=sk-ant-test",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
				// As root, Claude Code offers its mode bypassPermissions only
				// inside a sandbox, which this variable says it is.
				"IS_SANDBOX=1"}
		},
	},
	"codex": {
		name: "Codex", pkg: codexPkg, plugin: "testdata/codex", program: "codex-acp",
		server: openAIServer, moves: codexMoves,
		readTool: "Read", writeName: "Write", acceptEdits: "auto",
		// Codex runs its commands under bubblewrap, which runs Codex's own
		// program again by the name codex-linux-sandbox, looked up in PATH.
		helpers: map[string]string{"codex-linux-sandbox": "node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp"},
		env:     codexEnv,
	},
	"goose": {
		name: "Goose", pkg: goosePkg, plugin: "../../plugins/goose", program: "goose",
		server: anthropicServer, moves: gooseMoves,
		readTool: "Bash", writeName: "Write", acceptEdits: "smart_approve",
		// The developer extension's tools, which plugins/goose gives it
		// (docs/RATIONALE.md#why-is-goose-given-its-developer-tools).
		needTools: []string{"shell", "write", "edit"},
		env: func(t *testing.T, srv *modelServer, home string) []string {
			return []string{"GOOSE_PROVIDER=anthropic", "GOOSE_MODEL=claude-sonnet-4-5", "ANTHROPIC_HOST=" + srv.URL,
				"ANTHROPIC_API_KEY=sk-ant-test", "GOOSE_DISABLE_KEYRING=1", "GOOSE_TELEMETRY_ENABLED=false"}
		},
	},
}

// codexEnv gives Codex a model provider of its own, the scripted server,
// in its configuration folder.
func codexEnv(t *testing.T, srv *modelServer, home string) []string {
	codexHome := filepath.Join(home, ".codex")
	config := `model = "gpt-5-codex"
model_provider = "scripted"
[model_providers.scripted]
name = "scripted"
base_url = "` + srv.URL + `/v1"
wire_api = "responses"
env_key = "SCRIPTED_OPENAI_KEY"
request_max_retries = 0
stream_max_retries = 0
`
	mustWrite(t, filepath.Join(codexHome, "config.toml"), config)
	return []string{"CODEX_HOME=" + codexHome, "SCRIPTED_OPENAI_KEY=sk-test"}
}

// pathFor makes a folder where the agent's program has the name its
// plugin looks for, beside node.
func (a realAgent) pathFor(t *testing.T) string {
	bin := installed(t, a.pkg)
	dir := t.TempDir()
	if err := linkProgram(bin, filepath.Join(dir, a.program)); err != nil {
		t.Fatal(err)
	}
	installDir := filepath.Dir(filepath.Dir(filepath.Dir(bin)))
	for name, rel := range a.helpers {
		if err := os.Symlink(filepath.Join(installDir, rel), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	path := dir
	if node, err := exec.LookPath("node"); err == nil {
		path += string(os.PathListSeparator) + filepath.Dir(node)
	}
	// Codex's shell runs under bubblewrap when it is there.
	if bwrap, err := exec.LookPath("bwrap"); err == nil {
		path += string(os.PathListSeparator) + filepath.Dir(bwrap)
	}
	return path + string(os.PathListSeparator) + "/usr/bin:/bin"
}

// environment is the whole environment of the command running a.
func (a realAgent) environment(t *testing.T, srv *modelServer) []string {
	home := t.TempDir()
	env := []string{"PATH=" + a.pathFor(t), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "LANG=C.UTF-8", "NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1"}
	return append(env, a.env(t, srv, home)...)
}

// start runs the agent through `escouade-plugin harness` in cwd.
func (a realAgent) start(t *testing.T, srv *modelServer, cwd, mode string) *console {
	t.Helper()
	env := a.environment(t, srv)
	return startConsole(t, env, a.plugin, "--home", t.TempDir(), "--cwd", cwd, "--mode", mode, "--json")
}

func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// linkProgram puts the program at link. With REALAGENTS_WIRE naming a
// folder, the link is a script that also copies what the agent writes to
// the host (its ACP messages) into a file there, to read the shapes real
// agents send.
func linkProgram(program, link string) error {
	dir := os.Getenv("REALAGENTS_WIRE")
	if dir == "" {
		return os.Symlink(program, link)
	}
	log := filepath.Join(dir, filepath.Base(link)+"-"+filepath.Base(filepath.Dir(link))+".jsonl")
	script := "#!/bin/sh\n'" + program + "' \"$@\" | tee -a '" + log + "'\n"
	return os.WriteFile(link, []byte(script), 0o755)
}
