// Package harness runs a described ACP harness (docs/harness.md): a coding agent
// that a plugin describes in its manifest with an "acp" object, launched and
// spoken to by the host with no code of the plugin's own.
//
// A Session is one agent. Start finds the program (locate.names in PATH),
// reads its version (a notice when it is outside the tested range), builds
// its environment (the app's minus removeEnv, plus env, plus accountVar),
// launches it in its own process group in the agent's folder and plays the
// pure ACP client of package acp against it. The session's one goroutine owns
// that client: it feeds it the agent's lines (of any size up to
// Options.MaxLineBytes, 20 MiB and more by default), writes its lines to the
// agent's stdin through a writer goroutine, and applies what the acp package
// leaves to the host:
//
//   - the permission policy of the app mode: default asks for everything,
//     acceptEdits lets writes inside the agent's folder pass, bypassPermissions
//     lets everything pass; a card of a write gets its diff from the agent's
//     diff content, else from rawInput against the file on disk;
//   - fs/read_text_file (line, limit) and fs/write_text_file behind the
//     private-project Fence; with "fs": false no fs is advertised, the agent
//     does not start in a private project, and a tool call naming a path
//     while a fence holds is followed by a notice that the fence does not hold
//     for it;
//   - cancel: a turn not ended Options.CancelGrace (10 s) after the cancel
//     has its agent's process group killed, with a notice;
//   - question cards of the host's MCP tool ask_question (Session.Ask), beside
//     the questions in text the acp package cuts out;
//   - persistence: with a Store, every item is appended to the agent's
//     conversation and the agent index keeps its session id, so a later Start
//     re-attaches (session/load, session/resume, or a new session with the
//     notice "new session (context cleared)"); Store.List marks "Harness
//     absent" the agents whose plugin is gone or disabled.
//
// Items reach Options.OnItem in order, from the session's goroutine; the
// callback may call the session's methods, which only queue work. Example
// starts a session, prompts it and closes it.
//
// What caps does not say, the agent does not do: a mode outside caps.modes
// (CheckMode), readOnly without caps.readOnly, and a prompt's image or PDF
// without caps.images or caps.pdf (PromptFiles) are refused before anything
// reaches the agent. Deletes and moves are not counted as the writes
// acceptEdits lets pass.
package harness
