package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// FoldersDir holds, under the home, the folder record of each installed
// process plugin: <home>/consents/<id>.json, every file of its folder as
// the user consented to it, then as each run of the plugin left it.
const FoldersDir = "consents"

// maxFolderRecordBytes bounds the read of a folder record: MaxFolderFiles
// entries of a few hundred bytes each.
const maxFolderRecordBytes = 64 * safefile.MiB

// folderRecord is the content of a folder record. Consent binds it to the
// registry entry (Consent.Folder as installed): a record left by another
// install is not this one's. RecordedAt (Unix ns) is when the walk that
// made Files began, for the stat cache's racy rule.
type folderRecord struct {
	Consent    string `json:"consent"`
	Dir        string `json:"dir"`
	RecordedAt int64  `json:"recordedAt"`
	Files      Tree   `json:"files"`
}

// FolderPath is the folder record of plugin id under home.
func FolderPath(home, id string) string {
	return filepath.Join(home, FoldersDir, id+".json")
}

// recordFolder writes the folder record of an install, as fingerprint
// read it (nil: not a process, nothing to write). It is written before
// the registry entry that binds it, so a crash between the two leaves an
// entry that needs a review, never one that passes unchecked.
func recordFolder(home, id string, rec *folderRecord) error {
	if rec == nil {
		return nil
	}
	return writeFolder(home, id, *rec)
}

func readFolder(home, id string) (folderRecord, error) {
	var rec folderRecord
	data, err := safefile.Read(FolderPath(home, id), FolderPath(home, id), maxFolderRecordBytes)
	if err != nil {
		return rec, err
	}
	err = json.Unmarshal(data, &rec)
	return rec, err
}

func writeFolder(home, id string, rec folderRecord) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return writeJSON(FolderPath(home, id), data)
}

// checkFolder compares every file of m's folder with its record, bound
// to the consent c, and what c pins (the manifest, the program's files)
// with c. An unchanged file costs a stat; a file
// whose stat changed is hashed again, and when all match the record is
// written again with the new stats, so the next check costs a stat.
func checkFolder(home string, m *manifest.Manifest, c *Consent) error {
	rec, err := readFolder(home, m.ID)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return changedError(m, "Escouade has no record of the files of its folder")
	case err != nil:
		return changedError(m, "Escouade's record of the files of its folder cannot be read: %v", err)
	case rec.Consent != c.Folder || rec.Dir != m.Dir:
		return changedError(m, "Escouade's record of the files of its folder is of another install")
	}
	began := clock().UnixNano()
	now, err := ReadTree(m.Dir, rec.Files, rec.RecordedAt)
	if err != nil {
		return changedError(m, "%v", err)
	}
	if err := c.checkPinned(m, now); err != nil {
		return err
	}
	if diff := Difference(rec.Files, now); diff != "" {
		return changedError(m, "%s", diff)
	}
	if restated(rec.Files, now) || anyRacy(now, rec.RecordedAt, began) {
		refreshFolder(home, m.ID, rec, now, began)
	}
	return nil
}

// anyRacy reports whether a file of t could not be vouched for by its
// stat at the record's time, but can at began: writing the record again
// spares the next check its read.
func anyRacy(t Tree, recordedAt, began int64) bool {
	for _, f := range t {
		if f.Kind == "" && racy(f.Stat, recordedAt) && !racy(f.Stat, began) {
			return true
		}
	}
	return false
}

// restated reports whether a file's stat differs from its record's while
// its content does not: the record is then written again.
func restated(was, now Tree) bool {
	for p, f := range now {
		if was[p].Stat != f.Stat {
			return true
		}
	}
	return false
}

// refreshFolder writes the new stats of a folder whose files matched,
// unless the record changed meanwhile (a run's end recorded it): the
// stats are only a cache, and the newer record wins.
func refreshFolder(home, id string, rec folderRecord, now Tree, began int64) {
	unlock, err := Lock(home)
	if err != nil {
		return
	}
	defer unlock()
	cur, err := readFolder(home, id)
	if err != nil || cur.RecordedAt != rec.RecordedAt || cur.Consent != rec.Consent {
		return
	}
	rec.Files, rec.RecordedAt = now, began
	_ = writeFolder(home, id, rec)
}

// Settle records m's folder as its program left it, once that program
// has started well and again once it has ended: what a process plugin
// writes into its own folder as it runs (Python's __pycache__, its cache,
// its data) is its own doing, and its next start is not refused for it.
// What the user consented to stays pinned: when the manifest, the run or
// a file of the program no longer matches, nothing is recorded and the
// next start is refused as Check says. It reports what it recorded that
// the record did not hold ("a file __pycache__/notes.pyc was added"), ""
// when nothing changed or m is not an installed process plugin.
func Settle(home string, m *manifest.Manifest) (string, error) {
	if !settles(home, m) {
		return "", nil
	}
	unlock, err := Lock(home)
	if err != nil {
		return "", err
	}
	defer unlock()
	reg, err := Open(home)
	if err != nil {
		return "", err
	}
	en, ok := reg.Get(m.ID)
	if !ok || en.Dir != m.Dir || en.Consent == nil || en.Consent.Run != manifest.RunProcess || en.Consent.Folder == "" {
		return "", nil
	}
	if err := en.Consent.checkRun(m); err != nil {
		return "", nil // the next start says it
	}
	rec, err := readFolder(home, m.ID)
	if err != nil || rec.Consent != en.Consent.Folder || rec.Dir != m.Dir {
		return "", nil // the next start says it
	}
	began := clock().UnixNano()
	now, err := ReadTree(m.Dir, rec.Files, rec.RecordedAt)
	if err != nil || en.Consent.checkPinned(m, now) != nil {
		return "", nil // past a bound, or what was consented to changed: the next start says it
	}
	diff := Difference(rec.Files, now)
	if diff == "" && !restated(rec.Files, now) {
		return "", nil
	}
	rec.Files, rec.RecordedAt = now, began
	if err := writeFolder(home, m.ID, rec); err != nil {
		return "", fmt.Errorf("%s: %w", FolderPath(home, m.ID), err)
	}
	return diff, nil
}

// settles reports whether m is a process plugin installed from its
// folder with a folder record, read without the lock: a module's end
// takes no lock.
func settles(home string, m *manifest.Manifest) bool {
	if m.Run.Kind() != manifest.RunProcess {
		return false
	}
	reg, err := Open(home)
	if err != nil {
		return false
	}
	en, ok := reg.Get(m.ID)
	return ok && en.Dir == m.Dir && en.Consent != nil && en.Consent.Folder != ""
}

// ForgetFolder removes the folder record of id (uninstall).
func ForgetFolder(home, id string) {
	_ = os.Remove(FolderPath(home, id))
}

// clock is the time a folder record is made at; tests move it.
var clock = time.Now
