// Package realagents drives real third-party ACP agents from npm (Claude
// Code, Codex and Goose) through the built command, offline: each agent
// talks to a scripted model server on 127.0.0.1 that answers in its
// provider's wire format (docs/harness.md#real-agents).
package realagents
