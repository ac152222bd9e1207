package harness

import (
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

func TestAgentEnv(t *testing.T) {
	h := &manifest.Harness{AccountVar: "GOOSE_PATH_ROOT", ACP: &manifest.ACP{
		Env: map[string]string{"B": "2", "A": "1", "EMPTY": ""}, RemoveEnv: []string{"ANTHROPIC_API_KEY"},
	}}
	app := []string{"PATH=/bin", "ANTHROPIC_API_KEY=sk", "A=app", "EMPTY=app", "GOOSE_PATH_ROOT=/old"}
	diff(t, "with an account", []string{"PATH=/bin", "A=1", "B=2", "EMPTY=", "GOOSE_PATH_ROOT=/accounts/me"}, agentEnv(app, h, "/accounts/me"))
	diff(t, "without", []string{"PATH=/bin", "GOOSE_PATH_ROOT=/old", "A=1", "B=2", "EMPTY="}, agentEnv(app, h, ""))
}
