package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Labels of a failure's lines in the text report.
const (
	labelExpected = "expected: "
	labelGot      = "got:      "
	labelFix      = "fix:      "
	labelDetail   = "          "
)

// WriteText writes the report as a table for people: one row per check,
// each failure followed by what was expected, what came and how to fix it,
// and last the line "N passed, M failed".
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	if r.Plugin == "" {
		fmt.Fprintf(&b, "%s\n\n", r.Dir) // the manifest did not say who it is
	} else {
		fmt.Fprintf(&b, "%s %s (%s)\n\n", r.Plugin, r.Version, r.Dir)
	}
	width := r.nameWidth()
	for _, res := range r.Results {
		writeRow(&b, res, width)
	}
	if r.Failed() > 0 && len(r.Stderr) > 0 {
		b.WriteString("\nlast lines of its stderr:\n")
		for _, line := range r.Stderr {
			fmt.Fprintf(&b, "  %s\n", line)
		}
	}
	fmt.Fprintf(&b, "\n%s\n", r.Summary())
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) nameWidth() int {
	width := 0
	for _, res := range r.Results {
		width = max(width, len(res.Check))
	}
	return width
}

func writeRow(b *strings.Builder, res Result, width int) {
	status := strings.ToUpper(string(res.Status))
	text := res.Title
	if res.Status != Fail && res.Detail != "" {
		text += ": " + res.Detail
	}
	fmt.Fprintf(b, "%-4s  %-*s  %s\n", status, width, res.Check, text)
	if res.Status != Fail {
		return
	}
	indent := strings.Repeat(" ", 4+2+width+2)
	writeLabelled(b, indent, labelExpected, res.Expected)
	writeLabelled(b, indent, labelGot, res.Got)
	writeLabelled(b, indent, labelFix, res.Fix)
}

// writeLabelled writes a possibly multi-line text after its label, the
// following lines aligned under the first.
func writeLabelled(b *strings.Builder, indent, label, text string) {
	if text == "" {
		return
	}
	for i, line := range strings.Split(text, "\n") {
		if i == 0 {
			fmt.Fprintf(b, "%s%s%s\n", indent, label, line)
			continue
		}
		fmt.Fprintf(b, "%s%s%s\n", indent, labelDetail, line)
	}
}

// jsonReport is the --json shape: the report with its counts and summary.
type jsonReport struct {
	*Report
	Passed  int    `json:"passed"`
	Failed  int    `json:"failed"`
	Summary string `json:"summary"`
}

// WriteJSON writes the report as one JSON object, indented, for scripts:
// {"dir","plugin","version","checks":[…],"stderr","passed","failed",
// "summary"}. Each check is {"check","title","status", and "detail" or
// "expected","got","fix"}.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(jsonReport{Report: r, Passed: r.Passed(), Failed: r.Failed(), Summary: r.Summary()})
}
