package timer

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// FuzzParams checks that any params give either a refusal of -32602 or an
// answer of the protocol's shape, and never a panic.
func FuzzParams(f *testing.F) {
	for _, seed := range []string{`{"ms":10}`, `{"ms":-1}`, `{"timer":1}`, `{}`, `null`, `[]`, `{"ms":1e3}`, `{"ms":10,"ms":20}`, "{\"ms\":\"\xff\"}"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, params string) {
		s := New(Config{Peer: &peer{}})
		defer s.Close()
		for method, handle := range s.Methods() {
			got, err := handle(context.Background(), json.RawMessage(params))
			if err != nil {
				if !errors.Is(err, &services.Error{Code: services.CodeInvalidParams}) {
					t.Fatalf("%s %q: %v, want -32602 or an answer", method, params, err)
				}
				continue
			}
			switch method {
			case vocab.MethodTimerSet:
				if ref, ok := got.(proto.TimerRef); !ok || ref.Timer < 1 {
					t.Fatalf("timer/set %q answered %#v", params, got)
				}
			case vocab.MethodTimerClear:
				if got != nil {
					t.Fatalf("timer/clear %q answered %#v, want null", params, got)
				}
			}
		}
	})
}
