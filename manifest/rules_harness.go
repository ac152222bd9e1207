package manifest

import "fmt"

// checkHarnesses checks what makes harness entries ambiguous: repeated
// ids of harnesses, modes and models, and a tested range out of order.
func checkHarnesses(doc map[string]any) []Problem {
	harnesses, _ := valueAt(doc, []string{"contributes", "harnesses"}).([]any)
	at := pointer("contributes", "harnesses")
	out := repeatedIDs(harnesses, at, "/id", memberID, "harness", "give each harness its own id")
	for i, h := range harnesses {
		entry, ok := h.(map[string]any)
		if !ok {
			continue
		}
		out = append(out, checkHarnessEntry(entry, child(at, fmt.Sprint(i)))...)
	}
	return out
}

func checkHarnessEntry(entry map[string]any, at string) []Problem {
	modes, _ := valueAt(entry, []string{"caps", "modes"}).([]any)
	models, _ := entry["models"].([]any)
	out := repeatedIDs(modes, at+"/caps/modes", "", modeID, "mode", "list each mode once")
	out = append(out, repeatedIDs(models, at+"/models", "/id", memberID, "model", "list each model once")...)
	return append(out, checkTestedRange(entry, at)...)
}

// repeatedIDs reports each item whose id an earlier item already has. The
// problem points at the item plus suffix (its id member, if any).
func repeatedIDs(items []any, at, suffix string, idOf func(any) (string, bool), what, fix string) []Problem {
	first := make(map[string]int, len(items))
	var out []Problem
	for i, item := range items {
		id, ok := idOf(item)
		if !ok {
			continue
		}
		if j, seen := first[id]; seen {
			out = append(out, Problem{
				Pointer: child(at, fmt.Sprint(i)) + suffix,
				Message: fmt.Sprintf("%s is already the id of %s %d", quoteShort(id), what, j),
				Fix:     fix,
			})
			continue
		}
		first[id] = i
	}
	return out
}

func memberID(v any) (string, bool) {
	obj, _ := v.(map[string]any)
	id, ok := obj["id"].(string)
	return id, ok
}

// modeID reads a mode given as its id or as {id, meaning}.
func modeID(v any) (string, bool) {
	if id, ok := v.(string); ok {
		return id, true
	}
	return memberID(v)
}

func checkTestedRange(entry map[string]any, at string) []Problem {
	tested, _ := entry["tested"].(map[string]any)
	oldestText, _ := tested["oldest"].(string)
	newestText, _ := tested["newest"].(string)
	oldest, okOld := parseVersion(oldestText)
	newest, okNew := parseVersion(newestText)
	if !okOld || !okNew || compareVersions(oldest, newest) <= 0 {
		return nil
	}
	return []Problem{{
		Pointer: at + "/tested/oldest",
		Message: fmt.Sprintf("%s is newer than newest, %s", oldestText, newestText),
		Fix:     `swap "oldest" and "newest"`,
	}}
}
