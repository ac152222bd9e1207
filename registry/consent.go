package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/process"
	"github.com/escouade-dev/escouade-plugin/protocol"
)

// Consent is what the user said yes to at install: the program the plugin
// runs, as the install window showed it, and a SHA-256 fingerprint of the
// manifest and of every file of the folder that program is. A start whose
// manifest or program no longer matches is not a start the user agreed to
// (docs/protocol.md#consent). The permissions granted are Entry.Granted.
type Consent struct {
	// Run is the kind of program: "process", "js", "wasm", or "" for none.
	Run manifest.RunKind `json:"run"`
	// Command is run.command of a process, JS the bundle's path of run.js.
	Command []string `json:"command,omitempty"`
	JS      string   `json:"js,omitempty"`
	// Manifest is the hex SHA-256 of escouade-plugin.json.
	Manifest string `json:"manifest"`
	// Files maps each file of the folder the program is (plugin.wasm, the
	// bundle, a process's "./" program and "./" arguments), by its path
	// in the folder, to its hex SHA-256.
	Files map[string]string `json:"files,omitempty"`
	// Folder, for a process, is the Tree.Digest of every file of its
	// folder as installed: an interpreter runs any of them. The files
	// themselves are in the folder record (folder.go), which this binds.
	Folder string `json:"folder,omitempty"`
}

// ModuleFile is a run.wasm plugin's module beside its manifest, as the
// WASM transport reads it.
const ModuleFile = "plugin.wasm"

// MaxFingerprinted is the largest file of a process's command
// fingerprinted: past it the plugin is not installed (and a start is
// refused), so that a sparse or growing file cannot make every start read
// for ever. A module, a bundle and the manifest are held to the limits
// their own readers keep (manifest, host/wasm, jsrt), which a test checks:
// what cannot run is refused before it is hashed.
const MaxFingerprinted = 1 << 30

const (
	maxModule = protocol.ModuleBytes // wasm.MaxModuleBytes
	maxBundle = protocol.BundleBytes // jsrt.MaxBundleBytes
)

// fingerprintLimit is the most of a file of a plugin of kind k that is
// read to fingerprint it.
func fingerprintLimit(k manifest.RunKind) int64 {
	switch k {
	case manifest.RunWASM:
		return maxModule
	case manifest.RunJS:
		return maxBundle
	}
	return MaxFingerprinted
}

// Fingerprint records what m runs now, read from its folder: the consent
// an install stores. An error names the file that cannot be
// fingerprinted, or the bound the folder passes.
func Fingerprint(m *manifest.Manifest) (Consent, error) {
	c, _, err := fingerprint(m)
	return c, err
}

// Digest is one SHA-256 of all c records (run, command or bundle, the
// manifest's and the program's digests, the folder's): two consents with
// the same digest agree to the same program.
func (c Consent) Digest() string {
	b, _ := json.Marshal(c) // fields in order, map keys sorted
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// fingerprint is Fingerprint, with the folder record of a process that an
// install writes beside it (nil for the other kinds).
func fingerprint(m *manifest.Manifest) (Consent, *folderRecord, error) {
	c, err := fingerprintProgram(m)
	if err != nil || c.Run != manifest.RunProcess {
		return c, nil, err
	}
	rec := &folderRecord{Dir: m.Dir, RecordedAt: clock().UnixNano()}
	if rec.Files, err = ReadTree(m.Dir, nil, 0); err != nil {
		return Consent{}, nil, err
	}
	c.Folder = rec.Files.Digest()
	rec.Consent = c.Folder
	return c, rec, nil
}

// fingerprintProgram is Fingerprint without the folder's other files.
func fingerprintProgram(m *manifest.Manifest) (Consent, error) {
	c := runOf(m)
	sum, err := fileSHA256(m.Dir, manifest.FileName, manifest.DefaultMaxSize)
	if err != nil {
		return Consent{}, err
	}
	c.Manifest = sum
	files, err := programFiles(m)
	if err != nil {
		return Consent{}, err
	}
	for _, rel := range files {
		sum, err := fileSHA256(m.Dir, rel, fingerprintLimit(c.Run))
		if err != nil {
			return Consent{}, err
		}
		if c.Files == nil {
			c.Files = map[string]string{}
		}
		c.Files[rel] = sum
	}
	return c, nil
}

// programFiles are the paths, in m's folder, of the files its program is:
// the module, the bundle, or the "./" elements of a process's command that
// are regular files (a program shipped in the folder and the scripts it is
// given; the program by the file a start runs, tool.exe for ./tool on
// Windows). A "./" element that is no file is an argument, not a program;
// one that leaves the folder, or is a link, is refused: what it runs
// would not be a file of the folder.
func programFiles(m *manifest.Manifest) ([]string, error) {
	switch m.Run.Kind() {
	case manifest.RunWASM:
		return []string{ModuleFile}, nil
	case manifest.RunJS:
		return []string{m.Run.BundlePath()}, nil
	case manifest.RunProcess:
		var out []string
		for i, arg := range m.Run.Command {
			if !strings.HasPrefix(arg, "./") {
				continue
			}
			rel := path.Clean(arg)
			if rel == ".." || strings.HasPrefix(rel, "../") {
				return nil, fmt.Errorf("run.command's %s leaves its folder: a program it runs must be a file of the folder", arg)
			}
			if i == 0 {
				rel = process.FolderProgram(m.Dir, rel)
			}
			info, err := os.Lstat(filepath.Join(m.Dir, filepath.FromSlash(rel)))
			switch {
			case err != nil:
				continue
			case info.Mode()&fs.ModeSymlink != 0:
				return nil, fmt.Errorf("run.command's %s is a link: name the file it points to", arg)
			case info.Mode().IsRegular() && !slices.Contains(out, rel):
				out = append(out, rel)
			}
		}
		return out, nil
	}
	return nil, nil
}

// ChangedError is why a start is refused: the folder is not what the user
// consented to. Its text says what changed and how to review it again.
type ChangedError struct {
	ID, Dir string
	What    string // "its manifest escouade-plugin.json changed", …
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("not started: the folder changed since it was installed (%s): review it again with escouade-plugin install %s, or Review in the Plugins view", e.What, e.Dir)
}

// Check compares what m would run now with the consent c: the run kind and
// command m was loaded with, the fingerprints of the manifest and the
// program's files on disk, and for a process every file of its folder
// against the folder record of home (folder.go). A nil c is an install
// recorded before consents were: it too needs a review (docs/RATIONALE.md
// says why).
func (c *Consent) Check(home string, m *manifest.Manifest) error {
	if c == nil {
		return changedError(m, "it was installed before Escouade recorded what you consented to")
	}
	if err := c.checkRun(m); err != nil {
		return err
	}
	if c.Run != manifest.RunProcess {
		return c.checkProgram(m)
	}
	if c.Folder == "" {
		return changedError(m, "it was installed before Escouade recorded every file of its folder")
	}
	return checkFolder(home, m, c)
}

func changedError(m *manifest.Manifest, format string, a ...any) error {
	return &ChangedError{ID: m.ID, Dir: m.Dir, What: fmt.Sprintf(format, a...)}
}

// checkRun compares the run m was loaded with, kind and command, with c's.
func (c *Consent) checkRun(m *manifest.Manifest) error {
	now := runOf(m)
	switch {
	case now.Run != c.Run:
		return changedError(m, "it ran %s and now runs %s", runText(c.Run), runText(now.Run))
	case !slices.Equal(now.Command, c.Command) || now.JS != c.JS:
		return changedError(m, "its run changed from %s to %s", c.runLine(), now.runLine())
	}
	return nil
}

// runOf is the consent's run of m: its kind, and its command or bundle.
func runOf(m *manifest.Manifest) Consent {
	c := Consent{Run: m.Run.Kind()}
	switch c.Run {
	case manifest.RunProcess:
		c.Command = slices.Clone(m.Run.Command)
	case manifest.RunJS:
		c.JS = m.Run.JS
	}
	return c
}

// checkProgram hashes the manifest and the files the program is, and
// compares them with c's.
func (c *Consent) checkProgram(m *manifest.Manifest) error {
	now, err := fingerprintProgram(m)
	if err != nil {
		return changedError(m, "%v", err)
	}
	return c.checkSums(m, now.Manifest, now.Files)
}

// checkSums compares the SHA-256 of the manifest and of the program's
// files with c's, naming the first that differs.
func (c *Consent) checkSums(m *manifest.Manifest, manifestSum string, files map[string]string) error {
	if manifestSum != c.Manifest {
		return changedError(m, "its manifest %s changed", manifest.FileName)
	}
	for _, rel := range slices.Sorted(maps.Keys(union(files, c.Files))) {
		if files[rel] != c.Files[rel] {
			return changedError(m, "its program file %s changed", rel)
		}
	}
	return nil
}

// checkPinned is checkSums on a tree read of the folder: what the person
// consented to (the manifest, the program's files) must be as it was,
// whatever the plugin's runs recorded of the rest.
func (c *Consent) checkPinned(m *manifest.Manifest, t Tree) error {
	files := map[string]string{}
	for rel := range c.Files {
		if f, ok := t[rel]; ok && f.Kind == "" {
			files[rel] = f.Sum
		}
	}
	return c.checkSums(m, t[manifest.FileName].Sum, files)
}

func union(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, b)
	return out
}

// runLine is the run as one line of text.
func (c *Consent) runLine() string {
	switch c.Run {
	case manifest.RunProcess:
		return fmt.Sprintf("the program %q", strings.Join(c.Command, " "))
	case manifest.RunJS:
		return fmt.Sprintf("the bundle %q", c.JS)
	}
	return runText(c.Run)
}

func runText(k manifest.RunKind) string {
	switch k {
	case manifest.RunProcess:
		return "a program on your computer"
	case manifest.RunJS:
		return "a JS bundle inside Escouade"
	case manifest.RunWASM:
		return "a WASM module inside Escouade"
	}
	return "no program"
}

// fileSHA256 is the hex SHA-256 of the regular file rel of dir, at most
// limit bytes, read as the
// host reads every file of a plugin folder (safefile): a FIFO put in its
// place cannot hang a start, nor a device or a sparse giant be read.
func fileSHA256(dir, rel string, limit int64) (string, error) {
	return safefile.SHA256(filepath.Join(dir, filepath.FromSlash(rel)), rel, limit)
}
