// Package acp is the client side of the Agent Client Protocol (ACP, protocol
// version 1) as a pure state machine: lines from the agent go in, conversation
// items and lines to write to the agent come out. It has no process, no
// goroutine and no clock of its own; the harness owns the agent's process,
// reads its stdout line by line (lines of any size), writes the returned
// lines to its stdin, and decides when a cancel has waited long enough;
// Example feeds it an agent's answer to initialize.
//
// Decisions the specification leaves open:
//
//   - Text is streamed: each agent_message_chunk, agent_thought_chunk and
//     user_message_chunk becomes one item holding only that chunk (a delta).
//     Chunks of one message share Item.MessageID, so joining them is
//     appending the Text of the items with the same MessageID. The agent's
//     messageId is kept when it gives one; otherwise consecutive chunks of
//     one kind share an id the client makes up ("m1", "m2", …).
//   - Requests of the agent that need the host (fs/read_text_file,
//     fs/write_text_file, session/request_permission) and question cards carry
//     a handle in Item.Request ("r1", "r2", …) made by the client; the agent's
//     own JSON-RPC id is kept byte for byte for the answer, so any id, 0
//     included, works.
//   - ACP 1 has no capability that says an agent handles $/cancel_request;
//     Options.CancelRequests says it.
//   - Known update kinds carrying fields outside the ACP schema give their
//     item and, after it, an "unknown" item with the raw update, so nothing is
//     lost; "_meta" is ACP's extension point and is not reported.
//   - A sub-agent's calls are the tool calls that start while a tool of
//     Options.SubagentTools is running (ACP says nothing of nesting); the
//     latest running sub-agent is the parent.
//   - With Options.QuestionsInText, agent text from "<escouade_question>" on
//     is held back until the turn ends, then shown as a question card, or as
//     text with a notice when the block is malformed.
//
// What docs/harness.md promises that is the harness's part, not done here: the 10 s
// cancel escalation (the harness records when it called Cancel and asks
// CancelPending, then calls AgentStopped); the fence on fs paths and the
// notice when an agent with fs off touches files (fsRead, fsWrite and the
// Locations and Diffs of tool items give it what it needs); a permission
// card's diffs when its content has none, built from rawInput against the
// file on disk, and the lines every diff is drawn as; the permission policy
// by app mode (it answers with AnswerPermission). Cursor's cursor/*
// extensions are spoken under Options.Cursor (cursor.go); without it, their
// requests are refused with method not found and shown as "unknown" items.
package acp
