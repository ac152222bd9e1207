package mcp

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnauthorized(t *testing.T) {
	s := start(t, (&recorder{}).ask)
	live := s.NewToken("live")
	revoked := s.NewToken("gone")
	s.Revoke("gone")
	replaced := s.NewToken("renewed")
	s.NewToken("renewed")
	tests := []struct{ name, authorization string }{
		{"no header", ""},
		{"wrong token", "Bearer " + newToken()},
		{"another agent's revoked token", "Bearer " + revoked},
		{"a replaced token", "Bearer " + replaced},
		{"bearer without token", "Bearer"},
		{"empty bearer", "Bearer "},
		{"other scheme", "Basic " + live},
		{"token without scheme", live},
		{"token with a suffix", "Bearer " + live + "x"},
		{"token cut short", "Bearer " + live[:len(live)-1]},
		{"extra field", "Bearer " + live + " extra"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, s.URL(), tt.authorization, "", initializeBody)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", resp.StatusCode)
			}
		})
	}
	t.Run("SDK client with a wrong token", func(t *testing.T) {
		if _, err := connect(t, s.URL(), revoked); err == nil {
			t.Error("connected with a revoked token")
		}
	})
	t.Run("other path", func(t *testing.T) {
		resp := post(t, s.URL()+"/../other", "", "", initializeBody)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("status %d, want 401", resp.StatusCode)
		}
	})
}

func TestAuthorized(t *testing.T) {
	s := start(t, (&recorder{}).ask)
	tok := s.NewToken("a1")
	for _, authorization := range []string{"Bearer " + tok, "bearer " + tok} {
		resp := post(t, s.URL(), authorization, "", initializeBody)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%q: status %d, want 200", authorization[:6], resp.StatusCode)
		}
	}
	resp := post(t, s.URL()+"x", "Bearer "+tok, "", initializeBody)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("other path with a token: status %d, want 404", resp.StatusCode)
	}
}

func TestTokenNamesTheAgent(t *testing.T) {
	rec := &recorder{answers: [][]string{{"x"}}}
	s := start(t, rec.ask)
	const arguments = `{"questions":[{"question":"Q?","options":[{"label":"x"}],"multiSelect":false}]}`
	for _, agent := range []string{"alice", "bob", ""} {
		cs := mustConnect(t, s.URL(), s.NewToken(agent))
		if res := callAsk(t, cs, arguments); res.IsError {
			t.Fatalf("%q: tool error: %s", agent, text(res))
		}
	}
	var agents []string
	for _, c := range rec.recorded() {
		agents = append(agents, c.Agent)
	}
	if diff := cmp.Diff([]string{"alice", "bob", ""}, agents); diff != "" {
		t.Errorf("agents asking (-want +got):\n%s", diff)
	}
}

// TestSessionOfAnotherAgent: a token opens its own agent's sessions only,
// whatever the agents' names (an empty name included).
func TestSessionOfAnotherAgent(t *testing.T) {
	s := start(t, (&recorder{}).ask)
	for _, pair := range [][2]string{{"alice", "bob"}, {"", "bob"}, {"bob", ""}} {
		owner, intruder := pair[0], pair[1]
		t.Run(owner+"/"+intruder, func(t *testing.T) {
			ownerTok, intruderTok := s.NewToken(owner), s.NewToken(intruder)
			resp := post(t, s.URL(), "Bearer "+ownerTok, "", initializeBody)
			session := resp.Header.Get("Mcp-Session-Id")
			if resp.StatusCode != http.StatusOK || session == "" {
				t.Fatalf("initialize: status %d, session %q", resp.StatusCode, session)
			}
			const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
			if got := post(t, s.URL(), "Bearer "+intruderTok, session, list).StatusCode; got != http.StatusUnauthorized {
				t.Errorf("%q in %q's session: status %d, want 401", intruder, owner, got)
			}
		})
	}
}

func TestRevoke(t *testing.T) {
	s := start(t, (&recorder{answers: [][]string{{"x"}}}).ask)
	tok := s.NewToken("a1")
	cs := mustConnect(t, s.URL(), tok)
	s.Revoke("a1")
	s.Revoke("a1")       // twice: nothing more
	s.Revoke("stranger") // never had a token
	if _, err := cs.ListTools(t.Context(), nil); err == nil {
		t.Error("a revoked agent's session still answers")
	}
	if got := post(t, s.URL(), "Bearer "+tok, "", initializeBody).StatusCode; got != http.StatusUnauthorized {
		t.Errorf("revoked token: status %d, want 401", got)
	}
	again := s.NewToken("a1")
	mustConnect(t, s.URL(), again)
}

func TestRevokeCancelsPendingQuestion(t *testing.T) {
	b := newBlockingAsker()
	s := start(t, b.ask)
	cs := mustConnect(t, s.URL(), s.NewToken("a1"))
	go cs.CallTool(t.Context(), askParams())
	<-b.started
	s.Revoke("a1")
	if diff := cmp.Diff(errRevoked.Error(), errText(<-b.ended)); diff != "" {
		t.Errorf("question ended by (-want +got):\n%s", diff)
	}
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestNewTokenShape(t *testing.T) {
	s := start(t, (&recorder{}).ask)
	seen := map[string]bool{}
	for range 20 {
		tok := s.NewToken("a1")
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil || len(raw) != tokenBytes {
			t.Fatalf("token %q: %d bytes, %v; want %d bytes of base64url", tok, len(raw), err, tokenBytes)
		}
		if seen[tok] {
			t.Fatalf("token %q issued twice", tok)
		}
		seen[tok] = true
	}
}

func TestConcurrentAgents(t *testing.T) {
	rec := &recorder{answers: [][]string{{"x"}}}
	s := start(t, rec.ask)
	const agents = 8
	errs := make(chan error, agents)
	var wg sync.WaitGroup
	for i := range agents {
		wg.Go(func() {
			name := fmt.Sprint("agent-", i)
			cs, err := connect(t, s.URL(), s.NewToken(name))
			if err != nil {
				errs <- err
				return
			}
			res, err := cs.CallTool(t.Context(), askParams())
			if err == nil && res.IsError {
				err = fmt.Errorf("%s: tool error: %s", name, text(res))
			}
			s.Revoke(name)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	got := map[string]int{}
	for _, c := range rec.recorded() {
		got[c.Agent]++
	}
	want := map[string]int{}
	for i := range agents {
		want[fmt.Sprint("agent-", i)] = 1
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("questions per agent (-want +got):\n%s", diff)
	}
}
