package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// agentsJSON runs "agents --json" and gives the listing by agent id.
func agentsJSON(t *testing.T, home string) map[string]map[string]any {
	t.Helper()
	code, out, errOut := runCLI(t, "", "agents", "--json", "--home", home)
	if code != 0 {
		t.Fatalf("agents: exit %d: %s", code, errOut)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("agents --json: %v\n%s", err, out)
	}
	byID := map[string]map[string]any{}
	for _, l := range list {
		byID[l["id"].(string)] = l
	}
	return byID
}

// TestAgentsStayHarnessAbsentWithTheirConversations: an agent whose
// plugin is disabled, or whose ACP harness (dev.escouade.acp) is switched
// off, stays in the listing marked Harness absent, its conversation kept;
// it cannot start while absent, and comes back, resumed by its id alone,
// when its harness does.
func TestAgentsStayHarnessAbsentWithTheirConversations(t *testing.T) {
	withFakeACP(t, "conversation.json")
	home, cwd := t.TempDir(), t.TempDir()
	dir, _ := filepath.Abs(fakeACPDir)
	if code, _, errOut := runCLI(t, "", "install", dir, "--home", home); code != 0 {
		t.Fatalf("install: %s", errOut)
	}
	if code, out, _ := runCLI(t, "", "agents", "--home", home); code != 0 || !strings.Contains(out, "no agent under this home") {
		t.Errorf("agents of an empty home: %d %q", code, out)
	}
	reviewItems(t, `{"op":"prompt","text":"hello"}`+"\n", dir, "--home", home, "--cwd", cwd, "--agent", "a1", "--json")
	a1 := agentsJSON(t, home)["a1"]
	items := a1["items"]
	if a1["status"] != "available" || a1["harness"] != "plugin:dev.escouade.fake-acp:fake-acp" || items.(float64) < 3 || a1["lastActivity"] == nil {
		t.Fatalf("a1 after its run: %v", a1)
	}

	absent := func(what, reason string) {
		t.Helper()
		a1 := agentsJSON(t, home)["a1"]
		if a1["status"] != "Harness absent" || a1["absent"] != true || !strings.Contains(a1["reason"].(string), reason) || a1["items"] != items {
			t.Errorf("%s: a1 is %v, want Harness absent (%s) with its %v items", what, a1, reason, items)
		}
		_, text, _ := runCLI(t, "", "agents", "--home", home)
		if !strings.Contains(text, "Harness absent") || !strings.Contains(text, "plugin:dev.escouade.fake-acp:fake-acp") {
			t.Errorf("%s: agents says\n%s", what, text)
		}
		code, _, errOut := runCLI(t, "", "harness", "--agent", "a1", "--home", home, "--json")
		if code != 1 || !strings.Contains(errOut, "Harness absent") || !strings.Contains(errOut, "is kept") {
			t.Errorf("%s: resuming a1: exit %d, %q", what, code, errOut)
		}
	}

	runCLI(t, "", "disable", "dev.escouade.fake-acp", "--home", home)
	absent("its plugin disabled", "dev.escouade.fake-acp is disabled")
	_, viaHarness, _ := runCLI(t, "", "harness", "--list", "--json", "--home", home)
	if _, agents, _ := runCLI(t, "", "agents", "--json", "--home", home); viaHarness != agents {
		t.Errorf("harness --list says\n%s\nagents says\n%s", viaHarness, agents)
	}
	runCLI(t, "", "enable", "dev.escouade.fake-acp", "--home", home)
	if a1 := agentsJSON(t, home)["a1"]; a1["status"] != "available" {
		t.Errorf("back with its plugin: %v", a1)
	}

	code, out, _ := runCLI(t, "", "disable", "dev.escouade.acp", "--home", home)
	if code != 0 || !strings.Contains(out, "Harness absent") {
		t.Errorf("disable dev.escouade.acp: %d %q", code, out)
	}
	_, list, _ := runCLI(t, "", "list", "--home", home)
	if !strings.Contains(list, "dev.escouade.acp") || !strings.Contains(list, "disabled") {
		t.Errorf("list with the ACP harness off:\n%s", list)
	}
	absent("the ACP harness off", "dev.escouade.acp is disabled")
	if code, _, errOut := runCLI(t, "", "harness", dir, "--home", home, "--cwd", cwd, "--json"); code != 1 || !strings.Contains(errOut, "dev.escouade.acp is disabled") {
		t.Errorf("harness DIR with the ACP harness off: %d %q", code, errOut)
	}
	runCLI(t, "", "enable", "dev.escouade.acp", "--home", home)

	// Back: started again by its id alone, its conversation shown first.
	again := reviewItems(t, `{"op":"prompt","text":"again"}`+"\n", "--agent", "a1", "--home", home, "--json")
	var history []string
	for _, it := range again {
		if it["history"] == true && it["type"] == "user" {
			history = append(history, it["text"].(string))
		}
	}
	if !contains(history, "hello") || len(itemsOf(again, "turn")) == 0 {
		t.Errorf("a1 resumed by its id: history %q, items %v", history, again)
	}
}
