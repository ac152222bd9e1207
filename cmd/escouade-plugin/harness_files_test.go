package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHarnessPromptFilesFollowCaps: a prompt that gives an image or a PDF
// is refused with a sentence, and not sent, where caps.images or caps.pdf
// is not true; where it is, the image goes as an image block and the PDF
// as an embedded resource.
func TestHarnessPromptFilesFollowCaps(t *testing.T) {
	withFakeACP(t, "conversation.json")
	cwd := t.TempDir()
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 32)...)
	if err := os.WriteFile(filepath.Join(cwd, "shot.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, "doc.pdf"), []byte("%PDF-1.7\n%…\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("plain words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	input := `{"op":"prompt","text":"see","files":["shot.png"]}` + "\n" + `{"op":"prompt","text":"read","files":["doc.pdf"]}` + "\n" + `{"op":"prompt","text":"txt","files":["notes.txt"]}` + "\n"

	record := filepath.Join(t.TempDir(), "record.jsonl")
	t.Setenv("FAKE_ACP_RECORD", record)
	code, out, errOut := runCLI(t, input, "harness", fakeWithCaps(t, `{"modes":["default"]}`), "--home", t.TempDir(), "--cwd", cwd, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var refusals []string
	for _, l := range byOp(lines(t, out), "error") {
		refusals = append(refusals, l["message"].(string))
	}
	want := []string{"does not take images (its caps.images is not true)", "does not take PDFs (its caps.pdf is not true)", "a prompt gives only images and PDFs"}
	if len(refusals) != 3 {
		t.Fatalf("refusals %q", refusals)
	}
	for i, w := range want {
		if !strings.Contains(refusals[i], w) || !strings.Contains(refusals[i], "not sent") {
			t.Errorf("refusal %d: %q, want it to say %q", i, refusals[i], w)
		}
	}
	for _, m := range recordedMethods(t, record) {
		if strings.HasPrefix(m, "session/prompt") {
			t.Errorf("a refused prompt reached the agent: %s", m)
		}
	}

	record = filepath.Join(t.TempDir(), "record.jsonl")
	t.Setenv("FAKE_ACP_RECORD", record)
	input = `{"op":"prompt","text":"see","files":["shot.png","doc.pdf"]}` + "\n"
	items := reviewItems(t, input, fakeWithCaps(t, `{"modes":["default"],"images":true,"pdf":true}`), "--home", t.TempDir(), "--cwd", cwd, "--json")
	var prompt string
	for _, m := range recordedMethods(t, record) {
		if strings.HasPrefix(m, "session/prompt") {
			prompt = m
		}
	}
	if !strings.Contains(prompt, `{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo`) ||
		!strings.Contains(prompt, `{"type":"resource","resource":{"uri":"file://`) || !strings.Contains(prompt, `"mimeType":"application/pdf","blob":"JVBERi0x`) {
		t.Errorf("the prompt sent: %s", prompt)
	}
	users := itemsOf(items, "user")
	if len(users) == 0 || len(users[0]["files"].([]any)) != 2 {
		t.Errorf("the user item does not name its files: %v", users)
	}
}
