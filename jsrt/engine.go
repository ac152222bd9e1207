package jsrt

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/transport"
)

//go:generate sh build/build.sh

// The engine module, built by build/build.sh and checked by its --check.
var (
	//go:embed quickjs.wasm
	module []byte
	//go:embed quickjs.wasm.sha256
	moduleSum string
	//go:embed runtime/runtime.js
	runtimeJS []byte
)

// The files of a bundle's folder, mounted read-only at /bundle.
const (
	BundleMount = "/bundle"
	PluginMount = "/plugin"
	MainFile    = "plugin.mjs" // the checked bundle
	RuntimeFile = "runtime.js" // the Node surface, run before it
	MetaFile    = "meta.json"  // {"url": the bundle's import.meta.url}
)

// Exports of the engine module (the host's contract with a reactor).
const (
	ExportTurn   = "escouade-turn"
	ExportBudget = "escouade-budget"
	// ExportCompile writes the bytecode of runtime.js and of the bundle
	// on stdout, in an instance run for that alone (bytecode.go).
	ExportCompile = "escouade-compile"
)

// MaxBundleBytes is the largest run.js bundle read (docs/protocol.md#how-the-host-reads-a-plugins-files): its
// source and its compiled form live in the engine's 64 MiB of memory,
// and a bundle of the SDK with its dependencies is a few hundred KiB.
const MaxBundleBytes = protocol.BundleBytes

// Engine is the JS engine of run.js plugins. It satisfies host/wasm's
// Engine interface. Use New.
type Engine struct{}

// New returns the engine shipped in this package.
func New() *Engine { return &Engine{} }

// Module is the engine's WASM, a WASI reactor.
func (e *Engine) Module() []byte { return module }

// SHA256 is the hex SHA-256 of Module, as committed in quickjs.wasm.sha256.
func (e *Engine) SHA256() string { return ModuleSHA256() }

// ModuleSHA256 is the hex SHA-256 of the embedded engine module.
func ModuleSHA256() string {
	sum, _, _ := strings.Cut(moduleSum, " ")
	return sum
}

// Bundle reads m's run.js bundle, checks it (Check) and returns the files
// the engine's instance gets at /bundle: plugin.mjs, runtime.js and
// meta.json. An error's text is the reason the plugin stops.
func (e *Engine) Bundle(m *manifest.Manifest) (fs.FS, error) {
	src, rel, err := checkedBundle(m)
	if err != nil {
		return nil, err
	}
	return BundleFS(src, rel), nil
}

// checkedBundle reads m's run.js bundle and checks it: its source and its
// path in the plugin's folder.
func checkedBundle(m *manifest.Manifest) (src []byte, rel string, err error) {
	if src, rel, err = readBundle(m); err != nil {
		return nil, "", err
	}
	if err := Check(src, rel); err != nil {
		return nil, "", err
	}
	return src, rel, nil
}

// readBundle reads m's run.js bundle, unchecked.
func readBundle(m *manifest.Manifest) (src []byte, rel string, err error) {
	if m == nil || m.Run == nil || m.Run.JS == "" {
		return nil, "", errors.New("the manifest names no run.js bundle")
	}
	rel = m.Run.BundlePath()
	if path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, "", fmt.Errorf("run.js %q is not inside the plugin's folder", m.Run.JS)
	}
	src, err = safefile.Read(filepath.Join(m.Dir, filepath.FromSlash(rel)), rel, MaxBundleBytes)
	if err != nil {
		return nil, "", bundleUnread(rel, err)
	}
	return src, rel, nil
}

// bundleUnread says why the bundle rel was not read: the system's refusal
// (a missing file), or what it is (a named pipe, too large...).
func bundleUnread(rel string, err error) error {
	var refused *safefile.Error
	if errors.As(err, &refused) && refused.Kind == nil {
		return fmt.Errorf("run.js: cannot read %s: %w", rel, refused.Err)
	}
	return fmt.Errorf("run.js: %w", err)
}

// BundleFS is the /bundle folder of an already checked bundle whose path
// in the plugin's folder is rel: its import.meta.url is
// file:///plugin/<rel>, so that new URL('../x.json', import.meta.url)
// names the plugin's root files as it does under Node.
func BundleFS(src []byte, rel string) fs.FS {
	return sourcedFS{memFS: bundleFiles(src, rel), sum: sha256Hex(src)}
}

// bundleFiles are the files of BundleFS.
func bundleFiles(src []byte, rel string) memFS {
	meta, _ := json.Marshal(map[string]string{"url": bundleURL(rel)})
	return memFS{
		MainFile:    {data: src},
		RuntimeFile: {data: runtimeJS},
		MetaFile:    {data: meta},
	}
}

// sourcedFS is a /bundle that says which bytes of the plugin's folder it
// was made from: the host holds them to the start's consent check
// (transport.LaunchSpec.Program), so that a bundle swapped between that
// check and this read does not run.
type sourcedFS struct {
	memFS
	sum string
}

// SourceSHA256 is the hex SHA-256 of the bundle's source as it was read.
func (s sourcedFS) SourceSHA256() string { return s.sum }

// bundleURL is the import.meta.url of the bundle at rel.
func bundleURL(rel string) string { return "file://" + PluginMount + "/" + escapePath(rel) }

func escapePath(p string) string {
	var b strings.Builder
	for _, c := range []byte(p) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"#%<>?[\]^`+"`{|}", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// The proc_exit codes by which an engine instance ends for a reason of its
// own; 0 to 255 are process.exit's.
const (
	// ExitCrash: an uncaught exception or an unhandled rejection; the last
	// stderr line is CrashPrefix followed by the detail.
	ExitCrash = 1000
	// ExitTurnTooLong: the engine's interrupt stopped a turn at its budget.
	ExitTurnTooLong = 1001
	// ExitOutOfMemory: QuickJS could not allocate within its limit.
	ExitOutOfMemory = 1002
)

// CrashPrefix starts the stderr line that carries a crash's detail: the
// exception's text and the first line of its stack.
const CrashPrefix = "escouade: crashed: "

// ExitOf says how an engine instance ended, from its proc_exit code, its
// last lines of stderr (oldest first) and the limit of the turn it was in.
func (e *Engine) ExitOf(code uint32, lastStderr []string, turnLimit time.Duration) transport.Exit {
	return ExitOf(code, lastStderr, turnLimit)
}

// ExitOf is Engine.ExitOf.
func ExitOf(code uint32, lastStderr []string, turnLimit time.Duration) transport.Exit {
	switch code {
	case ExitCrash:
		return transport.Exit{Kind: transport.Trapped, Detail: crashDetail(lastStderr)}
	case ExitTurnTooLong:
		if turnLimit <= 0 {
			turnLimit = protocol.TurnLimit
		}
		return transport.Exit{Kind: transport.TurnTooLong, Limit: turnLimit}
	case ExitOutOfMemory:
		return transport.Exit{Kind: transport.OutOfMemory, Memory: protocol.ModuleMemory}
	}
	return transport.Exit{Kind: transport.Exited, Code: int(code)}
}

func crashDetail(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if d, ok := strings.CutPrefix(lines[i], CrashPrefix); ok && strings.TrimSpace(d) != "" {
			return strings.TrimSpace(d)
		}
	}
	return "an uncaught exception"
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
