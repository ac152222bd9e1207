package process

import (
	"runtime"
	"slices"
	"strings"
)

// The environment a plugin's program gets (docs/protocol.md#plugin-env):
// the variables of the app's environment a program needs to run on the
// user's machine, and no other. The app cannot tell which of its variables
// hold a credential (ANTHROPIC_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY
// and any name a user or a vendor invents), so the list names what passes
// rather than what is kept back.

// unixNames are the variables passed on Linux, macOS and the BSDs: what
// finds programs (PATH), who the user is and where their folders are
// (HOME, USER, LOGNAME, SHELL, the XDG base folders, TMPDIR), and the
// language and time zone of what a program writes.
var unixNames = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR",
	"LANG", "LANGUAGE", "LC_*", "TZ",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS",
}

// darwinNames are macOS's own: the text encoding CoreFoundation reads.
var darwinNames = []string{"__CF_USER_TEXT_ENCODING"}

// windowsNames are what a Windows program needs: SYSTEMROOT (without it
// the network stack does not load), what finds and runs programs (PATH,
// PATHEXT, COMSPEC), the user and their folders, the system's folders and
// the processor that installers and runtimes read.
var windowsNames = []string{
	"PATH", "PATHEXT", "SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC",
	"USERNAME", "USERPROFILE", "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA", "TEMP", "TMP",
	"PROGRAMDATA", "ALLUSERSPROFILE", "PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMW6432",
	"COMMONPROGRAMFILES", "COMMONPROGRAMFILES(X86)", "COMMONPROGRAMW6432",
	"PROCESSOR_ARCHITECTURE", "NUMBER_OF_PROCESSORS", "OS",
	"LANG", "LC_*", "TZ",
}

// proxyNames pass only when their value holds no "@": a proxy's address is
// no secret, but user:password@ before it is one.
var proxyNames = slices.Concat(upperProxyNames, []string{"http_proxy", "https_proxy", "all_proxy", "no_proxy"})

var upperProxyNames = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"}

// EnvironmentNames are the variables of the app's environment a plugin's
// program gets on this system, where the app has them: a name ending in
// "*" stands for every name it starts. The proxy variables among them pass
// only without a user or password. On Windows names match in any case.
func EnvironmentNames() []string { return namesFor(runtime.GOOS) }

func namesFor(goos string) []string {
	switch goos {
	case "windows":
		return slices.Concat(windowsNames, upperProxyNames) // names ignore case there
	case "darwin", "ios":
		return slices.Concat(unixNames, darwinNames, proxyNames)
	}
	return slices.Concat(unixNames, proxyNames)
}

// Environ is the environment of a plugin's program made from base, the
// app's: the entries EnvironmentNames names, and those named in more (the
// host's own ESCOUADE_ variables, or what an app chose to pass; "*" at the
// end of one is a prefix). Every other variable is left out: the app's
// keys and tokens, SSH_AUTH_SOCK (the agent signs as the user), the
// desktop session (DISPLAY, WAYLAND_DISPLAY, XDG_RUNTIME_DIR,
// DBUS_SESSION_BUS_ADDRESS: the session bus reaches the keychain) and the
// rest. Each name appears once, with its last value in base, as exec.Cmd
// reads a duplicate; entries without "=" are dropped.
func Environ(base []string, more ...string) []string {
	return environFor(runtime.GOOS, base, more)
}

func environFor(goos string, base, more []string) []string {
	fold := goos == "windows"
	names := slices.Concat(namesFor(goos), more)
	last := lastOfEach(base, fold)
	env := []string{}
	for i, kv := range base {
		name, value, ok := cutEntry(kv)
		if !ok || last[key(name, fold)] != i || !passes(name, value, names, fold) {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// lastOfEach maps each name of base (upper-cased where names ignore case)
// to the index of its last entry.
func lastOfEach(base []string, fold bool) map[string]int {
	last := make(map[string]int, len(base))
	for i, kv := range base {
		if name, _, ok := cutEntry(kv); ok {
			last[key(name, fold)] = i
		}
	}
	return last
}

func key(name string, fold bool) string {
	if fold {
		return strings.ToUpper(name)
	}
	return name
}

// cutEntry splits NAME=value. A name may begin with "=": Windows keeps the
// current folder of each drive as "=C:=C:\dir".
func cutEntry(kv string) (name, value string, ok bool) {
	if kv == "" {
		return "", "", false
	}
	i := strings.IndexByte(kv[1:], '=')
	if i < 0 {
		return "", "", false
	}
	return kv[:i+1], kv[i+2:], true
}

func passes(name, value string, names []string, fold bool) bool {
	if !slices.ContainsFunc(names, func(pattern string) bool { return matches(pattern, name, fold) }) {
		return false
	}
	isProxy := slices.ContainsFunc(proxyNames, func(p string) bool { return matches(p, name, fold) })
	return !isProxy || !strings.Contains(value, "@")
}

func matches(pattern, name string, fold bool) bool {
	equal := func(a, b string) bool { return a == b || fold && strings.EqualFold(a, b) }
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return len(name) > len(prefix) && equal(name[:len(prefix)], prefix)
	}
	return equal(pattern, name)
}

// EnvironmentSentence says in lang ("en" or "fr"; any other is "en") what
// of the user's environment a plugin's program gets on this system, for
// the window that asks for consent at install.
func EnvironmentSentence(lang string) string { return sentenceFor(runtime.GOOS, lang) }

func sentenceFor(goos, lang string) string {
	var plain []string
	for _, name := range namesFor(goos) {
		if !slices.Contains(proxyNames, name) {
			plain = append(plain, name)
		}
	}
	list, proxies := strings.Join(plain, ", "), strings.Join(upperProxyNames, ", ")
	if lang == "fr" {
		return "Il ne reçoit que ces variables de ton environnement, si tu les as : " + list +
			", et " + proxies + " si elles ne contiennent ni utilisateur ni mot de passe ; aucune autre : aucune clé ni aucun jeton de l’environnement d’Escouade."
	}
	return "It gets only these variables of your environment, where you have them: " + list +
		", and " + proxies + " when they hold no user or password; no other: no key or token of Escouade's environment."
}
