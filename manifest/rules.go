package manifest

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/safetext"
)

// ruleProblems checks what the schema cannot say. It reads the decoded
// document defensively: a value of the wrong type was already reported by
// the schema and is skipped here.
//
// A text refused for the characters it holds is reported for that alone:
// what else a rule would say of it quotes the same text.
func ruleProblems(doc map[string]any, appVersion string) []Problem {
	texts := checkTexts(doc)
	refused := make(map[string]bool, len(texts))
	for _, p := range texts {
		refused[p.Pointer] = true
	}
	var out []Problem
	out = append(out, checkMinVersion(doc, appVersion)...)
	out = append(out, checkIDLength(doc)...)
	out = append(out, checkIDParts(doc)...)
	out = append(out, checkCommandPath(doc)...)
	out = append(out, checkSecretEntries(doc)...)
	out = append(out, checkSettingDefaults(doc)...)
	out = append(out, checkHarnesses(doc)...)
	out = slices.DeleteFunc(out, func(p Problem) bool { return refused[p.Pointer] })
	return append(texts, out...)
}

// checkIDParts refuses an id part that starts or ends with a dash. The
// pattern of docs/protocol.md#1-the-manifest lets a dash anywhere after the first part, but a
// reverse-DNS id is a domain turned around, and a domain label never
// starts or ends with a dash: "dev.example.hello-" is a slip of the
// keyboard, not a name anyone means.
func checkIDParts(doc map[string]any) []Problem {
	id, _ := doc["id"].(string)
	for _, part := range strings.Split(id, ".") {
		if part == "" || (!strings.HasPrefix(part, "-") && !strings.HasSuffix(part, "-")) {
			continue
		}
		fix := fmt.Sprintf("write %q instead of %q, e.g. dev.escouade.my-plugin", strings.Trim(part, "-"), part)
		if strings.Trim(part, "-") == "" {
			fix = fmt.Sprintf("remove the part %q, e.g. dev.escouade.my-plugin", part)
		}
		return []Problem{{
			Pointer: "/id",
			Message: fmt.Sprintf("%s has a part that starts or ends with a dash (%q): a reverse-DNS part starts and ends with a letter or digit", quoteShort(id), part),
			Fix:     fix,
		}}
	}
	return nil
}

// checkMinVersion refuses a plugin that needs a newer app. An app version
// that is unknown (empty) or not semver cannot be compared and lets it pass.
func checkMinVersion(doc map[string]any, appVersion string) []Problem {
	minText, _ := valueAt(doc, []string{"escouade", "min"}).(string)
	needed, ok := parseVersion(minText)
	app, appOK := parseVersion(appVersion)
	if !ok || !appOK || compareVersions(needed, app) <= 0 {
		return nil
	}
	return []Problem{{
		Pointer: "/escouade/min",
		Message: fmt.Sprintf("the plugin needs Escouade %s or newer; this is Escouade %s", minText, appVersion),
		Fix:     fmt.Sprintf("update Escouade to %s or newer", minText),
	}}
}

// checkSecretEntries gives each refused permissions.secrets entry its
// precise reason (docs/protocol.md#1-the-manifest, #secretsget).
func checkSecretEntries(doc map[string]any) []Problem {
	entries, _ := valueAt(doc, []string{"permissions", "secrets"}).([]any)
	var out []Problem
	for i, e := range entries {
		entry, ok := e.(string)
		if !ok {
			continue
		}
		if reason := secretEntryFault(entry); reason != "" {
			out = append(out, Problem{
				Pointer: pointer("permissions", "secrets", fmt.Sprint(i)),
				Message: reason,
				Fix:     fixSecretEntry,
			})
		}
	}
	return out
}

// secretEntryFault says why entry can never name keys of the plugin, or
// returns "".
func secretEntryFault(entry string) string {
	star := strings.IndexByte(entry, '*')
	switch {
	case entry == "":
		return "is an empty entry"
	case entry == "*":
		return `"*" alone is refused: it would give every secret of the plugin`
	case star >= 0 && star != len(entry)-1:
		return fmt.Sprintf("%s has a * before its end: only a final * makes a prefix pattern", quoteShort(entry))
	case strings.ContainsFunc(entry, safetext.Unsafe):
		return fmt.Sprintf("%s holds a control or invisible character, which a secret key never does", quoteShort(entry))
	case strings.Contains(entry, ".."):
		return fmt.Sprintf(`%s holds "..", which a secret key never does`, quoteShort(entry))
	case strings.HasPrefix(entry, "/"):
		return fmt.Sprintf("%s starts with /, which a secret key never does", quoteShort(entry))
	}
	return ""
}

// checkSettingDefaults refuses an enum setting whose default is not one of
// its choices.
func checkSettingDefaults(doc map[string]any) []Problem {
	settings, _ := valueAt(doc, []string{"contributes", "settings"}).(map[string]any)
	var out []Problem
	for key, s := range settings {
		setting, _ := s.(map[string]any)
		choices, _ := setting["enum"].([]any)
		def, hasDefault := setting["default"]
		if setting["type"] != string(SettingEnum) || choices == nil || !hasDefault || containsJSON(choices, def) {
			continue
		}
		out = append(out, Problem{
			Pointer: pointer("contributes", "settings", key, "default"),
			Message: display(def) + ` is not one of the choices in "enum"`,
			Fix:     "use one of " + displayList(choices),
		})
	}
	return out
}

func containsJSON(list []any, v any) bool {
	for _, item := range list {
		if equalJSON(item, v) {
			return true
		}
	}
	return false
}

// equalJSON compares scalars as JSON Schema does: 1 and 1.0 are equal.
func equalJSON(a, b any) bool {
	na, aNum := a.(json.Number)
	nb, bNum := b.(json.Number)
	if aNum && bNum {
		ra, okA := new(big.Rat).SetString(string(na))
		rb, okB := new(big.Rat).SetString(string(nb))
		return okA && okB && ra.Cmp(rb) == 0
	}
	if aNum || bNum {
		return false
	}
	switch a.(type) {
	case string, bool, nil:
		return a == b
	}
	return false // enum choices are scalars; anything else never matches
}
