//go:build linux

package hardening

import (
	"strings"
	"testing"
	"unicode"
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

// What install prints never carries a raw control character of the
// manifest, whether it installs the plugin or refuses it.
func TestInstallTextHasNoControlCharacters(t *testing.T) {
	cases := map[string]map[string]any{
		"name":        {"name": "\x1b[31mEvil\x1b[0m\x00name"},
		"description": {"description": "desc\x1b]0;title\x07\x00\u009b2J end"},
		"localised":   {"description": map[string]any{"en": "en\x1b[2J\x00", "fr": "fr\x1b[2J"}},
		"command":     {"run": map[string]any{"command": []string{"./bin/puppet", "\x1b[2J", "a\x00b", "c\rd"}}},
		"harness": {"contributes": map[string]any{"harnesses": []any{map[string]any{
			"id": "h", "name": "H\x1b[1m", "locate": map[string]any{"names": []string{"ag\x1b[5ment"}},
			"acp": map[string]any{"args": []string{"acp\x00", "\x1b[2J"}}}}}},
		"harness args": {"contributes": map[string]any{"harnesses": []any{map[string]any{
			"id": "h", "name": "H", "locate": map[string]any{"names": []string{"agent"}},
			"acp": map[string]any{"args": []string{"acp\x00", "\x1b[2J"}}}}}},
	}
	for name, fields := range cases {
		t.Run(name, func(t *testing.T) {
			dir := plugin{fixture: "puppet", manifest: fields}.write(t)
			for _, json := range []bool{false, true} {
				args := []string{"install", dir, "--home", t.TempDir()}
				if json {
					args = append(args, "--json")
				}
				out, errText, code := cli(t, args...)
				for _, c := range rawControls(out + errText) {
					t.Errorf("install (json %v, exit %d) printed a raw control character in %q", json, code, c)
				}
				if code != 0 && code != 1 {
					t.Errorf("install exit %d, want 0 or 1; stderr %q", code, errText)
				}
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
