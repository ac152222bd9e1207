package web

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
)

// redrawingPage redraws its form at every frame, as the agents list
// redraws itself at every state change: each node a step finds is soon
// gone. Its button counts its presses; its field is redrawn with the value
// it holds. A press is counted when it lands on a button (a click, down
// and up on one element, is lost when the button is redrawn between the
// two: the page's doing, not the helper's).
const redrawingPage = `<!doctype html><html lang="en"><head><title>redraws</title></head><body>
<div id="box"></div>
<script>
window.presses = 0; window.redraws = 0;
let value = "";
function draw() {
  const focused = document.activeElement && document.activeElement.id === "name";
  document.getElementById("box").innerHTML = '<button type="button" id="go">Go</button> <label for="name">Name</label><input id="name" type="text">';
  const input = document.getElementById("name");
  input.value = value;
  input.addEventListener("input", () => { value = input.value; });
  document.getElementById("go").addEventListener("mousedown", () => { window.presses++; });
  if (focused) { input.focus(); input.setSelectionRange(value.length, value.length); }
  window.redraws++;
  requestAnimationFrame(draw);
}
draw();
</script></body></html>`

// The helpers click and type on a page that replaces their elements all
// the time: each looks its element up again when the node it found is
// gone, where a node held across the redraw failed with "Could not find
// node with given id".
func TestBrowserHelpersSurviveRedraws(t *testing.T) {
	ctx := browser(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(redrawingPage))
	}))
	defer srv.Close()
	err := chromedp.Do(ctx,
		chromedp.Navigate(srv.URL),
		waitJS(`() => window.redraws > 10`),
	)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if err := chromedp.Do(ctx, click("button", "Go")); err != nil {
			t.Fatalf("a click on a redrawn button: %v", err)
		}
	}
	err = chromedp.Do(ctx,
		waitJS(`() => window.presses === 20`),
		fill("Name", "kept"),
		waitJS(`() => document.getElementById("name").value === "kept"`),
	)
	if err != nil {
		t.Fatal(err)
	}
	redraws, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.redraws`))
	if err != nil || redraws < 20 {
		t.Errorf("the page redrew %d times (%v): it did not test a redraw", redraws, err)
	}
}
