package harness_test

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/harness"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// An app starts an agent's session from the plugin that describes its
// harness, shows each conversation item as it comes, prompts it and
// closes it. It needs the agent's program installed, so it is compiled,
// not run.
func Example() {
	ctx := context.Background()
	m, err := manifest.Load(filepath.Join("plugins", "dev.escouade.claude"), manifest.LoadOptions{})
	if err != nil {
		return
	}
	s, err := harness.Start(ctx, harness.Options{
		Manifest: m,
		Cwd:      filepath.Join("projects", "notes"),
		OnItem:   func(item acp.Item) { fmt.Printf("%+v\n", item) },
	})
	if err != nil {
		fmt.Println("could not start:", err)
		return
	}
	if err := s.Prompt("hello"); err != nil {
		fmt.Println("not sent:", err)
	}
	_ = s.Close(ctx)
}
