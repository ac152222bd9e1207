package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// FoldersDir holds, under the home, the folder records of the installed
// process plugins: <home>/consents/<id>.<digest>.json, every file of its
// folder as the user consented to it, then as each run of the plugin left
// it. The name holds the digest of the folder as installed
// (Consent.Folder), so an install's record never replaces the one the
// registry still names: an install whose registry write fails leaves the
// previous one whole.
const FoldersDir = "consents"

// maxFolderRecordBytes bounds the read of a folder record: MaxFolderFiles
// entries of a few hundred bytes each.
const maxFolderRecordBytes = 64 * safefile.MiB

// folderRecord is the content of a folder record. Consent binds it to the
// registry entry (Consent.Folder as installed). RecordedAt (Unix ns) is
// when the walk that made Files began, for the stat cache's racy rule.
type folderRecord struct {
	Consent    string `json:"consent"`
	Dir        string `json:"dir"`
	RecordedAt int64  `json:"recordedAt"`
	Files      Tree   `json:"files"`
}

// FolderPath is the folder record of plugin id installed with the folder
// digest folder, under home.
func FolderPath(home, id, folder string) string {
	return filepath.Join(home, FoldersDir, id+"."+shortDigest(folder)+".json")
}

func shortDigest(folder string) string { return folder[:min(len(folder), 16)] }

// recordFolder writes the folder record of an install, as fingerprint
// read it (nil: not a process, nothing to write). It is written before
// the registry entry that names it.
func recordFolder(home, id string, rec *folderRecord) error {
	if rec == nil {
		return nil
	}
	return writeFolder(home, id, *rec)
}

// readFolder reads the record c names of m's folder, or says why it
// cannot be the consent's: missing, damaged (the file named), of another
// install.
func readFolder(home string, m *manifest.Manifest, c *Consent) (folderRecord, error) {
	var rec folderRecord
	path := FolderPath(home, m.ID, c.Folder)
	data, err := safefile.Read(path, path, maxFolderRecordBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return rec, changedError(m, "Escouade has no record of the files of its folder")
	}
	if err == nil {
		err = json.Unmarshal(data, &rec)
	}
	switch {
	case err != nil:
		return rec, changedError(m, "Escouade's record of the files of its folder, %s, cannot be read (%v): install it again", path, err)
	case rec.Consent != c.Folder || !sameDir(rec.Dir, m.Dir):
		return rec, changedError(m, "Escouade's record of the files of its folder is of another install")
	}
	return rec, nil
}

func writeFolder(home, id string, rec folderRecord) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return writeJSON(FolderPath(home, id, rec.Consent), data)
}

// sameDir reports whether two folder paths name the same folder as
// written: the one comparison of a record's and an entry's folders.
func sameDir(a, b string) bool { return filepath.Clean(a) == filepath.Clean(b) }

// checkFolder compares every file of m's folder with its record, bound
// to the consent c; the manifest and the program's files are hashed
// against c itself, whatever the stat cache says (they are few). An
// unchanged file costs a stat; a file whose stat changed is hashed again,
// and when all match the record is written again with the new stats, so
// the next check costs a stat.
func checkFolder(home string, m *manifest.Manifest, c *Consent) error {
	rec, err := readFolder(home, m, c)
	if err != nil {
		return err
	}
	if err := c.checkProgram(m); err != nil {
		return err
	}
	began := clock().UnixNano()
	now, err := ReadTree(m.Dir, rec.Files, rec.RecordedAt)
	if err != nil {
		return changedError(m, "%v", err)
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
// unless another writer holds the lock or the record changed meanwhile:
// the stats are only a cache, so a start never waits for them.
func refreshFolder(home, id string, rec folderRecord, now Tree, began int64) {
	unlock, ok := TryLock(home)
	if !ok {
		return
	}
	defer unlock()
	swapFolder(home, id, rec, folderRecord{Consent: rec.Consent, Dir: rec.Dir, RecordedAt: began, Files: now})
}

// swapFolder writes next in place of the record of id if it is still
// was (compared by its time): a newer record wins. The home's lock is
// held.
func swapFolder(home, id string, was, next folderRecord) bool {
	path := FolderPath(home, id, was.Consent)
	data, err := safefile.Read(path, path, maxFolderRecordBytes)
	var cur folderRecord
	if err != nil || json.Unmarshal(data, &cur) != nil || cur.RecordedAt != was.RecordedAt {
		return false
	}
	return writeFolder(home, id, next) == nil
}

// Settle records m's folder as its program left it, once that program
// has started well and again once it has ended: what a process plugin
// writes into its own folder as it runs (Python's __pycache__, its cache,
// its data) is its own doing, and its next start is not refused for it.
// launched is when the program was launched: a change made before it
// (between the start's check and the launch) is not the run's, and
// nothing is recorded. What the user consented to stays pinned: when the
// manifest, the run or a file of the program no longer matches, nothing
// is recorded either, and the next start is refused as Check says. It
// reports what it recorded that the record did not hold ("a file
// __pycache__/notes.pyc was added"), "" when nothing changed or m is not
// an installed process plugin; an error says why what changed is not
// taken as the run's.
func Settle(home string, m *manifest.Manifest, launched time.Time) (string, error) {
	c, ok := settling(home, m)
	if !ok {
		return "", nil
	}
	rec, err := readFolder(home, m, c)
	if err != nil || c.checkRun(m) != nil || c.checkProgram(m) != nil {
		return "", nil // the next start says what
	}
	began := clock().UnixNano()
	now, err := ReadTree(m.Dir, rec.Files, rec.RecordedAt)
	if err != nil {
		return "", nil // past a bound: the next start says it
	}
	diff := Difference(rec.Files, now)
	if diff == "" && !restated(rec.Files, now) {
		return "", nil
	}
	if early := changedBefore(rec.Files, now, launched.Add(-coarseTick).UnixNano()); early != "" {
		return "", fmt.Errorf("its %s changed before its program started, so it is not the program's doing", early)
	}
	unlock, err := Lock(home)
	if err != nil {
		return "", err
	}
	defer unlock()
	if again, ok := settling(home, m); !ok || again.Folder != c.Folder {
		return "", nil // installed again meanwhile
	}
	if !swapFolder(home, m.ID, rec, folderRecord{Consent: rec.Consent, Dir: rec.Dir, RecordedAt: began, Files: now}) {
		return "", nil // recorded meanwhile by another end
	}
	return diff, nil
}

// coarseTick is how far before the launch a file the program wrote may be
// stamped: the kernel stamps files with a coarse clock, a tick behind the
// one the launch is read from (up to 10 ms at 100 Hz).
const coarseTick = 10 * time.Millisecond

// changedBefore names the first entry of now that differs from was, or
// was added, whose last change came before t (Unix ns): "" when every
// change came after.
func changedBefore(was, now Tree, t int64) string {
	for p, f := range now {
		if old, ok := was[p]; ok && old.same(f) {
			continue
		}
		if max(f.Stat.MtimeNs, f.Stat.CtimeNs) < t {
			return strings.TrimSpace(noun(f) + " " + p)
		}
	}
	return ""
}

// settling is the consent of m when it is a process plugin installed
// from its folder with a folder record, read without the lock: a module's
// end takes no lock.
func settling(home string, m *manifest.Manifest) (*Consent, bool) {
	if m.Run.Kind() != manifest.RunProcess {
		return nil, false
	}
	reg, err := Open(home)
	if err != nil {
		return nil, false
	}
	en, ok := reg.Get(m.ID)
	if !ok || !sameDir(en.Dir, m.Dir) || en.Consent == nil || en.Consent.Run != manifest.RunProcess || en.Consent.Folder == "" {
		return nil, false
	}
	return en.Consent, true
}

// ForgetFolder removes the folder records of id, but the one of the
// folder digest keep ("" keeps none): after an install is recorded, the
// records of earlier installs; after an uninstall, all.
func ForgetFolder(home, id, keep string) {
	entries, _ := os.ReadDir(filepath.Join(home, FoldersDir))
	for _, e := range entries {
		digest, ok := strings.CutPrefix(e.Name(), id+".")
		if digest, ok = strings.CutSuffix(digest, ".json"); !ok || strings.Contains(digest, ".") {
			continue // another plugin's, whose id only starts with id
		}
		if keep == "" || digest != shortDigest(keep) {
			_ = os.Remove(filepath.Join(home, FoldersDir, e.Name()))
		}
	}
}

// clock is the time a folder record is made at; tests move it.
var clock = time.Now
