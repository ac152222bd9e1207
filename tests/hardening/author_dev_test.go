//go:build linux

package hardening

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// devRun is a running escouade-plugin dev: its stdout lines as they come.
type devRun struct {
	t     *testing.T
	cmd   *exec.Cmd
	lines chan string
	seen  []string
}

func startDev(t *testing.T, dir, home string) *devRun {
	t.Helper()
	cmd := exec.Command(filepath.Join(bins, "escouade-plugin"), "dev", dir, "--home", home, "--keychain", "memory")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &devRun{t: t, cmd: cmd, lines: make(chan string, 1024)}
	go func() {
		defer close(d.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return d
}

// next waits for a line holding want.
func (d *devRun) next(want string) string {
	d.t.Helper()
	deadline := time.After(waitLong(d.t))
	for {
		select {
		case l, ok := <-d.lines:
			if !ok {
				d.t.Fatalf("dev ended before %q:\n%s", want, strings.Join(d.seen, "\n"))
			}
			d.seen = append(d.seen, l)
			if strings.Contains(l, want) {
				return l
			}
		case <-deadline:
			d.t.Fatalf("no %q from dev:\n%s", want, strings.Join(d.seen, "\n"))
		}
	}
}

// stop sends Ctrl+C and waits for a clean end, exit code 0.
func (d *devRun) stop() {
	d.t.Helper()
	d.cmd.Process.Signal(os.Interrupt)
	d.next("escouade-plugin dev: stopped")
	if err := d.cmd.Wait(); err != nil {
		d.t.Errorf("dev ended with %v after Ctrl+C", err)
	}
}

func puppetFolder(t *testing.T, manifest map[string]any) string {
	t.Helper()
	m := map[string]any{"name": "puppet"}
	for k, v := range manifest {
		m[k] = v
	}
	return plugin{fixture: "puppet", id: "dev.escouade.hardening.devloop", manifest: m}.write(t)
}

// The loop: built, started, benched, watched; an edit restarts it and
// plays the bench again; Ctrl+C ends it with exit code 0.
func TestDevRebuildsRestartsAndBenchesAtEachEdit(t *testing.T) {
	dir := puppetFolder(t, nil)
	d := startDev(t, dir, t.TempDir())
	d.next("is not a development install")
	d.next("restarted:")
	d.next("bench: ")
	d.next("watching ")
	writeFile(t, filepath.Join(dir, "notes.txt"), []byte("an edit"))
	d.next("changed: notes.txt")
	d.next("restarted:")
	d.next("journal: ")
	d.next("bench: ")
	d.stop()
}

// A development install's edit is started without a review, and the
// journal says so; a permission change, a run change and a new harness
// command still stop it until reviewed, and the journal says which.
func TestADevInstallRestartsWithoutReviewUntilItsScopeChanges(t *testing.T) {
	base := map[string]any{"permissions": map[string]any{"network": []string{"example.com"}}}
	for _, tt := range []struct {
		name, want string
		change     map[string]any
	}{
		{"permissions", "whose permissions changed", map[string]any{"permissions": map[string]any{"network": []string{"example.com", "evil.example"}}}},
		{"run", "whose run changed", map[string]any{"run": map[string]any{"command": []string{"./bin/puppet", "--more"}}}},
		{"harness", "whose harnesses changed", map[string]any{"contributes": map[string]any{"harnesses": []any{
			map[string]any{"id": "h", "name": "H", "locate": map[string]any{"names": []string{"sh"}}, "acp": map[string]any{"args": []string{"-c", "x"}}}}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home, dir := t.TempDir(), puppetFolder(t, base)
			if out, stderr, code := cli(t, "install", "--dev", dir, "--home", home); code != 0 || !strings.Contains(out, "In development") {
				t.Fatalf("install --dev: %d\n%s%s", code, out, stderr)
			}
			out, _, _ := cli(t, "list", "--home", home)
			if !strings.Contains(out, "in development") {
				t.Errorf("list does not show the development install:\n%s", out)
			}
			out, _, _ = cli(t, "list", "--home", home, "--json")
			var listed []map[string]any
			if json.Unmarshal([]byte(out), &listed) != nil || len(listed) != 2 || listed[1]["dev"] == nil {
				t.Errorf("list --json does not show the development install:\n%s", out)
			}
			d := startDev(t, dir, home)
			d.next("is a development install")
			d.next("watching ")
			m := map[string]any{"id": "dev.escouade.hardening.devloop", "name": "puppet", "version": "1.0.1", "escouade": map[string]any{"api": "1"},
				"run": map[string]any{"command": []string{"./bin/puppet"}}, "activation": []string{"onCall"}}
			for k, v := range base {
				m[k] = v
			}
			b, _ := json.Marshal(m) // an edit within the scope: a new version
			writeFile(t, filepath.Join(dir, "escouade-plugin.json"), b)
			d.next("development install: started without a review: its manifest escouade-plugin.json changed")
			// The CLI's restart agrees: the edit is within what was consented.
			if out, stderr, code := cli(t, "restart", "dev.escouade.hardening.devloop", "--home", home); code != 0 {
				t.Errorf("restart after an edit: %d\n%s%s", code, out, stderr)
			}
			for k, v := range tt.change {
				m[k] = v
			}
			b, _ = json.Marshal(m)
			writeFile(t, filepath.Join(dir, "escouade-plugin.json"), b)
			line := d.next(tt.want)
			if !strings.Contains(line, "not started") || !strings.Contains(line, "review") {
				t.Errorf("the scope change is not a stop until reviewed: %s", line)
			}
			if _, stderr, code := cli(t, "restart", "dev.escouade.hardening.devloop", "--home", home); code == 0 || !strings.Contains(stderr, tt.want) {
				t.Errorf("restart after a scope change: %d %s", code, stderr)
			}
			d.stop()
		})
	}
}

// A plain install is as strict as before: an edit of its folder stops it
// until reviewed, and nothing says development.
func TestAPlainInstallsEditStillAsksAReview(t *testing.T) {
	home, dir := t.TempDir(), puppetFolder(t, nil)
	if _, stderr, code := cli(t, "install", dir, "--home", home); code != 0 {
		t.Fatalf("install: %s", stderr)
	}
	writeFile(t, filepath.Join(dir, "notes.txt"), []byte("an edit"))
	_, stderr, code := cli(t, "restart", "dev.escouade.hardening.devloop", "--home", home)
	if code == 0 || !strings.Contains(stderr, "a file notes.txt was added") || strings.Contains(stderr, "development") {
		t.Errorf("a plain install's edit: %d %s", code, stderr)
	}
	if out, _, _ := cli(t, "list", "--home", home); strings.Contains(out, "development") {
		t.Errorf("list says development for a plain install:\n%s", out)
	}
}
