//go:build linux

package hardening

import (
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const pythonNotes = "dev.escouade.example.python-notes"

// An interpreter runs any file of its folder, so for a process plugin
// every file of the folder is what was consented to. Each shape of the
// attack — the script of `sh run.sh`, the module of `python3 notes.py`, a
// file added beside it — is replayed through the CLI and the view: a
// start is refused with the file named, and the edited text never runs.
func TestConsentEditedProcessFolderDoesNotRun(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 here")
	}
	marker := filepath.Join(t.TempDir(), "marker")
	evil := "import os\nos.system('id > " + marker + "')\n"
	cases := []struct {
		name    string
		prepare func(t *testing.T, dir string) // before the install
		edit    func(t *testing.T, dir string) // after it
		want    string
	}{
		{"the script of sh run.sh", func(t *testing.T, dir string) {
			editRun(t, dir, map[string]any{"command": []string{"sh", "run.sh"}})
			writeFile(t, filepath.Join(dir, "run.sh"), []byte("exec python3 notes.py\n"))
		}, func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "run.sh"), []byte("id > "+marker+"\n"))
		}, "its file run.sh changed"},
		{"the module python3 runs", nil, func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "notes.py"), []byte(evil))
		}, "its file notes.py changed"},
		{"a module added beside it", nil, func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "sitecustomize.py"), []byte(evil))
		}, "a file sitecustomize.py was added"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, "../../examples/python-notes")
			if tc.prepare != nil {
				tc.prepare(t, dir)
			}
			home := t.TempDir()
			if out, errText, code := cli(t, "install", dir, "--home", home); code != 0 {
				t.Fatalf("install: exit %d\n%s%s", code, out, errText)
			}
			tc.edit(t, dir)
			replayRefused(t, home, dir, pythonNotes, tc.want, marker)
		})
	}
}

// replayRefused checks that plugin id of dir, changed since its install
// under home, is refused by the CLI's restart and by the view's Restart,
// with want named, and that marker was never written.
func replayRefused(t *testing.T, home, dir, id, want, marker string) {
	t.Helper()
	_, errText, code := cli(t, "restart", id, "--home", home)
	if code != 1 || !strings.Contains(errText, want) || !strings.Contains(errText, "escouade-plugin install "+dir) {
		t.Errorf("restart: exit %d, stderr %q; want a refusal naming %q", code, errText, want)
	}
	if out, _, _ := cli(t, "list", "--home", home); !strings.Contains(out, "needs review") {
		t.Errorf("list does not mark it:\n%s", out)
	}
	v := serveHome(t, home)
	if status, body := v.do(t, http.MethodPost, "/plugins/"+id+"/restart", url.Values{}); status != http.StatusOK {
		t.Fatalf("Restart: %d %s", status, body)
	}
	page := v.waitPage(t, "/plugins/"+id, "Stopped")
	if !strings.Contains(page, "Its folder changed since you installed it") || !strings.Contains(page, want) {
		t.Errorf("the plugin's page does not say what changed (%q)", want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the edited text ran")
	}
	if j := journalFiles(t, home, id); !strings.Contains(j, "stop not started: the folder changed since it was installed ("+want+")") {
		t.Errorf("journal lacks the stop and its reason:\n%s", tail(j, 2000))
	}
}

// A plugin that writes into its own folder as it runs keeps running:
// python-notes importing a module of its folder leaves __pycache__ at its
// first start, and its second start (a Restart of the view) is not
// refused for it; the journal says what was taken as its own.
func TestConsentPluginsOwnWritesKeepItRunning(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 here")
	}
	dir := copyDir(t, "../../examples/python-notes")
	writeFile(t, filepath.Join(dir, "words.py"), []byte("WORDS = 'words'\n"))
	src, err := os.ReadFile(filepath.Join(dir, "notes.py"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "notes.py"), []byte(strings.Replace(string(src), "import itertools\n", "import itertools\nimport words\n", 1)))
	home := t.TempDir()
	if out, errText, code := cli(t, "install", dir, "--home", home); code != 0 {
		t.Fatalf("install: exit %d\n%s%s", code, out, errText)
	}
	var env []string // Python writes its bytecode, whatever this machine says
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PYTHONDONTWRITEBYTECODE=") {
			env = append(env, kv)
		}
	}
	v := serveHomeEnv(t, home, env)
	for range 2 {
		if status, body := v.do(t, http.MethodPost, "/plugins/"+pythonNotes+"/restart", url.Values{}); status != http.StatusOK {
			t.Fatalf("Restart: %d %s", status, body)
		}
		v.waitPage(t, "/plugins/"+pythonNotes, "Ready")
	}
	if _, err := os.Stat(filepath.Join(dir, "__pycache__")); err != nil {
		t.Fatalf("python wrote no __pycache__ (the case tests nothing): %v", err)
	}
	j := journalFiles(t, home, pythonNotes)
	if strings.Contains(j, "not started") {
		t.Errorf("a start after the plugin's own writes was refused:\n%s", tail(j, 2000))
	}
	if !strings.Contains(j, "its folder as its program left it is recorded as its own (a file __pycache__/words.") {
		t.Errorf("the journal does not say what was taken as its own:\n%s", tail(j, 2000))
	}
	if n := strings.Count(j, "ready initialize answered"); n < 2 {
		t.Errorf("%d starts answered initialize, want 2:\n%s", n, tail(j, 2000))
	}
}

// A folder past the bounds is not installed, with the bound named.
func TestConsentFolderPastTheBoundIsNotInstalled(t *testing.T) {
	dir := copyDir(t, "../../examples/python-notes")
	f, err := os.Create(filepath.Join(dir, "data", "huge.bin"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(600 << 20) // sparse: no disk
	f.Close()
	home := t.TempDir()
	_, errText, code := cli(t, "install", dir, "--home", home)
	if code != 1 || !strings.Contains(errText, "not installed: its folder takes more than 512 MiB (each file and folder counted as at least 4 KiB), the most a process plugin's folder may take") {
		t.Errorf("install of a folder past the bound: exit %d %q", code, errText)
	}
	if _, err := os.Stat(filepath.Join(home, "plugins.json")); err == nil {
		if b, _ := os.ReadFile(filepath.Join(home, "plugins.json")); strings.Contains(string(b), pythonNotes) {
			t.Errorf("it was recorded: %s", b)
		}
	}
}

// A window read before a file of a process plugin's folder changed cannot
// install it: the window carries the digest of every file.
func TestConsentWindowBindsEveryFileOfAProcess(t *testing.T) {
	dir := copyDir(t, "../../examples/python-notes")
	home := t.TempDir()
	v := serveHome(t, home)
	fp := v.windowFingerprint(t, dir)
	writeFile(t, filepath.Join(dir, "notes.py"), []byte("import os\nos.system('id')\n"))
	status, body := v.do(t, http.MethodPost, "/install", url.Values{"dir": {dir}, "fingerprint": {fp}, "secrets": {"token"}})
	if status != http.StatusConflict || !strings.Contains(body, "its manifest or a file it runs changed while the window was open") {
		t.Errorf("install of a folder changed under its window: %d %s", status, body)
	}
	if out, _, _ := cli(t, "list", "--home", home); strings.Contains(out, pythonNotes) {
		t.Errorf("it was installed:\n%s", out)
	}
}
