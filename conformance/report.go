package conformance

import "fmt"

// Status is the outcome of one check.
type Status string

// The outcomes of a check. Skipped checks are shown but not counted: their
// ground failed, and that failure is already counted.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Result is the outcome of one check. A failure says what was expected,
// what came, and how to fix it; a pass or a skip may say why in Detail.
type Result struct {
	Check    string `json:"check"`
	Title    string `json:"title"`
	Status   Status `json:"status"`
	Detail   string `json:"detail,omitempty"`
	Expected string `json:"expected,omitempty"`
	Got      string `json:"got,omitempty"`
	Fix      string `json:"fix,omitempty"`
	// FollowsFrom names the check whose failure this row follows from: the
	// row is skipped and not counted, its fault being counted once there.
	FollowsFrom string `json:"followsFrom,omitempty"`
}

// Report is the outcome of a bench run over one plugin.
type Report struct {
	Dir     string   `json:"dir"`
	Plugin  string   `json:"plugin,omitempty"`
	Version string   `json:"version,omitempty"`
	Results []Result `json:"checks"`
	// Stderr holds the last lines the program wrote on stderr, for a reader
	// wondering why a check failed.
	Stderr []string `json:"stderr,omitempty"`
}

// Passed counts the checks that passed.
func (r *Report) Passed() int { return r.count(Pass) }

// Failed counts the checks that failed.
func (r *Report) Failed() int { return r.count(Fail) }

// OK reports whether no check failed.
func (r *Report) OK() bool { return r.Failed() == 0 }

// Summary is the last line of the report: "N passed, M failed".
func (r *Report) Summary() string {
	return fmt.Sprintf("%d passed, %d failed", r.Passed(), r.Failed())
}

// Result returns the result of the check named name.
func (r *Report) Result(name string) (Result, bool) {
	for _, res := range r.Results {
		if res.Check == name {
			return res, true
		}
	}
	return Result{}, false
}

func (r *Report) count(s Status) int {
	n := 0
	for _, res := range r.Results {
		if res.Status == s {
			n++
		}
	}
	return n
}

// outcome builds results for one check.
type outcome struct{ check Check }

func about(name string) outcome { return outcome{lookupCheck(name)} }

func (o outcome) pass(detail string) Result {
	return Result{Check: o.check.Name, Title: o.check.Title, Status: Pass, Detail: detail}
}

func (o outcome) skip(why string) Result {
	return Result{Check: o.check.Name, Title: o.check.Title, Status: Skip, Detail: why}
}

// follows is a row skipped because what it saw comes from the failure of
// the check named root, where that failure is counted.
func (o outcome) follows(root, why string) Result {
	r := o.skip("follows from " + root + ": " + why)
	r.FollowsFrom = root
	return r
}

func (o outcome) fail(expected, got string) Result {
	return Result{Check: o.check.Name, Title: o.check.Title, Status: Fail,
		Expected: expected, Got: got, Fix: o.check.Fix}
}
