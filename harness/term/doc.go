// Package term renders a harness conversation for a person at a terminal:
// streamed text, one line per tool call, permission cards with their diffs
// in green and red, question cards, and notices. Render is a pure function
// of the items seen so far, so what a person sees is tested as text.
//
//	r := &term.Renderer{Color: true}
//	for it := range items {
//		fmt.Print(r.Render(it))
//	}
//
// A card is answered with a key: 1..n picks the permission option shown
// under that number (listed by kind, whatever the agent named them), and
// question cards take the numbers of the chosen options or a typed answer
// (ParseAnswer).
package term
