//go:build !unix

package services

import "testing"

// addLinks adds nothing where links need privileges and FIFOs do not exist.
func addLinks(testing.TB, string) {}
