package manifest_test

import (
	"fmt"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

func ExampleParse() {
	data := []byte(`{
		"id": "dev.example.notes",
		"name": {"fr": "Notes", "en": "Notes"},
		"version": "1.0.0",
		"escouade": {"api": "1", "min": "2.1.0"},
		"run": {"command": ["./bin/notes"]},
		"activation": ["event:ticket.column"],
		"permissions": {"secrets": ["*"]}
	}`)
	_, err := manifest.Parse(data, manifest.LoadOptions{AppVersion: "2.0.0"})
	fmt.Println(err)
	// Output:
	// escouade-plugin.json: /escouade/min: the plugin needs Escouade 2.1.0 or newer; this is Escouade 2.0.0 (fix: update Escouade to 2.1.0 or newer)
	// escouade-plugin.json: /permissions/secrets/0: "*" alone is refused: it would give every secret of the plugin (fix: name a key of the plugin ("webhook") or a prefix pattern ending in * ("account:*"))
}

func ExampleText_In() {
	text := manifest.Translated(
		manifest.Translation{Lang: "fr", Text: "Bonjour"},
		manifest.Translation{Lang: "en", Text: "Hello"},
	)
	fmt.Println(text.In("fr"), text.In("fr-CA"), text.In("de"))
	// Output: Bonjour Bonjour Hello
}
