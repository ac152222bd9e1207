package architecture

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestFoldersAreRooms holds the tree to the layers a newcomer sees: drawn
// with the top-level folders as rooms and the imports of their non-test
// code as arrows between rooms, no arrow runs back up, which is to say the
// arrows form no circle (a circle is the only way for an arrow to point
// up whatever order the rooms are drawn in).
func TestFoldersAreRooms(t *testing.T) {
	arrows := roomArrows(moduleImports(t))
	if circle := findCircle(arrows); circle != nil {
		t.Errorf("the top-level folders import each other in a circle: %s; move the package that closes it to a folder of its layer (docs/ARCHITECTURE.md#the-packages)",
			strings.Join(circle, " → "))
	}
}

// roomArrows gives, for each top-level folder, the other top-level folders
// its packages import, each with one package arrow that makes it (so that
// a failure names the import to move).
func roomArrows(imports map[string][]string) map[string]map[string]string {
	arrows := map[string]map[string]string{}
	for from, tos := range imports {
		room := roomOf(from)
		if arrows[room] == nil {
			arrows[room] = map[string]string{}
		}
		for _, to := range tos {
			if other := roomOf(to); other != room {
				arrows[room][other] = from + " imports " + to
			}
		}
	}
	return arrows
}

func roomOf(pkg string) string {
	room, _, _ := strings.Cut(pkg, "/")
	return room
}

// findCircle returns one circle of rooms, each step with the import that
// makes it, or nil when there is none.
func findCircle(arrows map[string]map[string]string) []string {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var walk func(room string) []string
	walk = func(room string) []string {
		state[room] = onPath
		path = append(path, room)
		for _, next := range slices.Sorted(maps.Keys(arrows[room])) {
			switch state[next] {
			case onPath:
				return circleFrom(path, next, arrows)
			case unseen:
				if c := walk(next); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[room] = done
		return nil
	}
	for _, room := range slices.Sorted(maps.Keys(arrows)) {
		if state[room] == unseen {
			if c := walk(room); c != nil {
				return c
			}
		}
	}
	return nil
}

// circleFrom writes the part of path that starts at start, back to start.
func circleFrom(path []string, start string, arrows map[string]map[string]string) []string {
	i := slices.Index(path, start)
	rooms := append(slices.Clone(path[i:]), start)
	var steps []string
	for j := 0; j+1 < len(rooms); j++ {
		steps = append(steps, fmt.Sprintf("%s (%s)", rooms[j], arrows[rooms[j]][rooms[j+1]]))
	}
	return append(steps, start)
}

func TestFindCircleNamesTheImports(t *testing.T) {
	arrows := roomArrows(map[string][]string{
		"internal/reactortest": {"host/wasm/engine"},
		"host/wasm":            {"internal/safefile"},
		"internal/safefile":    {},
		"host/wasm/engine":     {},
		"manifest":             {"internal/safefile"},
	})
	got := strings.Join(findCircle(arrows), " → ")
	want := "host (host/wasm imports internal/safefile) → internal (internal/reactortest imports host/wasm/engine) → host"
	if got != want {
		t.Errorf("circle:\n got %s\nwant %s", got, want)
	}
	delete(arrows["internal"], "host")
	if c := findCircle(arrows); c != nil {
		t.Errorf("a circle where there is none: %v", c)
	}
}
