package safefile

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSHA256IsTheDigestOfTheWholeFileWithinItsLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plugin.wasm")
	body := []byte(strings.Repeat("module bytes ", 100_000)) // past one piece of the stream
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	got, err := SHA256(path, "plugin.wasm", int64(len(body)))
	if err != nil || got != hex.EncodeToString(sum[:]) {
		t.Fatalf("SHA256 = %q, %v; want %x", got, err, sum)
	}
	if _, err := SHA256(path, "plugin.wasm", int64(len(body))-1); err == nil || !strings.Contains(err.Error(), "plugin.wasm") {
		t.Fatalf("a file past its limit = %v, want a refusal naming it", err)
	}
}
