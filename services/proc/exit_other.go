//go:build !unix

package procsvc

import "os"

func exitCode(state *os.ProcessState) int { return state.ExitCode() }
