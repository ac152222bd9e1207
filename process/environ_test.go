package process

import (
	"context"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
	"github.com/google/go-cmp/cmp"
)

// secrets are variables an app's environment holds that no plugin may get.
var secrets = []string{
	"ANTHROPIC_API_KEY=sk-ant-planted", "OPENAI_API_KEY=sk-planted", "AWS_SECRET_ACCESS_KEY=planted",
	"AWS_ACCESS_KEY_ID=AKIAPLANTED", "GITHUB_TOKEN=ghp_planted", "GH_TOKEN=gho_planted", "NPM_TOKEN=planted",
	"SSH_AUTH_SOCK=/tmp/ssh-x/agent.1", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus",
	"XDG_RUNTIME_DIR=/run/user/1000", "DISPLAY=:0", "WAYLAND_DISPLAY=wayland-0", "XAUTHORITY=/home/u/.Xauthority",
	"TERM=xterm", "ESCOUADE_HOME=/home/u/.escouade", "GIT_ASKPASS=/usr/bin/askpass", "LD_PRELOAD=/tmp/x.so",
}

func TestEnvironOnUnix(t *testing.T) {
	base := slices.Concat([]string{
		"PATH=/first", "HOME=/home/u", "USER=u", "LOGNAME=u", "SHELL=/bin/zsh", "TMPDIR=/tmp/u",
		"LANG=fr_FR.UTF-8", "LC_TIME=C", "LC_=bare", "TZ=Europe/Paris", "XDG_CONFIG_HOME=/home/u/.config",
		"path=/lower", "Home=/other", "PATH=/last",
		"HTTP_PROXY=http://proxy.example:3128", "https_proxy=http://user:pw@proxy.example:3128",
		"ALL_PROXY=socks5://proxy.example", "no_proxy=localhost,.corp",
		"", "NOEQUALS", "=C:=C:\\dir", "=", "__CF_USER_TEXT_ENCODING=0x1F5:0x0:0x0",
		"EMPTY_OK=",
	}, secrets)
	got := environFor("linux", base, []string{"ESCOUADE_PLUGIN_ID", "EMPTY_OK"})
	want := []string{
		"HOME=/home/u", "USER=u", "LOGNAME=u", "SHELL=/bin/zsh", "TMPDIR=/tmp/u",
		"LANG=fr_FR.UTF-8", "LC_TIME=C", "TZ=Europe/Paris", "XDG_CONFIG_HOME=/home/u/.config",
		"PATH=/last",
		"HTTP_PROXY=http://proxy.example:3128", "ALL_PROXY=socks5://proxy.example", "no_proxy=localhost,.corp",
		"EMPTY_OK=",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("environ (-want +got):\n%s", diff)
	}
}

func TestEnvironOnMacOSPassesTheTextEncoding(t *testing.T) {
	base := append([]string{"PATH=/bin", "__CF_USER_TEXT_ENCODING=0x1F5:0x0:0x0"}, secrets...)
	want := []string{"PATH=/bin", "__CF_USER_TEXT_ENCODING=0x1F5:0x0:0x0"}
	if diff := cmp.Diff(want, environFor("darwin", base, nil)); diff != "" {
		t.Errorf("environ (-want +got):\n%s", diff)
	}
}

// On Windows names ignore case: Path and PATH are one variable, the last
// one counts, and its spelling is kept; the drives' current folders
// ("=C:=…") are no variables a program needs.
func TestEnvironOnWindows(t *testing.T) {
	base := slices.Concat([]string{
		"=C:=C:\\Users\\u", "=ExitCode=00000000", "PATH=C:\\first", "SystemRoot=C:\\Windows",
		"windir=C:\\Windows", "ComSpec=C:\\Windows\\system32\\cmd.exe", "PATHEXT=.COM;.EXE",
		"USERPROFILE=C:\\Users\\u", "APPDATA=C:\\Users\\u\\AppData\\Roaming", "TEMP=C:\\Temp", "tmp=C:\\Temp",
		"ProgramFiles(x86)=C:\\Program Files (x86)", "lc_all=C", "Path=C:\\last",
		"Http_Proxy=http://u:p@proxy:8080", "no_proxy=localhost",
		"anthropic_api_key=sk-ant-planted", "Github_Token=ghp_planted", "HOME=C:\\Users\\u",
	}, secrets)
	got := environFor("windows", base, []string{"escouade_plugin_id"})
	want := []string{
		"SystemRoot=C:\\Windows", "windir=C:\\Windows", "ComSpec=C:\\Windows\\system32\\cmd.exe", "PATHEXT=.COM;.EXE",
		"USERPROFILE=C:\\Users\\u", "APPDATA=C:\\Users\\u\\AppData\\Roaming", "TEMP=C:\\Temp", "tmp=C:\\Temp",
		"ProgramFiles(x86)=C:\\Program Files (x86)", "lc_all=C", "Path=C:\\last", "no_proxy=localhost",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("environ (-want +got):\n%s", diff)
	}
	if got := environFor("windows", []string{"ESCOUADE_PLUGIN_ID=a", "Escouade_Plugin_Id=b"}, []string{"ESCOUADE_PLUGIN_ID"}); !slices.Equal(got, []string{"Escouade_Plugin_Id=b"}) {
		t.Errorf("a name given twice in two cases gave %q, want the last alone", got)
	}
}

// On Unix names keep their case: path is not PATH, and both may be set.
func TestEnvironUnixNamesKeepTheirCase(t *testing.T) {
	got := environFor("linux", []string{"PATH=/a", "Path=/b", "lc_all=C", "anthropic_api_key=x"}, nil)
	if !slices.Equal(got, []string{"PATH=/a"}) {
		t.Errorf("environ = %q, want PATH alone", got)
	}
}

func TestEnvironMorePrefix(t *testing.T) {
	got := environFor("linux", []string{"GOPATH=/go", "GOFLAGS=-mod=mod", "GO=x", "CARGO_HOME=/c"}, []string{"GO*"})
	if !slices.Equal(got, []string{"GOPATH=/go", "GOFLAGS=-mod=mod"}) {
		t.Errorf("environ = %q, want the GO… variables, not GO itself", got)
	}
}

func TestEnvironOfNothing(t *testing.T) {
	if got := Environ(nil); got == nil || len(got) != 0 {
		t.Errorf("Environ(nil) = %#v, want an empty environment (nil would mean the host's own to exec)", got)
	}
}

// The sentence of the install window names every variable that passes.
func TestEnvironmentSentence(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, lang := range []string{"en", "fr"} {
			s := sentenceFor(goos, lang)
			for _, name := range namesFor(goos) {
				if !strings.Contains(s, strings.ToUpper(name)) {
					t.Errorf("%s %s: the sentence does not name %s: %s", goos, lang, name, s)
				}
			}
		}
		if sentenceFor(goos, "fr") == sentenceFor(goos, "en") {
			t.Errorf("%s: the French sentence is the English one", goos)
		}
	}
	if EnvironmentSentence("de") != EnvironmentSentence("en") {
		t.Error("an unknown language does not fall back to English")
	}
}

// A plugin's program gets, of the app's environment, what Environ passes,
// plus the host's ESCOUADE_ variables and the instance token; the app's
// keys and tokens never reach it.
func TestTransportPassesTheAllowedEnvironment(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	own := []string{"ESCOUADE_LANG=fr", "ESCOUADE_PLUGIN_API=1", "ESCOUADE_PLUGIN_ID=dev.escouade.test", "ESCOUADE_VERSION=2.2.0"}
	// The user's folder, by the name this system passes it.
	home := "HOME=/home/u"
	if runtime.GOOS == "windows" {
		home = `USERPROFILE=C:\Users\u`
	}
	app := slices.Concat([]string{"PATH=/usr/bin:/bin", home, "LANG=C.UTF-8"}, secrets, own, fakeEnvVars(t, "env"))
	tr := Transport{Grace: ignoredGrace}.Passing(fakeEnvNames...)
	prog, err := tr.Launch(context.Background(), transport.LaunchSpec{Dir: t.TempDir(), Kind: string(manifest.RunProcess), Command: []string{self}, Env: app})
	if err != nil {
		t.Fatal(err)
	}
	p := prog.(*program).Process
	t.Cleanup(func() { p.Stop(stoppedNow(), ignoredGrace) })
	got := readReport(t, p)
	want := sorted(withToken(slices.Concat([]string{"PATH=/usr/bin:/bin", home, "LANG=C.UTF-8"}, own, fakeEnvVars(t, "env")), p))
	// fakeEnvVars makes a new coverage folder at each call: compare all
	// but that one.
	if diff := cmp.Diff(withoutCover(want), withoutCover(got.Env)); diff != "" {
		t.Errorf("the program's environment (-want +got):\n%s", diff)
	}
	waitClosed(t, p.Done(), "exit")
}

// withoutCover is env without GOCOVERDIR and, on Windows, the SYSTEMROOT
// exec.Cmd adds when the environment lacks it.
func withoutCover(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "GOCOVERDIR=") || runtime.GOOS == "windows" && strings.HasPrefix(strings.ToUpper(kv), "SYSTEMROOT=")
	})
}

func FuzzEnviron(f *testing.F) {
	f.Add("PATH=/a\x00Path=/b\x00=C:=C:\\x\x00HTTP_PROXY=http://u:p@h\x00LC_ALL=C\x00KEY=s", "KEY", true)
	f.Add("PATH=/a\x00PATH=/b\x00no_proxy=x\x00\x00=\x00A", "", false)
	f.Fuzz(func(t *testing.T, joined, more string, windows bool) {
		goos := "linux"
		if windows {
			goos = "windows"
		}
		base := strings.Split(joined, "\x00")
		got := environFor(goos, base, []string{more})
		seen := map[string]bool{}
		names := append(namesFor(goos), more)
		for _, kv := range got {
			name, value, ok := cutEntry(kv)
			if !ok || !slices.Contains(base, kv) {
				t.Fatalf("%q is no entry of the base", kv)
			}
			k := key(name, windows)
			if seen[k] {
				t.Fatalf("%s twice in %q", name, got)
			}
			seen[k] = true
			if !slices.ContainsFunc(names, func(p string) bool { return matches(p, name, windows) }) {
				t.Fatalf("%s passed but no name allows it", name)
			}
			if slices.ContainsFunc(proxyNames, func(p string) bool { return matches(p, name, windows) }) && strings.Contains(value, "@") {
				t.Fatalf("a proxy with a user passed: %q", kv)
			}
			if last := base[lastOfEach(base, windows)[k]]; last != kv {
				t.Fatalf("%q passed, but the last %s of the base is %q", kv, name, last)
			}
		}
	})
}

// BenchmarkEnviron filters an environment of 60 variables, one launch's
// work.
func BenchmarkEnviron(b *testing.B) {
	base := slices.Concat([]string{"PATH=/usr/bin:/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C"}, secrets)
	for i := len(base); i < 60; i++ {
		base = append(base, "VAR_"+strings.Repeat("X", i)+"=value")
	}
	for b.Loop() {
		Environ(base, "ESCOUADE_PLUGIN_ID", "ESCOUADE_LANG")
	}
}
