package keychain_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/escouade-dev/escouade-plugin/keychain"
)

// Open picks a keychain by the name the CLI's --keychain flag takes; a
// plugin's secret is read by its plugin-scoped name, and a name never set
// is ErrNotFound, which the plugin gets as null.
func ExampleOpen() {
	home, err := os.MkdirTemp("", "escouade-home")
	if err != nil {
		return
	}
	defer os.RemoveAll(home)
	kc, err := keychain.Open("file", home) // home/secrets.enc
	if err != nil {
		fmt.Println("no keychain:", err)
		return
	}
	_, err = kc.Get(keychain.Service, keychain.PluginName("dev.example.slack", "webhook"))
	switch {
	case errors.Is(err, keychain.ErrNotFound):
		fmt.Println("the plugin gets null")
	case errors.Is(err, keychain.ErrUnavailable):
		fmt.Println("the plugin gets -32002")
	}
	// Output:
	// the plugin gets null
}
