package conformance

import (
	"context"
	"strings"
	"testing"
)

// A scripted answer is given only where the host would dial: a listed name
// of this machine is refused as the guard refuses it.
func TestAScriptedAnswerKeepsTheAddressRules(t *testing.T) {
	for _, host := range []string{"localhost", "LOCALHOST.", "api.localhost"} {
		if r := judgeName(context.Background(), host); r == nil || !strings.Contains(r.Reason, "this machine") {
			t.Errorf("judgeName(%q) = %v, want a refusal naming this machine", host, r)
		}
	}
	if r := judgeName(context.Background(), "127.0.0.1"); r != nil {
		t.Errorf("an IP literal is CheckURL's to judge: %v", r)
	}
}
