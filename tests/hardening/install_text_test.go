//go:build linux

package hardening

import (
	"strings"
	"testing"
	"unicode"

	"github.com/escouade-dev/escouade-plugin/internal/safetext"
)

// rawControls lists the control characters of text other than newline and
// tab, C1 included: ANSI escapes and NULs that a terminal would act on.
func rawControls(text string) []string {
	var found []string
	for i, r := range text {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			continue
		}
		lo, hi := max(0, i-20), min(len(text), i+20)
		found = append(found, strings.ToValidUTF8(text[lo:hi], "?"))
	}
	return found
}

// A manifest whose texts hold a control, bidirectional or invisible
// character is refused at load, whoever loads it: install names the field
// and the character, prints none of them raw, and records nothing. The
// forged window of the issue ("Nice\x1b[1A\x1b[2KInstall Nice 1.0…") is
// the first case.
func TestInstallRefusesUnsafeTexts(t *testing.T) {
	harness := func(h map[string]any) map[string]any {
		entry := map[string]any{"id": "h", "name": "H", "locate": map[string]any{"names": []string{"agent"}}}
		for k, v := range h {
			entry[k] = v
		}
		return map[string]any{"harnesses": []any{entry}}
	}
	cases := map[string]struct {
		fields      map[string]any
		field, char string
	}{
		"forged window": {map[string]any{"name": "Nice\x1b[1A\x1b[2KInstall Nice 1.0\nIt runs isolated inside Escouade"}, "/name", "U+001B"},
		"description":   {map[string]any{"description": "desc\x1b]0;title\x07\x00\u009b2J end"}, "/description", "U+001B"},
		"localised":     {map[string]any{"description": map[string]any{"en": "plain", "fr": "fr\u202eexe.txt"}}, "/description/fr", "U+202E"},
		"line break":    {map[string]any{"name": "Nice\nIt runs isolated"}, "/name", "U+000A"},
		"C1":            {map[string]any{"name": "Nice\u009b2J"}, "/name", "U+009B"},
		"DEL":           {map[string]any{"version": "1.0.0-a\x7f"}, "/version", "U+007F"},
		"isolate":       {map[string]any{"author": map[string]any{"name": "a\u2067b\u2069"}}, "/author/name", "U+2067"},
		"hidden tags":   {map[string]any{"name": "Nice\U000e0041\U000e0042"}, "/name", "U+E0041"},
		"command":       {map[string]any{"run": map[string]any{"command": []string{"./bin/puppet", "\x1b[2J", "a\x00b"}}}, "/run/command/1", "U+001B"},
		"network":       {map[string]any{"permissions": map[string]any{"network": []string{"api.example.com", "x.com", "evil\u200b.com"}}}, "/permissions/network/2", "U+200B"},
		"setting title": {map[string]any{"contributes": map[string]any{"settings": map[string]any{"k": map[string]any{"type": "string", "label": "Token\r"}}}}, "/contributes/settings/k/label", "U+000D"},
		"setting name":  {map[string]any{"contributes": map[string]any{"settings": map[string]any{"k\x1b[8m": map[string]any{"type": "string"}}}}, "/contributes/settings/k\\x1b[8m", "U+001B"},
		"harness name":  {map[string]any{"contributes": harness(map[string]any{"name": "H\x1b[1m"})}, "/contributes/harnesses/0/name", "U+001B"},
		"harness args":  {map[string]any{"contributes": harness(map[string]any{"acp": map[string]any{"args": []string{"acp", "\u2028"}}})}, "/contributes/harnesses/0/acp/args/1", "U+2028"},
		"raw member":    {map[string]any{"contributes": map[string]any{"commands": []any{map[string]any{"title": "Run\u2066"}}}}, "/contributes/commands/0/title", "U+2066"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := plugin{fixture: "puppet", manifest: c.fields}.write(t)
			home := t.TempDir()
			for _, json := range []bool{false, true} {
				args := []string{"install", dir, "--home", home}
				if json {
					args = append(args, "--json")
				}
				out, errText, code := cli(t, args...)
				for _, raw := range rawControls(out + errText) {
					t.Errorf("install (json %v) printed a raw control character in %q", json, raw)
				}
				if strings.ContainsFunc(strings.ReplaceAll(out+errText, "\n", ""), safetext.Unsafe) {
					t.Errorf("install (json %v) printed a raw unsafe character: %q", json, out+errText)
				}
				if code != 1 || !strings.Contains(out+errText, c.field+": ") || !strings.Contains(out+errText, c.char) {
					t.Errorf("install (json %v): exit %d, stdout %q, stderr %q; want exit 1 naming %s and %s", json, code, out, errText, c.field, c.char)
				}
			}
			if list, _, _ := cli(t, "list", "--home", home, "--json"); strings.Contains(list, "dev.escouade.hardening.puppet") {
				t.Errorf("a refused plugin was recorded:\n%s", list)
			}
		})
	}
}

// Manifests that must be refused at validation, by install and by run.
func TestValidationRefusals(t *testing.T) {
	cases := map[string]struct {
		p    plugin
		want string
	}{
		"command climbing out": {plugin{fixture: "puppet", manifest: map[string]any{"run": map[string]any{"command": []string{"./../x"}}}}, "/run/command"},
		"id too long":          {plugin{fixture: "puppet", id: "dev." + strings.Repeat("a", 250)}, "/id"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := c.p.write(t)
			out, errText, code := cli(t, "install", dir, "--home", t.TempDir())
			if code != 1 || !strings.Contains(errText, c.want) {
				t.Errorf("install: exit %d, stderr %q, stdout %q; want exit 1 naming %s", code, errText, out, c.want)
			}
			s := run(t, dir)
			s.stdin.Close()
			<-s.done
			if s.cmd.ProcessState.ExitCode() != 1 || !strings.Contains(s.stderrText(), c.want) {
				t.Errorf("run: exit %d, stderr %q; want exit 1 naming %s", s.cmd.ProcessState.ExitCode(), s.stderrText(), c.want)
			}
		})
	}
}

// A harness entry with only its required id and name is valid (it is not
// a described ACP harness); install must describe it, not crash.
func TestInstallBareHarness(t *testing.T) {
	dir := plugin{fixture: "puppet", manifest: map[string]any{"contributes": map[string]any{
		"harnesses": []any{map[string]any{"id": "h", "name": "H"}}}}}.write(t)
	out, errText, code := cli(t, "install", dir, "--home", t.TempDir())
	if code != 0 || strings.Contains(errText, "panic") {
		t.Errorf("install of a harness {id, name}: exit %d, stdout %q, stderr %.300q; want it installed", code, out, errText)
	}
}
