package web

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func drain(j *journalFollower) []string {
	var got []string
	for {
		select {
		case l, ok := <-j.lines:
			if !ok {
				return append(got, "<closed>")
			}
			got = append(got, l)
		default:
			return got
		}
	}
}

// The lines a subscription gives while the tail is read are sent once:
// not those the tail holds, and every one after.
func TestJournalFollowerSendsEachLineOnce(t *testing.T) {
	cases := []struct {
		name         string
		before, tail []string
		after, want  []string
	}{
		{"nothing meanwhile", nil, []string{"a", "b"}, []string{"c"}, []string{"c"}},
		{"lines in the tail too", []string{"b", "c"}, []string{"a", "b", "c"}, []string{"d"}, []string{"d"}},
		{"a line after the tail", []string{"c", "d"}, []string{"a", "b", "c"}, []string{"e"}, []string{"d", "e"}},
		{"delivered after the tail was read", nil, []string{"a", "b"}, []string{"b", "c"}, []string{"c"}},
		{"a line equal to an old one, after a new one", nil, []string{"a"}, []string{"x", "a"}, []string{"x", "a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := newJournalFollower()
			for _, l := range c.before {
				j.add(l)
			}
			j.after(c.tail)
			for _, l := range c.after {
				j.add(l)
			}
			if diff := cmp.Diff(c.want, drain(j)); diff != "" {
				t.Errorf("sent (-want +got):\n%s", diff)
			}
		})
	}
}

// A page too slow for the journal loses its stream, never the journal's
// writer; its script connects again and reads the tail afresh.
func TestJournalFollowerEndsWhenFull(t *testing.T) {
	j := newJournalFollower()
	j.after(nil)
	for i := range streamBuffer + 10 {
		j.add(string(rune('a'+i%26)) + itoa(i))
	}
	got := drain(j)
	if len(got) != streamBuffer+1 || got[len(got)-1] != "<closed>" {
		t.Errorf("got %d lines, last %q", len(got), got[len(got)-1])
	}
}

// The broker drops a subscriber that cannot keep up instead of blocking a
// plugin's state change.
func TestBrokerNeverBlocks(t *testing.T) {
	b := newBroker()
	slow, _ := b.subscribe()
	fast, cancel := b.subscribe()
	defer cancel()
	for range streamBuffer + 1 {
		b.publish([]byte("x"))
		<-fast
	}
	n := 0
	for range slow {
		n++
	}
	if n != streamBuffer {
		t.Errorf("the slow subscriber got %d events before its end, want %d", n, streamBuffer)
	}
	b.close()
	if _, open := <-fast; open {
		t.Error("close left a stream open")
	}
	late, _ := b.subscribe()
	if _, open := <-late; open {
		t.Error("a stream opened after close is open")
	}
}

// A page's stream starts with the state of each plugin now: a change made
// between the page and its stream is not lost.
func TestStateStreamStartsWithEachState(t *testing.T) {
	v := installedView(t)
	v.call("fixture/pid", nil) // ready before the stream opens
	req, _ := http.NewRequest(http.MethodGet, v.base+"/events", nil)
	req.Header.Set(SecretHeader, v.srv.Secret())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var st stateView
		if err := json.Unmarshal([]byte(data), &st); err != nil {
			t.Fatal(err)
		}
		if st.ID != fixtureID || st.State != "ready" || st.Label != "Ready" || st.PID == 0 {
			t.Errorf("first state %+v, want %s ready with its pid", st, fixtureID)
		}
		return
	}
	t.Fatalf("the stream ended first: %v", sc.Err())
}
