package harness

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// ID gives the harness id of a described harness: plugin:<plugin>:<harness>.
func ID(pluginID, harnessID string) string {
	return "plugin:" + pluginID + ":" + harnessID
}

// ErrNotInstalled reports an agent program found nowhere in PATH.
var ErrNotInstalled = errors.New("not installed")

// Locate finds the harness's program: the first of locate.names found in
// the PATH of env (a declarative plugin never gives a path).
func Locate(h *manifest.Harness, env []string) (string, error) {
	return locateOn(h, env, runtime.GOOS)
}

// locateOn is Locate on the system goos, whose install command the
// refusal quotes.
func locateOn(h *manifest.Harness, env []string, goos string) (string, error) {
	dirs := filepath.SplitList(lookupEnv(env, "PATH"))
	for _, name := range h.Locate.Names {
		if strings.ContainsAny(name, `/\`) {
			continue // a path, which a manifest may not give
		}
		for _, dir := range dirs {
			if dir == "" {
				continue
			}
			if path, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
				return path, nil
			}
		}
	}
	return "", fmt.Errorf("%s is %w: none of %s is in PATH%s", h.Name.In("en"), ErrNotInstalled,
		strings.Join(h.Locate.Names, ", "), installHint(h, goos))
}

// InstallCommand is the command that installs the agent on the system
// goos (a runtime.GOOS value), shown to the user and never run by the
// host: install.windows on Windows, install.unix elsewhere; "" when the
// manifest gives none for it.
func InstallCommand(h *manifest.Harness, goos string) string {
	if goos == "windows" {
		return h.Install.Windows
	}
	return h.Install.Unix
}

func installHint(h *manifest.Harness, goos string) string {
	cmd := InstallCommand(h, goos)
	if cmd == "" {
		return ""
	}
	return " (install it with: " + cmd + ")"
}

// UpdateAdvice says how the user updates the agent: its updateCommand,
// else (when the manifest gives none) its install command on goos.
func UpdateAdvice(h *manifest.Harness, goos string) (string, error) {
	name := h.Name.In("en")
	if h.UpdateCommand != "" {
		return fmt.Sprintf("To update %s, run: %s", name, h.UpdateCommand), nil
	}
	if cmd := InstallCommand(h, goos); cmd != "" {
		return fmt.Sprintf("%s gives no updateCommand: to update it, install it again with: %s", name, cmd), nil
	}
	return "", fmt.Errorf("%s gives neither an updateCommand nor an install command for this system: update it as you installed it", name)
}

// versionPattern is a semver-looking token: 1.57, 1.57.0, v1.57.0-rc.1.
var versionPattern = regexp.MustCompile(`\bv?(\d+\.\d+(?:\.\d+)?(?:-[0-9A-Za-z.-]+)?)`)

// ParseVersion gives the first semver-looking token of a version output.
func ParseVersion(output string) (string, bool) {
	m := versionPattern.FindStringSubmatch(output)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// ReadVersion runs the program with its versionArgs and reads its version.
func ReadVersion(ctx context.Context, path string, args []string, env []string) (string, error) {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", filepath.Base(path), strings.Join(args, " "), err)
	}
	v, ok := ParseVersion(string(out))
	if !ok {
		return "", fmt.Errorf("%s %s printed no version", filepath.Base(path), strings.Join(args, " "))
	}
	return v, nil
}

// TestedNotice gives the notice of a version outside the tested range, or
// "" when it is inside or the range is not given:
// "Goose 1.60.0 has not been tried with this plugin (tried: 1.57.0)".
func TestedNotice(name, version string, tested manifest.Tested) string {
	if tested.Oldest == "" && tested.Newest == "" {
		return ""
	}
	tooOld := tested.Oldest != "" && compareVersions(version, tested.Oldest) < 0
	tooNew := tested.Newest != "" && compareVersions(version, tested.Newest) > 0
	if !tooOld && !tooNew {
		return ""
	}
	return fmt.Sprintf("%s %s has not been tried with this plugin (tried: %s)", name, version, triedRange(tested))
}

func triedRange(t manifest.Tested) string {
	switch {
	case t.Oldest == "" || t.Oldest == t.Newest:
		return t.Newest
	case t.Newest == "":
		return t.Oldest + " and later"
	}
	return t.Oldest + " to " + t.Newest
}

// compareVersions compares major.minor.patch numerically; a pre-release
// comes before its release.
func compareVersions(a, b string) int {
	ca, pa := splitVersion(a)
	cb, pb := splitVersion(b)
	for i := range 3 {
		if ca[i] != cb[i] {
			return ca[i] - cb[i]
		}
	}
	switch {
	case pa == pb:
		return 0
	case pa == "":
		return 1
	case pb == "":
		return -1
	}
	return strings.Compare(pa, pb)
}

func splitVersion(v string) (core [3]int, pre string) {
	v = strings.TrimPrefix(v, "v")
	v, pre, _ = strings.Cut(v, "-")
	for i, part := range strings.SplitN(v, ".", 3) {
		core[i], _ = strconv.Atoi(part) // a part that is not a number counts as 0
	}
	return core, pre
}
