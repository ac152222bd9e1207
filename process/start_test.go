package process

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/internal/testutil"
)

func TestStartRefusesMissingProgram(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		command  []string
		want     string
		notFound bool
	}{
		{"not in PATH", []string{"escouade-test-no-such-program", "--flag"},
			`program not found: "escouade-test-no-such-program" is not in PATH`, true},
		{"not in the folder", []string{"./run"},
			`program not found: "./run" is not in the plugin folder ` + dir, true},
		{"nested, not in the folder", []string{"./bin/run"},
			`program not found: "./bin/run" is not in the plugin folder ` + dir, true},
		{"a folder", []string{"./sub"},
			`program "./sub": ` + filepath.Join(dir, "sub") + ` is a directory`, false},
		{"no command", nil, "the command is empty", false},
		{"empty program", []string{""}, "the command is empty", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Start(Spec{Dir: dir, Command: tt.command})
			if err == nil {
				p.KillGroup()
				t.Fatal("Start succeeded")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if got := errors.Is(err, ErrNotFound); got != tt.notFound {
				t.Errorf("errors.Is(err, ErrNotFound) = %v, want %v", got, tt.notFound)
			}
		})
	}
}

// linkFake puts the test binary in dir under name, as a plugin ships its
// program: on Windows as name.exe, which the command names without its
// extension, and copied (a symbolic link needs a privilege there, and a
// hard link to the running test program could not be deleted after).
func linkFake(t *testing.T, dir, name string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := os.Symlink
	if runtime.GOOS == "windows" {
		name, link = name+".exe", copyFile
	}
	if err := link(self, filepath.Join(dir, name)); err != nil {
		t.Skipf("cannot link the test program: %v", err)
	}
}

func TestStartRunsInPluginFolderWithItsEnvironment(t *testing.T) {
	parent := t.TempDir()
	plugin := filepath.Join(parent, "plugin")
	if err := os.MkdirAll(filepath.Join(plugin, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	linkFake(t, plugin, "fake")
	linkFake(t, filepath.Join(plugin, "bin"), "fake")
	t.Chdir(parent)
	env := append(fakeEnvVars(t, "env"), "ESCOUADE_PLUGIN_ID=dev.escouade.test", "ESCOUADE_PLUGIN_API=1", "ESCOUADE_LANG=fr")

	tests := []struct {
		name    string
		dir     string
		command []string
	}{
		{"folder program", plugin, []string{"./fake", "one", "two words"}},
		{"nested folder program", plugin, []string{"./bin/fake", "one", "two words"}},
		{"relative plugin folder", "plugin", []string{"./fake", "one", "two words"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := start(t, Spec{Dir: tt.dir, Command: tt.command, Env: env})
			got := readReport(t, p)
			want := envReport{Args: []string{"one", "two words"}, Cwd: realPath(t, plugin), Env: sorted(withToken(env, p))}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("what the program saw (-want +got):\n%s", diff)
			}
			waitClosed(t, p.Done(), "exit")
			if diff := cmp.Diff(Exit{}, p.Exit()); diff != "" {
				t.Errorf("Exit (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStartLooksUpPath(t *testing.T) {
	bin := t.TempDir()
	linkFake(t, bin, "escouade-test-fake")
	t.Setenv("PATH", bin)
	env := fakeEnvVars(t, "env")
	p := start(t, Spec{Dir: t.TempDir(), Command: []string{"escouade-test-fake", "x"}, Env: env})
	got := readReport(t, p)
	if diff := cmp.Diff([]string{"x"}, got.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
}

// withToken is env with the token Start adds where it tags programs.
func withToken(env []string, p *Process) []string {
	if p.token == "" {
		return env
	}
	return append(env[:len(env):len(env)], TokenEnv+"="+p.token)
}

// envReport is what the env fake prints.
type envReport struct {
	Args []string
	Cwd  string
	Env  []string
}

func readReport(t *testing.T, p *Process) envReport {
	t.Helper()
	var r envReport
	lines := stdoutLines(t, p)
	for lines.Scan() {
		key, value, _ := strings.Cut(lines.Text(), "=")
		switch key {
		case "arg":
			r.Args = append(r.Args, value)
		case "cwd":
			r.Cwd = realPath(t, value)
		case "env":
			if !addedBySystem(value) {
				r.Env = append(r.Env, value)
			}
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	r.Env = sorted(r.Env)
	return r
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}

// addedBySystem says whether a variable is one every Windows program gets
// whatever its environment: os/exec adds SYSTEMROOT, and wine adds
// SystemDrive and its own WINE… variables to each process it starts.
func addedBySystem(variable string) bool {
	if runtime.GOOS != "windows" {
		return false
	}
	name, _, _ := strings.Cut(strings.ToUpper(variable), "=")
	if name == "SYSTEMROOT" {
		return true
	}
	return testutil.UnderWine() && (name == "SYSTEMDRIVE" || strings.HasPrefix(name, "WINE"))
}

func realPath(t *testing.T, path string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
