package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/netguard"
	"github.com/escouade-dev/escouade-plugin/protocol"
)

// GitDir is where the repositories installed from git are checked out,
// under the home: <home>/git/<name>-<hash of the URL>/<commit>. A
// checkout is never changed once made; an update is another commit's
// folder, and the folders no install points to any more are removed.
const GitDir = "git"

// The bounds of a clone (docs/CLI.md#install): a repository is a plugin's
// folder, a few MB; past these it is stopped and nothing of it is kept.
// MaxCloneBytes bounds what is fetched; its checkout is held to
// MaxFolderFiles and MaxFolderBytes.
const (
	CloneTimeout  = protocol.CloneTime
	MaxCloneBytes = protocol.CloneBytes
)

// GitOptions are the app's settings a clone depends on.
type GitOptions struct {
	// Proxy is the proxy of Settings › Network, or "": through it only the
	// host's name is judged, as for net/fetch.
	Proxy string
	// Resolver looks host names up; nil is the system's.
	Resolver netguard.Resolver
	// Timeout and MaxBytes bound the clone; zero is CloneTimeout and
	// MaxCloneBytes.
	Timeout  time.Duration
	MaxBytes int64
	// MaxFiles and MaxDiskBytes bound the checkout; zero is MaxFolderFiles
	// and MaxFolderBytes.
	MaxFiles     int64
	MaxDiskBytes int64
}

// IsGitSource reports whether what the user typed names a git
// repository rather than a plugin's folder: a URL (any scheme, so that
// the ones refused are refused with their reason), git's transport::
// form, or a local bare repository (a folder with HEAD and objects, no
// manifest).
func IsGitSource(s string) bool {
	if strings.Contains(s, "://") || transportForm.MatchString(s) {
		return true
	}
	if fileExists(filepath.Join(s, manifest.FileName)) {
		return false
	}
	return fileExists(filepath.Join(s, "HEAD")) && fileExists(filepath.Join(s, "objects"))
}

// SourceOf is the source recorded for what the user typed: a local
// repository's absolute path, else the URL as typed.
func SourceOf(typed string) (string, error) {
	if strings.Contains(typed, "://") || transportForm.MatchString(typed) {
		return typed, nil
	}
	return filepath.Abs(typed)
}

// transportForm is git's <transport>::<address> (ext::, fd::), which runs
// a command or opens a descriptor: always refused.
var transportForm = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*::`)

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// gitSource is a source judged fit to clone: what git is given, and the
// pinned address of an https host.
type gitSource struct {
	arg     string // the URL or absolute path handed to git
	key     string // the folder of its checkouts under GitDir
	resolve string // http.curloptResolve's host:port:address, or ""
}

// judgeSource refuses every source but https, file:// and a local
// repository, and an https host that is this machine or its network.
func judgeSource(ctx context.Context, raw string, o GitOptions) (gitSource, error) {
	if transportForm.MatchString(raw) {
		return gitSource{}, fmt.Errorf("%s: git's %s transport runs a command or opens a descriptor, and is never used: install from an https:// URL, a file:// URL or a local repository", raw, strings.SplitN(raw, "::", 2)[0]+"::")
	}
	if !strings.Contains(raw, "://") {
		abs, err := filepath.Abs(raw)
		if err != nil {
			return gitSource{}, err
		}
		// The same key as its file:// URL: both are one repository.
		return gitSource{arg: abs, key: checkoutKey("file://" + filepath.ToSlash(abs))}, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return gitSource{}, fmt.Errorf("%q: not a valid URL (fix: give the repository's https:// address)", raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return gitSource{}, fmt.Errorf("%s: a file:// URL names a folder of this computer: write file:///path/to/repo.git", u.Redacted())
		}
		return gitSource{arg: "file://" + u.Path, key: checkoutKey("file://" + u.Path)}, nil
	case "https", "http":
		return judgeHTTPS(ctx, u, o)
	}
	return gitSource{}, fmt.Errorf("%s: a git repository is installed over https, from a file:// URL or from a local folder only; %s:// is not used (fix: give the repository's https:// address)", u.Redacted(), u.Scheme)
}

// judgeHTTPS judges an https host as the egress guard judges a plugin's
// (docs/protocol.md#netfetch): never an address of
// this machine or of the local network, the name resolved once and the
// address git connects to pinned to it, so a second answer of the DNS
// cannot lead it elsewhere. Through a proxy only the name is judged: the
// proxy resolves and dials.
func judgeHTTPS(ctx context.Context, u *url.URL, o GitOptions) (gitSource, error) {
	policy := netguard.NewPolicy(netguard.Config{PluginID: "the install", Network: []string{u.Hostname()}})
	t, refusal := policy.CheckURL(u.String(), netguard.HTTP)
	if refusal != nil {
		return gitSource{}, fmt.Errorf("%s: not cloned: %s", u.Redacted(), refusal.Reason)
	}
	src := gitSource{arg: t.URL.String(), key: checkoutKey(t.URL.String())}
	if o.Proxy != "" {
		return src, nil
	}
	addr, err := netip.ParseAddr(t.Host)
	if err != nil {
		addr, err = resolveJudged(ctx, t.Host, o.Resolver)
		if err != nil {
			return gitSource{}, fmt.Errorf("%s: not cloned: %v", u.Redacted(), err)
		}
	}
	shown := addr.String()
	if addr.Is6() {
		shown = "[" + shown + "]"
	}
	src.resolve = t.Host + ":" + t.Port + ":" + shown
	return src, nil
}

// resolveJudged resolves host once and refuses it when any of its
// addresses is forbidden (one local address among public ones is a
// rebinding attempt); it returns the address to pin.
func resolveJudged(ctx context.Context, host string, r netguard.Resolver) (netip.Addr, error) {
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return netip.Addr{}, fmt.Errorf("%s cannot be resolved (check the address, or set a proxy in Settings › Network)", host)
	}
	for _, a := range addrs {
		if netguard.Forbidden(a) {
			return netip.Addr{}, fmt.Errorf("%s resolves to %s, an address of this machine or of the local network", host, a.Unmap())
		}
	}
	return addrs[0].Unmap(), nil
}

// checkoutKey names the folder of a source's checkouts: its last path
// element, readable, and a hash of the whole source, unique.
func checkoutKey(source string) string {
	sum := sha256.Sum256([]byte(source))
	base := strings.TrimSuffix(filepath.Base(strings.TrimRight(filepath.ToSlash(source), "/")), ".git")
	base = regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(base, "-")
	if len(base) > 40 {
		base = base[:40]
	}
	return strings.Trim(base, ".-") + "-" + hex.EncodeToString(sum[:6])
}

// Clone checks the default branch of the repository source out into the
// home and returns its folder, which holds the plugin's manifest. Git is
// hostile input here: only https and file are spoken, no hook, no
// submodule, no prompt, no system or user configuration, no redirect, no
// symbolic link checked out as one; the clone is bounded in time and size,
// and its checkout by the bounds of a plugin's folder, counted on the
// fetched tree before a file is written and watched while git writes.
// A clone that fails leaves nothing behind; a repository without a valid
// manifest is refused with the manifest's own sentence.
func Clone(ctx context.Context, home, source string, o GitOptions) (string, error) {
	src, err := judgeSource(ctx, source, o)
	if err != nil {
		return "", err
	}
	root := filepath.Join(home, GitDir)
	if err := os.MkdirAll(root, dirMode); err != nil {
		return "", err
	}
	removeStalePartials(root, time.Now())
	partial, err := os.MkdirTemp(root, ".partial-")
	if err != nil {
		return "", err
	}
	dir, err := cloneInto(ctx, src, partial, root, o)
	if err != nil {
		os.RemoveAll(partial)
		if errors.As(err, new(*boundRefusal)) {
			return "", fmt.Errorf("%s: not installed: %w", redact(source), err)
		}
		return "", fmt.Errorf("%s: not cloned: %w", redact(source), err)
	}
	if _, err := manifest.Load(dir, manifest.LoadOptions{}); err != nil {
		os.RemoveAll(dir)
		os.Remove(filepath.Dir(dir)) // when it was the source's only checkout
		return "", err
	}
	return dir, nil
}

// stalePartial is the age past which a .partial- folder is a clone's
// leftover: a clone that failed removes its own, so one older than any
// clone lasts is what a host that crashed mid-clone left.
const stalePartial = time.Hour

// removeStalePartials removes the .partial- folders under root older than
// stalePartial; nothing was ever installed from them.
func removeStalePartials(root string, now time.Time) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), ".partial-") {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > stalePartial {
			_ = os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}

// cloneInto fetches into partial/work, counts its tree, checks it out,
// then moves the checkout to its commit's folder.
func cloneInto(ctx context.Context, src gitSource, partial, root string, o GitOptions) (string, error) {
	empty := filepath.Join(partial, "empty") // no hooks, no templates
	work := filepath.Join(partial, "work")
	if err := os.Mkdir(empty, dirMode); err != nil {
		return "", err
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = CloneTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("the clone took more than %s", timeout))
	defer cancel()
	if err := fetch(ctx, src, partial, work, empty, o); err != nil {
		return "", err
	}
	bounds := boundsOf(o)
	if err := checkTree(ctx, empty, src, work, bounds); err != nil {
		return "", err
	}
	if err := checkoutBounded(ctx, empty, src, work, bounds); err != nil {
		return "", err
	}
	commit, err := gitOutput(ctx, empty, append(gitConfig(empty, src, ""), "-C", work, "rev-parse", "HEAD")...)
	if err != nil {
		return "", err
	}
	// The checkout is a plugin's folder, not a repository: nothing acts on
	// its .git later, and files/read has nothing hidden to refuse.
	if err := os.RemoveAll(filepath.Join(work, ".git")); err != nil {
		return "", err
	}
	dir := filepath.Join(root, src.key, commit[:min(len(commit), 12)])
	if fileExists(dir) {
		os.RemoveAll(partial) // this commit is checked out already
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), dirMode); err != nil {
		return "", err
	}
	if err := os.Rename(work, dir); err != nil {
		return "", err
	}
	return dir, os.RemoveAll(partial)
}

// fetch clones the default branch into work without checking it out,
// stopped when partial passes the clone's size bound.
func fetch(ctx context.Context, src gitSource, partial, work, empty string, o GitOptions) error {
	limit := o.MaxBytes
	if limit <= 0 {
		limit = MaxCloneBytes
	}
	check := func() error {
		if treeSize(partial) > limit {
			return tooLarge(limit)
		}
		return nil
	}
	args := append(gitConfig(empty, src, o.Proxy), "clone", "--quiet", "--no-checkout", "--depth=1", "--single-branch", "--no-tags",
		"--no-recurse-submodules", "--no-local", "--template="+empty, "--", src.arg, work)
	if err := runGit(ctx, empty, check, args...); err != nil {
		return err
	}
	return check() // what grew between the last look and the end
}

// gitConfig is the -c options of every git command: the protocols
// allowed, hooks and fsmonitor off, no redirect, symbolic links checked
// out as plain files, the pinned address and the proxy.
func gitConfig(empty string, src gitSource, proxy string) []string {
	c := []string{
		"protocol.allow=never", "protocol.file.allow=always", "protocol.https.allow=always",
		"core.hooksPath=" + empty, "core.fsmonitor=false", "core.symlinks=false",
		"submodule.recurse=false", "http.followRedirects=false", "credential.helper=",
		"http.proxy=" + proxy,
	}
	if src.resolve != "" {
		c = append(c, "http.curloptResolve="+src.resolve)
	}
	args := make([]string, 0, 2*len(c))
	for _, kv := range c {
		args = append(args, "-c", kv)
	}
	return args
}

// gitEnv is the whole environment of git: none of the user's, so no
// GIT_DIR, proxy variable or askpass program of theirs plays a part.
func gitEnv(empty string) []string {
	env := []string{
		"GIT_ALLOW_PROTOCOL=file:https", "GIT_PROTOCOL_FROM_USER=0",
		"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_LFS_SKIP_SMUDGE=1", "HOME=" + empty, "XDG_CONFIG_HOME=" + empty,
		"LC_ALL=C",
	}
	for _, k := range []string{"PATH", "SystemRoot", "TMPDIR", "TEMP", "TMP"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// runGit runs git and stops it when check, called as it runs, refuses
// what it wrote so far.
func runGit(ctx context.Context, empty string, check func() error, args ...string) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	cmd := gitCommand(ctx, empty, args...)
	var stderr strings.Builder
	cmd.Stderr = &limitedWriter{w: &stderr, left: 4096}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git cannot be run (%v): install git", err)
	}
	stop := watch(ctx, check, cancel)
	err := cmd.Wait()
	stop()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	if err != nil {
		return fmt.Errorf("git: %s", lastLine(stderr.String(), err))
	}
	return nil
}

// gitOutput runs git and returns its first line of output.
func gitOutput(ctx context.Context, empty string, args ...string) (string, error) {
	out, err := gitCommand(ctx, empty, args...).Output()
	if err != nil {
		return "", fmt.Errorf("git rev-parse: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func gitCommand(ctx context.Context, empty string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = gitEnv(empty)
	cmd.Dir = empty
	setGroup(cmd)
	cmd.WaitDelay = 5 * time.Second // what git started may hold its pipes
	return cmd
}

// watchTicks are the times a running git's output is looked at; a test
// looks without a pause.
var watchTicks = func() (<-chan time.Time, func()) {
	t := time.NewTicker(200 * time.Millisecond)
	return t.C, t.Stop
}

// watch calls check at each tick and cancels with its refusal; stop ends
// the watch and returns once it has ended.
func watch(ctx context.Context, check func() error, cancel context.CancelCauseFunc) (stop func()) {
	done, ended := make(chan struct{}), make(chan struct{})
	ticks, stopTicks := watchTicks()
	go func() {
		defer close(ended)
		defer stopTicks()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-ticks:
				if err := check(); err != nil {
					cancel(err)
					return
				}
			}
		}
	}()
	return func() { close(done); <-ended }
}

func tooLarge(limit int64) error {
	if limit >= 1<<20 {
		return fmt.Errorf("the repository is larger than %d MB, the most a plugin's clone may take", limit>>20)
	}
	return fmt.Errorf("the repository is larger than %d bytes, the most a plugin's clone may take", limit)
}

func treeSize(dir string) int64 {
	var n int64
	walkFolder(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// lastLine is git's last line of stderr, else the exit.
func lastLine(stderr string, err error) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return l
	}
	return err.Error()
}

// limitedWriter keeps the first left bytes written.
type limitedWriter struct {
	w    *strings.Builder
	left int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.left > 0 {
		n := min(len(p), l.left)
		l.w.Write(p[:n])
		l.left -= n
	}
	return len(p), nil
}

// redact hides the password of a URL in what is shown.
func redact(source string) string {
	if u, err := url.Parse(source); err == nil && u.User != nil {
		return u.Redacted()
	}
	return source
}

// PruneCheckouts removes the other checkouts of the source dir was
// checked out from that no entry of the registry is installed from: an
// install from git that moved on to another commit leaves only its own.
func PruneCheckouts(home, dir string, r *Registry) {
	root := filepath.Join(home, GitDir)
	parent := filepath.Dir(filepath.Clean(dir))
	if filepath.Dir(parent) != filepath.Clean(root) {
		return // not a checkout of GitDir
	}
	used := map[string]bool{filepath.Clean(dir): true}
	for _, e := range r.List() {
		used[filepath.Clean(e.Dir)] = true
	}
	commits, _ := os.ReadDir(parent)
	for _, c := range commits {
		if other := filepath.Join(parent, c.Name()); !used[other] {
			os.RemoveAll(other)
		}
	}
}

// DiscardCheckout removes the checkout dir of GitDir when no entry of the
// registry is installed from it: a repository refused after its clone
// (its module does not compile, it needs a newer Escouade) leaves nothing.
func DiscardCheckout(home, dir string) {
	parent := filepath.Dir(filepath.Clean(dir))
	if filepath.Dir(parent) != filepath.Join(home, GitDir) {
		return
	}
	if r, err := Open(home); err == nil {
		for _, e := range r.List() {
			if filepath.Clean(e.Dir) == filepath.Clean(dir) {
				return
			}
		}
	}
	os.RemoveAll(dir)
	os.Remove(parent) // when it was the source's only checkout
}
