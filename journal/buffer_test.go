package journal

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gate holds the writer inside its first batch until released, standing
// in for a disk that does not answer.
type gate struct {
	batches int           // touched by the writer goroutine only
	entered chan struct{} // closed when the first batch is held
	release chan struct{} // closed by the test to let it go
	next    chan struct{} // closed when a second batch starts: the first is done
}

func newGate() *gate {
	return &gate{entered: make(chan struct{}), release: make(chan struct{}), next: make(chan struct{})}
}

func (g *gate) hooks() hooks {
	return hooks{beforeWrite: func() {
		g.batches++
		switch g.batches {
		case 1:
			close(g.entered)
			<-g.release
		case 2:
			close(g.next)
		}
	}}
}

// TestWriteNeverBlocks holds the writer in its first batch, overflows the
// buffer, and checks which lines made it and how the loss is told.
func TestWriteNeverBlocks(t *testing.T) {
	dropped := line(TagDropped, "journal: 6 lines dropped")
	tests := []struct {
		name  string
		after func(j *Journal) // what happens once the writer is free again
		want  []string
	}{
		{
			name:  "note before the next line",
			after: func(j *Journal) { j.Write(TagStop, "next") },
			want:  []string{line("stderr", "w0"), line("stderr", "w1"), line("stderr", "w2"), line("stderr", "w3"), dropped, line("stop", "next")},
		},
		{
			name:  "note on Flush",
			after: func(j *Journal) { j.Flush() },
			want:  []string{line("stderr", "w0"), line("stderr", "w1"), line("stderr", "w2"), line("stderr", "w3"), dropped},
		},
		{
			name:  "note on Close",
			after: func(j *Journal) { j.Close() },
			want:  []string{line("stderr", "w0"), line("stderr", "w1"), line("stderr", "w2"), line("stderr", "w3"), dropped},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGate()
			j, home := openTest(t, Options{Buffer: 4}, g.hooks())
			j.Write(TagStderr, "w0")
			<-g.entered // the writer holds w0 and is stuck
			wrote := make(chan struct{})
			go func() {
				defer close(wrote)
				for i := 1; i < 10; i++ {
					j.Write(TagStderr, fmt.Sprintf("w%d", i))
				}
			}()
			<-wrote // a blocking Write would hang here until the test times out
			close(g.release)
			<-g.next // w0 is written, w1…w3 are on their way: there is room again
			tt.after(j)
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := ReadTail(home, testID, 100)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("journal (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMultiLineTextCountsEachDroppedLine(t *testing.T) {
	g := newGate()
	j, _ := openTest(t, Options{Buffer: 2}, g.hooks())
	j.Write(TagStderr, "held")
	<-g.entered
	j.Write(TagCrash, "kept\nlost 1\nlost 2")
	close(g.release)
	<-g.next
	want := []string{line("stderr", "held"), line("crash", "kept"), line("dropped", "journal: 2 lines dropped")}
	if diff := cmp.Diff(want, mustTail(t, j, 10)); diff != "" {
		t.Errorf("Tail (-want +got):\n%s", diff)
	}
}

func TestSubscribe(t *testing.T) {
	j, _ := openTest(t, Options{}, hooks{})
	j.Mask("pw")
	var got []string
	cancel := j.Subscribe(func(line string) { got = append(got, line) })
	var selfCanceled []string
	var cancelSelf func()
	cancelSelf = j.Subscribe(func(line string) {
		selfCanceled = append(selfCanceled, line)
		cancelSelf()
	})
	j.Write(TagStderr, "pw is pw\nsecond")
	if err := j.Flush(); err != nil {
		t.Fatal(err)
	}
	cancel()
	cancel() // twice is harmless
	j.Write(TagStderr, "unseen")
	if err := j.Flush(); err != nil {
		t.Fatal(err)
	}
	want := []string{line("stderr", "•••• is ••••"), line("stderr", "second")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("subscriber (-want +got):\n%s", diff)
	}
	// Delivery of a batch already begun completes; later batches do not come.
	if diff := cmp.Diff(want, selfCanceled); diff != "" {
		t.Errorf("self-canceling subscriber (-want +got):\n%s", diff)
	}
}

// TestConcurrentUse is for the race detector: writers, masks, subscribers
// and tails at once, then every line checked.
func TestConcurrentUse(t *testing.T) {
	const writers, perWriter = 8, 200
	j, _ := openTest(t, Options{MaxSize: 1 << 30}, hooks{})
	var seen sync.Map
	defer j.Subscribe(func(line string) { seen.Store(line, true) })()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				j.Write(TagStderr, fmt.Sprintf("writer %d line %d secret-%d", w, i, w))
			}
		})
		wg.Go(func() { j.Mask(fmt.Sprintf("secret-%d", w)) })
	}
	wg.Go(func() {
		for range 5 {
			if _, err := j.Tail(10); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	lines := mustTail(t, j, writers*perWriter+1)
	if len(lines) != writers*perWriter {
		t.Fatalf("got %d lines, want %d", len(lines), writers*perWriter)
	}
	next := make(map[int]int) // each writer's lines stay in its order
	for _, l := range lines {
		var w, i int
		var rest string
		if _, err := fmt.Sscanf(l, stampText+" stderr writer %d line %d %s", &w, &i, &rest); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if i != next[w] {
			t.Fatalf("writer %d: line %d came where %d was due", w, i, next[w])
		}
		next[w]++
		if _, ok := seen.Load(l); !ok {
			t.Errorf("subscriber missed %q", l)
		}
	}
}
