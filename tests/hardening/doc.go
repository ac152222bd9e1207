// Package hardening holds black-box acceptance tests of escouade-plugin run
// and install against hostile plugin programs: each test builds the real
// command, starts it, writes console lines and reads what comes back. The
// tests read /proc, so they run on Linux only.
package hardening
