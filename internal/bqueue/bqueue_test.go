package bqueue

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

// pushed is what one Push gave back.
type pushed struct {
	Dropped    int
	WasDropped bool
	Err        error
}

func TestPushPolicies(t *testing.T) {
	tests := []struct {
		name       string
		limit      int
		policy     Policy
		push       []int
		wantPushed []pushed
		wantItems  []int
	}{
		{
			name: "no limit keeps everything", limit: 0, policy: Refuse,
			push:       []int{1, 2, 3},
			wantPushed: []pushed{{}, {}, {}},
			wantItems:  []int{1, 2, 3},
		},
		{
			name: "negative limit is no limit", limit: -4, policy: Block,
			push:       []int{1, 2},
			wantPushed: []pushed{{}, {}},
			wantItems:  []int{1, 2},
		},
		{
			name: "drop oldest returns what it dropped", limit: 2, policy: DropOldest,
			push:       []int{1, 2, 3, 4},
			wantPushed: []pushed{{}, {}, {Dropped: 1, WasDropped: true}, {Dropped: 2, WasDropped: true}},
			wantItems:  []int{3, 4},
		},
		{
			name: "refuse keeps the queue", limit: 2, policy: Refuse,
			push:       []int{1, 2, 3},
			wantPushed: []pushed{{}, {}, {Err: ErrFull}},
			wantItems:  []int{1, 2},
		},
		{
			name: "block refuses a push that does not wait", limit: 1, policy: Block,
			push:       []int{1, 2},
			wantPushed: []pushed{{}, {Err: ErrFull}},
			wantItems:  []int{1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := New[int](tt.limit, tt.policy)
			var got []pushed
			for _, v := range tt.push {
				d, was, err := q.Push(v)
				got = append(got, pushed{d, was, err})
			}
			if diff := cmp.Diff(tt.wantPushed, got, cmp.Comparer(errEqual)); diff != "" {
				t.Errorf("Push (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantItems, q.Drain()); diff != "" {
				t.Errorf("Drain (-want +got):\n%s", diff)
			}
		})
	}
}

func errEqual(a, b error) bool { return errors.Is(a, b) && errors.Is(b, a) }

func TestCloseKeepsItemsAndRefusesPushes(t *testing.T) {
	q := New[string](0, Refuse)
	q.Push("a")
	q.Push("b")
	q.Close()
	q.Close() // a second Close does nothing
	if _, _, err := q.Push("c"); !errors.Is(err, ErrClosed) {
		t.Errorf("Push after Close: %v, want ErrClosed", err)
	}
	if err := q.PushWait(context.Background(), "c"); !errors.Is(err, ErrClosed) {
		t.Errorf("PushWait after Close: %v, want ErrClosed", err)
	}
	if !q.Closed() {
		t.Error("Closed() = false after Close")
	}
	ctx := context.Background()
	var got []string
	for {
		v, err := q.Pop(ctx)
		if errors.Is(err, ErrClosed) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if diff := cmp.Diff([]string{"a", "b"}, got); diff != "" {
		t.Errorf("Pop after Close (-want +got):\n%s", diff)
	}
	if items, err := q.PopAll(ctx); items != nil || !errors.Is(err, ErrClosed) {
		t.Errorf("PopAll on a closed empty queue = %v, %v; want nil, ErrClosed", items, err)
	}
	select {
	case <-q.Done():
	default:
		t.Error("Done not closed after Close")
	}
}

func TestTryPopAndLen(t *testing.T) {
	q := New[int](3, DropOldest)
	if _, ok := q.TryPop(); ok {
		t.Fatal("TryPop on an empty queue reported an item")
	}
	for i := range 5 {
		q.Push(i)
	}
	if n := q.Len(); n != 3 {
		t.Fatalf("Len = %d, want 3", n)
	}
	v, ok := q.TryPop()
	if !ok || v != 2 {
		t.Fatalf("TryPop = %d, %v; want 2, true", v, ok)
	}
	if n := q.Len(); n != 2 {
		t.Fatalf("Len after TryPop = %d, want 2", n)
	}
	if got := q.Drain(); !cmp.Equal(got, []int{3, 4}) {
		t.Fatalf("Drain = %v, want [3 4]", got)
	}
	if got := q.Drain(); got != nil {
		t.Fatalf("Drain of an empty queue = %v, want nil", got)
	}
}

func TestPopWaitsForPush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New[int](0, Refuse)
		got := make(chan int)
		go func() {
			v, err := q.Pop(context.Background())
			if err != nil {
				t.Error(err)
			}
			got <- v
		}()
		synctest.Wait() // Pop is blocked on the empty queue
		q.Push(7)
		if v := <-got; v != 7 {
			t.Errorf("Pop = %d, want 7", v)
		}
	})
}

func TestPopAllWaitsAndTakesEverything(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New[int](0, Refuse)
		got := make(chan []int)
		go func() {
			items, err := q.PopAll(context.Background())
			if err != nil {
				t.Error(err)
			}
			got <- items
		}()
		synctest.Wait()
		q.Push(1)
		items := <-got
		items = append(items, q.Drain()...)
		if diff := cmp.Diff([]int{1}, items); diff != "" {
			t.Errorf("PopAll (-want +got):\n%s", diff)
		}
	})
}

func TestWaitsEndWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New[int](1, Block)
		q.Push(1)
		ctx, cancel := context.WithCancel(context.Background())
		errs := make(chan error, 2)
		go func() { errs <- q.PushWait(ctx, 2) }()
		empty := New[int](0, Refuse)
		go func() { _, err := empty.Pop(ctx); errs <- err }()
		synctest.Wait()
		cancel()
		for range 2 {
			if err := <-errs; !errors.Is(err, context.Canceled) {
				t.Errorf("wait after cancel: %v, want context.Canceled", err)
			}
		}
	})
}

func TestCloseWakesEveryWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New[int](1, Block)
		q.Push(1)
		errs := make(chan error, 2)
		for range 2 {
			go func() { errs <- q.PushWait(context.Background(), 2) }()
		}
		empty := New[int](0, Refuse)
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				if _, err := empty.Pop(context.Background()); !errors.Is(err, ErrClosed) {
					t.Errorf("Pop after Close: %v, want ErrClosed", err)
				}
			})
		}
		synctest.Wait()
		q.Close()
		empty.Close()
		for range 2 {
			if err := <-errs; !errors.Is(err, ErrClosed) {
				t.Errorf("PushWait after Close: %v, want ErrClosed", err)
			}
		}
		wg.Wait()
	})
}

func TestPushWaitWaitsForRoom(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New[int](1, Block)
		q.Push(1)
		done := make(chan error)
		go func() { done <- q.PushWait(context.Background(), 2) }()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("PushWait returned %v on a full queue", err)
		default:
		}
		if v, _ := q.TryPop(); v != 1 {
			t.Fatalf("TryPop = %d, want 1", v)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := q.Drain(); !cmp.Equal(got, []int{2}) {
			t.Fatalf("Drain = %v, want [2]", got)
		}
	})
}

func TestPushWaitOtherPoliciesNeverWait(t *testing.T) {
	q := New[int](1, DropOldest)
	q.Push(1)
	if err := q.PushWait(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	r := New[int](1, Refuse)
	r.Push(1)
	if err := r.PushWait(context.Background(), 2); !errors.Is(err, ErrFull) {
		t.Fatalf("PushWait on a full Refuse queue: %v, want ErrFull", err)
	}
	if got := q.Drain(); !cmp.Equal(got, []int{2}) {
		t.Fatalf("Drain = %v, want [2]", got)
	}
}

func TestReadyAfterPushAndClose(t *testing.T) {
	q := New[int](0, Refuse)
	select {
	case <-q.Ready():
		t.Fatal("Ready on a new queue")
	default:
	}
	q.Push(1)
	q.Push(2)
	<-q.Ready() // one token for both pushes
	if got := q.Drain(); !cmp.Equal(got, []int{1, 2}) {
		t.Fatalf("Drain = %v, want [1 2]", got)
	}
	q.Close()
	<-q.Ready()
}

// Every consumer waiting gets an item when as many are pushed: a wake-up
// taken by one consumer is passed on while items are left.
func TestManyConsumersAllServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New[int](0, Refuse)
		const n = 8
		got := make(chan int, n)
		for range n {
			go func() {
				v, err := q.Pop(context.Background())
				if err != nil {
					t.Error(err)
				}
				got <- v
			}()
		}
		synctest.Wait()
		for i := range n {
			q.Push(i)
		}
		seen := map[int]bool{}
		for range n {
			seen[<-got] = true
		}
		if len(seen) != n {
			t.Errorf("%d distinct items popped, want %d", len(seen), n)
		}
	})
}

// Producers and consumers at once, under -race: every item comes out once,
// each producer's items in the order pushed.
func TestConcurrentOrderPerProducer(t *testing.T) {
	const producers, each = 4, 500
	q := New[[2]int](8, Block)
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range each {
				if err := q.PushWait(context.Background(), [2]int{p, i}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	next := make([]int, producers)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			v, err := q.Pop(context.Background())
			if err != nil {
				return
			}
			if v[1] != next[v[0]] {
				t.Errorf("producer %d: got item %d, want %d", v[0], v[1], next[v[0]])
			}
			next[v[0]]++
		}
	}()
	wg.Wait()
	q.Close()
	<-done
	for p, n := range next {
		if n != each {
			t.Errorf("producer %d: %d items popped, want %d", p, n, each)
		}
	}
}
