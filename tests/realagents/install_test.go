//go:build linux && amd64

package realagents

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The npm packages the tests run, pinned here and nowhere else. The
// Goose version is also the tested range of plugins/goose.
var (
	claudePkg = npmPackage{name: "@agentclientprotocol/claude-agent-acp", version: "0.101.0", bin: "claude-agent-acp"}
	codexPkg  = npmPackage{name: "@zed-industries/codex-acp", version: "0.16.0", bin: "codex-acp"}
	goosePkg  = npmPackage{name: "@aaif/goose-binary-linux-x64", version: "1.52.0", bin: "goose-binary-linux-x64"}
)

type npmPackage struct{ name, version, bin string }

func (p npmPackage) spec() string { return p.name + "@" + p.version }

// cacheDir is where installs are kept across runs: the user's cache,
// $XDG_CACHE_HOME or ~/.cache.
func (p npmPackage) cacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "escouade-tests", "npm", p.spec()), nil
}

var (
	installs   sync.Map // spec → *installOnce
	reachOnce  sync.Once
	reachError error
)

type installOnce struct {
	once sync.Once
	bin  string
	err  error
	skip string
}

// installed gives the path of p's program, installing p into the cache
// the first time. It skips the test, saying why, only when the registry
// cannot be reached; any other failure fails it.
func installed(t *testing.T, p npmPackage) string {
	t.Helper()
	v, _ := installs.LoadOrStore(p.spec(), &installOnce{})
	in := v.(*installOnce)
	in.once.Do(func() { in.bin, in.skip, in.err = install(p) })
	if in.skip != "" {
		t.Skip(in.skip)
	}
	if in.err != nil {
		t.Fatal(in.err)
	}
	return in.bin
}

func install(p npmPackage) (bin, skip string, err error) {
	dir, err := p.cacheDir()
	if err != nil {
		return "", "", err
	}
	bin = filepath.Join(dir, "node_modules", ".bin", p.bin)
	if _, err := os.Stat(bin); err == nil {
		return bin, "", nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", "npm is not installed: the real agents come from npm", nil
	}
	if why := registryOutOfReach(); why != "" {
		return "", why, nil
	}
	// Installed beside the final folder, then renamed: a run stopped
	// half-way leaves no folder that looks complete.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".partial-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", tmp, "--no-audit", "--no-fund", "--no-save", "--loglevel=error", p.spec())
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("npm install %s: %v\n%s", p.spec(), err, out)
	}
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		if _, statErr := os.Stat(bin); statErr != nil {
			return "", "", err
		}
	}
	return bin, "", nil
}

// registryOutOfReach asks the registry once, with a short timeout, and
// says why the agents cannot be installed when it does not answer.
func registryOutOfReach() string {
	reachOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "npm", "view", goosePkg.spec(), "version", "--fetch-retries=0", "--fetch-timeout=10000").CombinedOutput()
		// A registry that answers "no such version" is reached: the
		// install then fails, naming it.
		if err != nil && !strings.Contains(string(out), "E404") {
			reachError = fmt.Errorf("the npm registry is out of reach (npm view %s: %v: %s): the real agents cannot be installed", goosePkg.spec(), err, firstLine(string(out)))
		}
	})
	if reachError != nil {
		return reachError.Error()
	}
	return ""
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
