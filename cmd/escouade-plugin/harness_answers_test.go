package main

// Regression tests of bugs found in review: each failed before its fix.

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

// TestReviewHarnessAnswerByOptionID: "option" names an option by its id
// (docs/CLI.md#harness), even when that id reads like another option's kind.
func TestRegressHarnessAnswerByOptionID(t *testing.T) {
	withFakeACP(t, "")
	reviewHarnessScript(t, `{"scenes":[{"steps":[{"permission":{"toolCall":{"toolCallId":"c1","title":"x","kind":"execute"},
		"options":[{"optionId":"allow_once","name":"No thanks","kind":"reject_once"},{"optionId":"go","name":"Go","kind":"allow_once"}]}}]}]}`)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- cmdHarness(env{inR, outW, io.Discard}, []string{fakeACPDir, "--home", t.TempDir(), "--cwd", t.TempDir(), "--json"})
		outW.Close()
	}()
	out := bufio.NewReader(outR)
	io.WriteString(inW, `{"op":"prompt","text":"go"}`+"\n")
	card := awaitItem(t, out, "permission")
	io.WriteString(inW, `{"op":"answer","request":"`+card["request"].(string)+`","option":"allow_once"}`+"\n")
	if said := awaitItem(t, out, "text"); said["text"] != "permission: selected allow_once" {
		t.Errorf("the agent was answered %v", said["text"])
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	<-done
}

// TestReviewHarnessEmptyInputStillOpens: with nothing on stdin the session
// is closed before initialize is even answered, so the start notices of
// docs/harness.md#the-session (log in, version) never show.
func TestRegressHarnessEmptyInputStillOpens(t *testing.T) {
	withFakeACP(t, "auth.json")
	items := reviewItems(t, "", fakeACPDir, "--home", t.TempDir(), "--cwd", t.TempDir(), "--json")
	if !strings.Contains(strings.Join(itemTexts(items, "notice"), "\n"), "log in") {
		t.Errorf("items %v", items)
	}
}
