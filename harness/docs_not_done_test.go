package harness

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// notDone reads the titles of docs/harness.md's "What is not done" list:
// the bold words each entry starts with.
func notDone(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../docs/harness.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## What is not done\n")
	if !ok {
		t.Fatal(`docs/harness.md has no "What is not done" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var titles []string
	for _, m := range regexp.MustCompile(`(?m)^- \*\*(.+?)\*\*`).FindAllStringSubmatch(section, -1) {
		titles = append(titles, m[1])
	}
	return titles
}

// TestWhatIsNotDoneStaysTrue keeps docs/harness.md's "What is not done"
// true: each entry is checked against what the host does, an entry the
// test does not know fails (write its check), and the entries that became
// done are gone from it.
func TestWhatIsNotDoneStaysTrue(t *testing.T) {
	checks := map[string]func(t *testing.T){
		"`$/cancel_request`":       cancelRequestIsNotSent,
		"Quota, cost and accounts": quotaIsUnknown,
		"The agent's stderr":       stderrIsNotAnItem,
		"Cursor's images":          cursorImagesAreNotices,
	}
	titles := notDone(t)
	for _, title := range titles {
		check, ok := checks[title]
		if !ok {
			t.Errorf("What is not done lists %q, which this test does not check: write its check", title)
			continue
		}
		t.Run(title, check)
	}
	for _, done := range []string{"Images and PDF in prompts", "Cursor's extensions", "`--mode readOnly` at start"} {
		if slices.Contains(titles, done) {
			t.Errorf("What is not done still lists %q, which is done", done)
		}
	}
}

func cancelRequestIsNotSent(t *testing.T) {
	w := newWorld(t)
	r := start(t, fixtureScript("cancel.json"), Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("p"))
	r.untilType(acp.TypeUser)
	r.must(r.s.Cancel())
	r.untilType(acp.TypeTurn)
	for _, m := range r.received() {
		if string(m["method"]) == `"$/cancel_request"` {
			t.Error("$/cancel_request was sent")
		}
	}
}

func quotaIsUnknown(t *testing.T) {
	for _, f := range reflect.VisibleFields(reflect.TypeFor[acp.Item]()) {
		for _, word := range []string{"Quota", "Cost", "Account"} {
			if strings.Contains(f.Name, word) {
				t.Errorf("an item has the field %s: say what it carries in docs/harness.md", f.Name)
			}
		}
	}
}

func stderrIsNotAnItem(t *testing.T) {
	w := newWorld(t)
	var stderr lockedLines
	r := start(t, w.script(t, "updates.json"), Options{Cwd: w.dir, Stderr: stderr.add})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("hi"))
	for _, it := range r.untilType(acp.TypeTurn) {
		if strings.Contains(it.Text, "a line on stderr") {
			t.Errorf("a stderr line became an item: %+v", it)
		}
	}
	// The agent's stderr is read beside its stdout: its line may come
	// after the turn's end, so it is waited for.
	if !stderr.waitFor("fake-acp: a line on stderr", time.Minute) {
		t.Errorf("the app did not get the stderr line: %q", stderr.get())
	}
}

func cursorImagesAreNotices(t *testing.T) {
	c := acp.NewClient(acp.Options{Cursor: true})
	c.Start()
	c.Feed([]byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}`))
	c.Feed([]byte(`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`))
	items, _ := c.Feed([]byte(`{"jsonrpc":"2.0","method":"cursor/generate_image","params":{"toolCallId":"t","description":"a diagram","filePath":"d.png"}}`))
	if len(items) != 1 || items[0].Type != acp.TypeNotice || items[0].Text != "Cursor generated an image: a diagram → d.png" {
		t.Errorf("items %+v", items)
	}
}
