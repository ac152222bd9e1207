package jsrt

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"golang.org/x/sync/singleflight"
)

// A bundle's start is mostly QuickJS parsing JavaScript: for hello-js,
// about 6 ms for runtime.js and 3.5 ms for the bundle, of an 11 ms first
// turn (docs/RATIONALE.md). The engine can instead read both from the
// bytecode an earlier compile wrote (ExportCompile); the host keeps that
// bytecode in a cache folder, one file per bundle, and mounts it beside
// the sources as RuntimeBytecodeFile and BundleBytecodeFile.
//
// QuickJS does not verify bytecode: JS_ReadObject on damaged or foreign
// bytes can do anything the engine's memory allows. So a cache file is
// handed to the engine only when it is exactly what this host wrote for
// these inputs: its header holds the key (the engine's SHA-256, the
// runtime's, the bundle's URL and the bundle's SHA-256) and the SHA-256 of
// the bytecode that follows; anything else is ignored and written again.
// Like the compiled code in the host's compile cache, the file is trusted
// as far as its folder is: only the host writes there.
//
// A cache file is written only for a bundle that passed Check, so it is
// also the mark of that verdict: a start that finds it skips Check, whose
// esbuild parse of hello-js costs more than the engine's whole start.
// The key holds checkRules, derived from Check's rules themselves, so that
// other rules name other files and check the bundle again.

// The bytecode files mounted in /bundle when the cache has them.
const (
	RuntimeBytecodeFile = "runtime.qbc"
	BundleBytecodeFile  = "plugin.qbc"
)

// MaxBytecodeBytes bounds a cache file and what a compile writes: the
// bytecode holds the source of every function, and all of it must fit the
// engine's 64 MiB of memory.
const MaxBytecodeBytes = 48 * safefile.MiB

// checkLogic names the code of Check, which no value can stand for:
// change it when Check's code decides otherwise on the same inputs.
const checkLogic = "escouade run.js check 1"

// esbuildModule is the module whose parser Check runs.
const esbuildModule = "github.com/evanw/esbuild"

// noBuildInfo stands for esbuild's version when the binary carries no
// module information (a test binary lists no dependencies): such a host
// keys its bytecode on the other rules alone, which is why the folder is
// also per host version.
const noBuildInfo = "esbuild version unknown (no build info)"

// checkRules is the identity of Check's rules, derived from what they
// are, not written by hand: the imports allowed, the SDK stamp's pattern
// and oldest version, the esbuild that parses, and checkLogic. Any of
// them changing names other cache files, so the bundle is checked again.
var checkRules = sync.OnceValue(func() string {
	return rulesIdentity(allowed, stamp.String(), minSDK, esbuildVersion(), checkLogic)
})

// rulesIdentity is the hex SHA-256 of Check's rules' inputs.
func rulesIdentity(imports map[string]bool, stampPattern string, sdk [2]int, esbuild, logic string) string {
	names := make([]string, 0, len(imports))
	for name, ok := range imports {
		if ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	h := sha256.New()
	fmt.Fprintf(h, "logic %q\nimports %q\nstamp %q\nmin sdk %d.%d\nesbuild %q\n", logic, names, stampPattern, sdk[0], sdk[1], esbuild)
	return hex.EncodeToString(h.Sum(nil))
}

// esbuildVersion is the version of esbuild built into this binary (with
// its checksum, and its replacement if any), or noBuildInfo.
func esbuildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return noBuildInfo
	}
	for _, dep := range info.Deps {
		if dep.Path != esbuildModule {
			continue
		}
		if r := dep.Replace; r != nil {
			return fmt.Sprintf("%s %s %s => %s %s %s", dep.Path, dep.Version, dep.Sum, r.Path, r.Version, r.Sum)
		}
		return fmt.Sprintf("%s %s %s", dep.Path, dep.Version, dep.Sum)
	}
	return noBuildInfo
}

// cacheMagic starts a cache file; its last byte is the format's version.
var cacheMagic = []byte("escouade-qjsbc\x00\x01")

const cacheHeader = 16 + sha256.Size + sha256.Size // magic, key, digest

// cacheKey names the bytecode of the bundle src at rel for this engine
// and runtime: a new engine, a changed runtime.js, another path or other
// bytes name another file.
func cacheKey(src []byte, rel string) [sha256.Size]byte {
	h := sha256.New()
	fmt.Fprintf(h, "escouade run.js bytecode\nengine %s\nruntime %s\ncheck %s\nurl %s\nbundle %s\n",
		ModuleSHA256(), sha256Hex(runtimeJS), checkRules(), bundleURL(rel), sha256Hex(src))
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

// bytecode is what a compile wrote: the runtime's, then the bundle's.
type bytecode struct{ runtime, bundle []byte }

// parseCompiled reads the output of ExportCompile: two frames, each a
// 32-bit little-endian length and that many bytes, and nothing else.
func parseCompiled(out []byte) (bytecode, error) {
	var frames [2][]byte
	for i := range frames {
		if len(out) < 4 {
			return bytecode{}, errors.New("the compile's output ends before a length")
		}
		n := binary.LittleEndian.Uint32(out)
		out = out[4:]
		if n == 0 || uint64(n) > uint64(len(out)) {
			return bytecode{}, fmt.Errorf("the compile's output announces %d bytes, %d follow", n, len(out))
		}
		frames[i], out = out[:n], out[n:]
	}
	if len(out) != 0 {
		return bytecode{}, fmt.Errorf("%d bytes follow the compile's output", len(out))
	}
	return bytecode{runtime: frames[0], bundle: frames[1]}, nil
}

// cacheFileHeader is the header of the cache file holding payload, a
// compile's whole output, under key: the payload follows it as it is, so
// that keeping a compile's bytecode copies none of it.
func cacheFileHeader(key [sha256.Size]byte, payload []byte) []byte {
	digest := sha256.Sum256(payload)
	header := make([]byte, 0, cacheHeader)
	header = append(header, cacheMagic...)
	header = append(header, key[:]...)
	return append(header, digest[:]...)
}

// decodeCache returns the bytecode in file if file is a cache file written
// for key whose bytecode matches its digest; no byte of a file that is not
// reaches the engine.
func decodeCache(key [sha256.Size]byte, file []byte) (bytecode, bool) {
	if len(file) < cacheHeader || !bytes.Equal(file[:16], cacheMagic) || !bytes.Equal(file[16:48], key[:]) {
		return bytecode{}, false
	}
	payload := file[cacheHeader:]
	if digest := sha256.Sum256(payload); !bytes.Equal(file[48:cacheHeader], digest[:]) {
		return bytecode{}, false
	}
	b, err := parseCompiled(payload)
	return b, err == nil
}

// CachedBundle is Bundle, with the bytecode of runtime.js and of the
// bundle mounted beside their sources: read from the cache folder dir
// (the bundle then passed Check before), or, the first time, checked and
// made by compile (which runs ExportCompile in an
// instance of the engine on the files it is given and returns its stdout)
// and kept in dir for the next start. A cache that cannot be read or
// written, or a compile that fails, only costs the parse: the bundle then
// starts from its source as Bundle's does, with the same errors.
//
// Starts of one bundle at once that find no cache file share one check
// and one compile: the first runs them, the others wait for its result
// (a compile cut short with the first start costs the others the parse).
// With its bytecode mounted, the bundle's source is not: the engine reads
// neither it nor runtime.js then (runtime.js is the host's own bytes, kept
// as they cost nothing).
func (e *Engine) CachedBundle(m *manifest.Manifest, dir string, compile func(bundle fs.FS) ([]byte, error)) (fs.FS, error) {
	src, rel, err := readBundle(m)
	if err != nil {
		return nil, err
	}
	files := bundleFiles(src, rel)
	key := cacheKey(src, rel)
	file := filepath.Join(dir, fmt.Sprintf("%x.qbc", key))
	b, ok := readCache(file, key)
	if !ok {
		v, err, _ := flights.Do(file, func() (any, error) { return made(files, src, rel, key, dir, file, compile) })
		if err != nil {
			return nil, err
		}
		res := v.(madeBytecode)
		b, ok, file = res.b, res.ok, res.file
	}
	sum := sha256Hex(src)
	if !ok {
		return sourcedFS{memFS: files, sum: sum}, nil
	}
	delete(files, MainFile)
	files[RuntimeBytecodeFile] = &memFile{data: b.runtime}
	files[BundleBytecodeFile] = &memFile{data: b.bundle}
	return cachedFS{sourcedFS: sourcedFS{memFS: files, sum: sum}, file: file}, nil
}

// flights makes the bytecode of one cache file once at a time.
var flights singleflight.Group

// madeBytecode is what made gives every start waiting for it: the
// bytecode if ok, and the file that keeps it ("" if none could).
type madeBytecode struct {
	b    bytecode
	ok   bool
	file string
}

// made is the bytecode a start without a cache file gets: the file, if a
// flight that ended just before wrote it, or else Check's verdict and a
// compile, kept in file.
func made(files memFS, src []byte, rel string, key [sha256.Size]byte, dir, file string, compile func(fs.FS) ([]byte, error)) (madeBytecode, error) {
	if b, ok := readCache(file, key); ok {
		return madeBytecode{b: b, ok: true, file: file}, nil
	}
	if err := Check(src, rel); err != nil {
		return madeBytecode{}, err
	}
	b, out, ok := compileBundle(files, compile)
	if !ok {
		return madeBytecode{}, nil
	}
	if !writeCache(dir, file, cacheFileHeader(key, out), out) {
		file = ""
	}
	return madeBytecode{b: b, ok: true, file: file}, nil
}

// cachedFS is a /bundle with bytecode mounted, and the cache file that
// holds it.
type cachedFS struct {
	sourcedFS
	file string
}

// BytecodeFile is the cache file this /bundle's bytecode was read from or
// written to, "" if it could not be kept. The host removes it when a start
// from it fails (a bytecode QuickJS wrote but cannot read back would
// otherwise fail every start), so that the next start compiles again.
func (c cachedFS) BytecodeFile() string { return c.file }

// readCache reads the cache file for key, if it is one.
func readCache(file string, key [sha256.Size]byte) (bytecode, bool) {
	data, err := safefile.Read(file, filepath.Base(file), cacheHeader+MaxBytecodeBytes)
	if err != nil {
		return bytecode{}, false
	}
	return decodeCache(key, data)
}

// compileBundle runs compile on the bundle's source files: the bytecode,
// and the output it lies in, which is a cache file's payload.
func compileBundle(files memFS, compile func(fs.FS) ([]byte, error)) (bytecode, []byte, bool) {
	if compile == nil {
		return bytecode{}, nil, false
	}
	out, err := compile(files)
	if err != nil || len(out) > MaxBytecodeBytes {
		return bytecode{}, nil, false
	}
	b, err := parseCompiled(out)
	return b, out, err == nil
}

// writeCache writes header then payload as file: to a temporary file
// first, renamed into place, so that a start reading it meanwhile, or
// another process writing the same bytes, never sees half of it. It
// reports whether file now holds them.
func writeCache(dir, file string, header, payload []byte) bool {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false
	}
	removeStaleTemps(dir, time.Now())
	tmp, err := os.CreateTemp(dir, "*"+tempSuffix)
	if err != nil {
		return false
	}
	_, werr := tmp.Write(header)
	if werr == nil {
		_, werr = tmp.Write(payload)
	}
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), file) != nil {
		_ = os.Remove(tmp.Name())
		return false
	}
	return true
}

// tempSuffix ends the name of a cache file being written.
const tempSuffix = ".qbc.tmp"

// staleTemp is the age past which a temporary file is one a process
// killed while writing left behind: a write takes milliseconds.
const staleTemp = time.Hour

// removeStaleTemps removes the temporary files in dir older than
// staleTemp at now, so that writes cut short do not pile up.
func removeStaleTemps(dir string, now time.Time) {
	names, _ := filepath.Glob(filepath.Join(dir, "*"+tempSuffix))
	for _, name := range names {
		if info, err := os.Lstat(name); err == nil && info.Mode().IsRegular() && now.Sub(info.ModTime()) > staleTemp {
			_ = os.Remove(name)
		}
	}
}
