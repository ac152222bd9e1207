//go:build unix

package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// installedProcess makes a process plugin run as `sh run.sh` (no "./":
// its script is not among the program's files, the folder is what holds
// it), installs it under a new home and returns both.
func installedProcess(t testing.TB, files map[string]string) (string, *manifest.Manifest) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	body := `{"id":"dev.test.folder","name":"Folder","version":"1.0.0","escouade":{"api":"1"},"run":{"command":["sh","run.sh"]},"activation":["onCall"]}`
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(dir, manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	c := installed(t, home, m)
	if err := Update(home, func(r *Registry) error {
		r.Put(Entry{ID: m.ID, Dir: m.Dir, Version: m.Version, Consent: c})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return home, m
}

// Every file of a process plugin's folder is part of what was consented
// to: a start after any change is refused, naming the file.
func TestFolderChangeIsRefused(t *testing.T) {
	tests := []struct {
		name string
		edit func(dir string) error
		want string
	}{
		{"the script an interpreter runs", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "run.sh"), []byte("id > marker"), 0o644)
		}, "its file run.sh changed"},
		{"same size, same mtime", func(dir string) error {
			p := filepath.Join(dir, "run.sh")
			info, _ := os.Stat(p)
			if err := os.WriteFile(p, []byte("exit 1 "), 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, info.ModTime(), info.ModTime())
		}, "its file run.sh changed"},
		{"a module beside it", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "lib", "sitecustomize.py"), []byte("import os"), 0o644)
		}, "a file lib/sitecustomize.py was added"},
		{"a data file removed", func(dir string) error {
			return os.Remove(filepath.Join(dir, "lib", "data.txt"))
		}, "its file lib/data.txt was removed"},
		{"made executable", func(dir string) error {
			return os.Chmod(filepath.Join(dir, "lib", "data.txt"), 0o755)
		}, "its file lib/data.txt changed"},
		{"a link within", func(dir string) error {
			return os.Symlink("run.sh", filepath.Join(dir, "start.sh"))
		}, "a link start.sh was added"},
		{"a link out of the folder", func(dir string) error {
			return os.Symlink("/bin/sh", filepath.Join(dir, "python3"))
		}, "its link python3 points outside its folder"},
		{"a named pipe", func(dir string) error {
			return syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
		}, "fifo is a named pipe: a process plugin's folder holds only files, folders and links within it"},
		{"the manifest", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, manifest.FileName), []byte(`{}`), 0o644)
		}, "its manifest escouade-plugin.json changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, m := installedProcess(t, map[string]string{"run.sh": "echo hi", "lib/data.txt": "words"})
			if err := Admit(home, m); err != nil {
				t.Fatalf("the folder as installed is refused: %v", err)
			}
			if err := tt.edit(m.Dir); err != nil {
				t.Fatal(err)
			}
			err := Admit(home, m)
			var changed *ChangedError
			if !errors.As(err, &changed) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Admit after the change = %v, want a ChangedError saying %q", err, tt.want)
			}
		})
	}
}

// An unchanged folder is checked by its stats: after a check that
// recorded them (past the racy margin), no file is read again.
func TestFolderCheckReadsNothingUnchanged(t *testing.T) {
	home, m := installedProcess(t, map[string]string{"run.sh": "echo hi", "a/b/c.js": "x", "a/d.js": "y"})
	ageRecord(t, home, m.ID)
	before := filesHashed.Load()
	if err := Admit(home, m); err != nil {
		t.Fatal(err)
	}
	// The manifest is read by manifest.Load, not here; the rest by stat.
	if n := filesHashed.Load() - before; n != 0 {
		t.Errorf("the check of an unchanged folder hashed %d files, want 0", n)
	}
	// A file rewritten with its old size and mtime has a new change time:
	// it is read again, and its change is seen.
	p := filepath.Join(m.Dir, "a", "d.js")
	info, _ := os.Stat(p)
	os.WriteFile(p, []byte("z"), 0o644)
	os.Chtimes(p, info.ModTime(), info.ModTime())
	before = filesHashed.Load()
	if err := Admit(home, m); err == nil || !strings.Contains(err.Error(), "its file a/d.js changed") {
		t.Errorf("Admit = %v, want its file a/d.js changed", err)
	}
	if n := filesHashed.Load() - before; n != 1 {
		t.Errorf("hashed %d files, want the one whose stat changed", n)
	}
}

// A file changed in the same moment as the record cannot be vouched for
// by its stat (git's racily clean entry): it is read again.
func TestFolderRacyEntryIsHashed(t *testing.T) {
	home, m := installedProcess(t, map[string]string{"run.sh": "echo hi"})
	before := filesHashed.Load()
	if err := Admit(home, m); err != nil {
		t.Fatal(err)
	}
	if n := filesHashed.Load() - before; n != 2 { // run.sh and the manifest, written just now
		t.Errorf("a check just after install hashed %d files, want both, racy", n)
	}
}

// A file racy at install is read at each check only until a check made
// past the racy margin writes the record again: then its stat vouches.
func TestFolderRacyEntryIsRecordedAgain(t *testing.T) {
	home, m := installedProcess(t, map[string]string{"run.sh": "echo hi"})
	later := time.Now().Add(time.Minute) // the next start, a minute on
	clock = func() time.Time { return later }
	t.Cleanup(func() { clock = time.Now })
	before := filesHashed.Load()
	if err := Admit(home, m); err != nil {
		t.Fatal(err)
	}
	if n := filesHashed.Load() - before; n != 2 {
		t.Errorf("the first check hashed %d files, want both, racy at install", n)
	}
	before = filesHashed.Load()
	if err := Admit(home, m); err != nil {
		t.Fatal(err)
	}
	if n := filesHashed.Load() - before; n != 0 {
		t.Errorf("the check after the record was written again hashed %d files, want 0", n)
	}
}

// launchedLongAgo is a launch before any file of a test's folder was
// written: every change counts as the run's.
var launchedLongAgo = time.Unix(0, 0)

// recordOf reads the folder record of installed plugin id and its consent.
func recordOf(t testing.TB, home, id string) (folderRecord, *Consent) {
	t.Helper()
	reg, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	en, _ := reg.Get(id)
	m, err := manifest.Load(en.Dir, manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := readFolder(home, m, en.Consent)
	if err != nil {
		t.Fatal(err)
	}
	return rec, en.Consent
}

// ageRecord moves the folder record's time past the racy margin of every
// file, as if it had been recorded a while after they were written.
func ageRecord(t *testing.T, home, id string) {
	t.Helper()
	rec, _ := recordOf(t, home, id)
	for _, f := range rec.Files {
		rec.RecordedAt = max(rec.RecordedAt, f.Stat.MtimeNs+int64(2*racyMargin), f.Stat.CtimeNs+int64(2*racyMargin))
	}
	if err := writeFolder(home, id, rec); err != nil {
		t.Fatal(err)
	}
}

// What a plugin writes into its own folder as it runs is its own: Settle
// records it, and the next start passes. What was consented to stays
// pinned: a manifest changed while it ran is not recorded.
func TestSettleKeepsThePluginsOwnWrites(t *testing.T) {
	home, m := installedProcess(t, map[string]string{"run.sh": "echo hi", "notes.json": "{}"})
	os.MkdirAll(filepath.Join(m.Dir, "__pycache__"), 0o755)
	os.WriteFile(filepath.Join(m.Dir, "__pycache__", "notes.cpython-311.pyc"), []byte("pyc"), 0o644)
	os.WriteFile(filepath.Join(m.Dir, "notes.json"), []byte(`{"n":1}`), 0o644)
	what, err := Settle(home, m, launchedLongAgo)
	if err != nil || what != "a file __pycache__/notes.cpython-311.pyc was added" {
		t.Fatalf("Settle = %q, %v", what, err)
	}
	if err := Admit(home, m); err != nil {
		t.Fatalf("the start after the plugin's own writes is refused: %v", err)
	}
	if what, _ := Settle(home, m, launchedLongAgo); what != "" {
		t.Errorf("a second Settle of an unchanged folder says %q", what)
	}

	os.WriteFile(filepath.Join(m.Dir, manifest.FileName), []byte(`{"id":"dev.test.folder"}`), 0o644)
	os.WriteFile(filepath.Join(m.Dir, "run.sh"), []byte("id > marker"), 0o644)
	if what, _ := Settle(home, m, launchedLongAgo); what != "" {
		t.Errorf("Settle recorded a folder whose manifest changed: %q", what)
	}
	if err := Admit(home, m); err == nil || !strings.Contains(err.Error(), "its manifest escouade-plugin.json changed") {
		t.Errorf("Admit = %v, want the manifest named", err)
	}
}

// Settle records nothing for a plugin not installed from that folder.
func TestSettleOfAFolderNotInstalled(t *testing.T) {
	home, m := installedProcess(t, map[string]string{"run.sh": "echo hi"})
	other := *m
	other.Dir = t.TempDir()
	if what, err := Settle(home, &other, launchedLongAgo); what != "" || err != nil {
		t.Errorf("Settle of another folder = %q, %v", what, err)
	}
}

// A record lost, damaged or of another install is no consent.
func TestFolderRecordMustMatch(t *testing.T) {
	home, m := installedProcess(t, map[string]string{"run.sh": "echo hi"})
	_, c := recordOf(t, home, m.ID)
	os.WriteFile(FolderPath(home, m.ID, c.Folder), []byte("{"), 0o600)
	if err := Admit(home, m); err == nil || !strings.Contains(err.Error(), "cannot be read (unexpected end of JSON input): install it again") {
		t.Errorf("damaged record: %v", err)
	}
	os.Remove(FolderPath(home, m.ID, c.Folder))
	if err := Admit(home, m); err == nil || !strings.Contains(err.Error(), "Escouade has no record of the files of its folder") {
		t.Errorf("no record: %v", err)
	}
	writeFolder(home, m.ID, folderRecord{Consent: c.Folder, Dir: t.TempDir(), Files: Tree{}})
	if err := Admit(home, m); err == nil || !strings.Contains(err.Error(), "of another install") {
		t.Errorf("another install's record: %v", err)
	}
}

// An install made before every file was recorded needs one review.
func TestProcessConsentWithoutFolderNeedsReview(t *testing.T) {
	home, m := installedProcess(t, map[string]string{"run.sh": "echo hi"})
	Change(home, m.ID, func(e *Entry) error { e.Consent.Folder = ""; return nil })
	if err := Admit(home, m); err == nil || !strings.Contains(err.Error(), "installed before Escouade recorded every file of its folder") {
		t.Errorf("Admit = %v", err)
	}
}

// A folder past the bounds is not installed, with a sentence naming the
// bound; a sparse giant costs no read.
func TestFolderBounds(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(MaxFolderBytes + 1)
	f.Close()
	before := filesHashed.Load()
	if _, err := ReadTree(dir, nil, 0); err == nil || !strings.Contains(err.Error(), "takes more than 512 MiB (each file and folder counted as at least 4 KiB), the most a process plugin's folder may take") {
		t.Errorf("ReadTree of a folder past the bytes = %v", err)
	}
	if n := filesHashed.Load() - before; n != 0 {
		t.Errorf("the sparse file was read (%d files hashed)", n)
	}
	if testing.Short() {
		return
	}
	many := t.TempDir()
	for i := range MaxFolderFiles + 1 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("f%05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ReadTree(many, nil, 0); err == nil || !strings.Contains(err.Error(), "more than 20000 files and folders, the most a process plugin's folder may hold") {
		t.Errorf("ReadTree of a folder past the files = %v", err)
	}
}

// Two writers at once each keep their change: the registry's lock.
func TestConcurrentChangesAreAllKept(t *testing.T) {
	home := t.TempDir()
	const n = 16
	done := make(chan error, n)
	for i := range n {
		go func() {
			done <- Update(home, func(r *Registry) error {
				r.Put(Entry{ID: fmt.Sprintf("dev.test.p%d", i)})
				return nil
			})
		}()
	}
	for range n {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(r.List()); got != n {
		t.Errorf("%d entries after %d concurrent installs, want all", got, n)
	}
}

// BenchmarkFolderCheck is what a start of a process plugin pays for a
// folder of 5,000 files of 8 KiB in 500 packages (a small node_modules),
// unchanged: by the stat cache, and with every file hashed (no cache),
// side by side.
func BenchmarkFolderCheck(b *testing.B) {
	files := map[string]string{"run.sh": "echo hi"}
	for i := range 5000 {
		files[fmt.Sprintf("node_modules/p%d/f%d.js", i/10, i)] = strings.Repeat("x", 8192)
	}
	home, m := installedProcess(b, files)
	rec, _ := recordOf(b, home, m.ID)
	b.Run("stat-cache", func(b *testing.B) {
		for b.Loop() {
			if _, err := ReadTree(m.Dir, rec.Files, rec.RecordedAt+int64(time.Hour)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hash-all", func(b *testing.B) {
		for b.Loop() {
			if _, err := ReadTree(m.Dir, nil, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The manifest replaced during a run by a link to an edited copy is not
// pinned by the link's text: the run's end records nothing and the next
// start is refused.
func TestManifestSwappedForALinkStaysPinned(t *testing.T) {
	home, m := installedProcess(t, map[string]string{"run.sh": "echo hi"})
	edited := `{"id":"dev.test.folder","name":"Renamed","version":"1.0.0","escouade":{"api":"1"},"run":{"command":["sh","run.sh"]},"activation":["onCall"]}`
	os.WriteFile(filepath.Join(m.Dir, "copy.json"), []byte(edited), 0o644)
	os.Remove(filepath.Join(m.Dir, manifest.FileName))
	os.Symlink("copy.json", filepath.Join(m.Dir, manifest.FileName))
	if what, err := Settle(home, m, launchedLongAgo); what != "" || err != nil {
		t.Errorf("Settle recorded a swapped manifest: %q, %v", what, err)
	}
	if err := Admit(home, m); err == nil || !strings.Contains(err.Error(), "its manifest escouade-plugin.json changed") {
		t.Errorf("Admit = %v, want the manifest named", err)
	}
}

// What changed in the folder before the program was launched (between
// the start's check and the launch) is not the run's: nothing is
// recorded, and the next start names it.
func TestSettleRefusesWhatChangedBeforeTheLaunch(t *testing.T) {
	home, m := installedProcess(t, map[string]string{"run.sh": "echo hi"})
	os.WriteFile(filepath.Join(m.Dir, "helper.sh"), []byte("id"), 0o644)
	launched := time.Now().Add(time.Second)
	what, err := Settle(home, m, launched)
	if what != "" || err == nil || !strings.Contains(err.Error(), "its file helper.sh changed before its program started") {
		t.Errorf("Settle = %q, %v; want the early change refused", what, err)
	}
	if err := Admit(home, m); err == nil || !strings.Contains(err.Error(), "a file helper.sh was added") {
		t.Errorf("Admit = %v", err)
	}
}

// A start never waits for the stat cache's write: with the lock held by
// another writer, the check still answers.
func TestCheckDoesNotWaitForTheLock(t *testing.T) {
	home, m := installedProcess(t, map[string]string{"run.sh": "echo hi"})
	clock = func() time.Time { return time.Now().Add(time.Minute) } // the record would be written again
	t.Cleanup(func() { clock = time.Now })
	unlock, err := Lock(home)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if err := Admit(home, m); err != nil {
		t.Fatal(err)
	}
}

// A "./" element of the command that is a link or leaves the folder is
// refused at install: what it runs would not be a file of the folder.
func TestCommandProgramMustBeAFileOfTheFolder(t *testing.T) {
	for run, want := range map[string]string{
		`{"command":["./bin/p"]}`:        "run.command's ./bin/p is a link",
		`{"command":["sh","./../x.sh"]}`: "run.command's ./../x.sh leaves its folder",
	} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
		os.WriteFile(filepath.Join(dir, "real"), []byte("x"), 0o755)
		os.Symlink("../real", filepath.Join(dir, "bin", "p"))
		writeManifest(t, dir, run)
		if _, err := Fingerprint(load(t, dir)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Fingerprint = %v, want %q", run, err, want)
		}
	}
}

// A folder given through a link is walked as the folder it is.
func TestFolderThroughALinkIsWalked(t *testing.T) {
	real := t.TempDir()
	os.WriteFile(filepath.Join(real, "run.sh"), []byte("echo hi"), 0o644)
	link := filepath.Join(t.TempDir(), "plugin")
	os.Symlink(real, link)
	tree, err := ReadTree(link, nil, 0)
	if err != nil || tree["run.sh"].Sum == "" {
		t.Errorf("ReadTree through a link = %v, %v; want run.sh", tree, err)
	}
}

// Forgetting a plugin's records leaves those of a plugin whose id only
// starts with its id.
func TestForgetFolderKeepsOtherPlugins(t *testing.T) {
	home := t.TempDir()
	for _, name := range []string{"dev.a.0123456789abcdef.json", "dev.a.b.0123456789abcdef.json"} {
		os.MkdirAll(filepath.Join(home, FoldersDir), 0o700)
		os.WriteFile(filepath.Join(home, FoldersDir, name), []byte("{}"), 0o600)
	}
	ForgetFolder(home, "dev.a", "")
	if _, err := os.Stat(filepath.Join(home, FoldersDir, "dev.a.b.0123456789abcdef.json")); err != nil {
		t.Errorf("another plugin's record was removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, FoldersDir, "dev.a.0123456789abcdef.json")); err == nil {
		t.Error("the plugin's own record was kept")
	}
}
