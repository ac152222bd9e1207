// Package mcp is the host's MCP server for described ACP harnesses
// (docs/harness.md#the-hosts-mcp-server), built on the official MCP Go SDK.
//
// [Start] serves MCP over the SDK's streamable HTTP transport on a loopback
// address only. Every request carries "Authorization: Bearer <token>" where
// the token is one an agent received from [Server.NewToken]; a request
// without one, with an unknown one, or with a revoked one gets 401. A token
// names its agent, so a tool call knows which agent asks; a request that
// reuses another agent's session gets 401 too (that token does not open it).
//
// The server offers the tool ask_question: the agent's questions, with their
// options, go to [Options.Ask] (the host shows a question card) and the
// answers come back as text and as structured content.
//
// An ACP session is given the server by [Server.HTTPEntry] (ACP's McpServer
// http form) or, for an agent without mcpCapabilities.http, by
// [Server.StdioEntry]: the host's own binary run as "escouade-plugin
// mcp-stdio --url URL", which reads the token from the first line of its
// standard input and then bridges MCP over stdio to the HTTP server
// ([ServeStdio]). Example starts the server and makes an agent's entry.
//
// What this package cannot do by itself: in the stdio form the token must be
// the first line the bridge reads, but it is the agent that starts the bridge
// and owns its stdin, and an ACP agent writes MCP messages there, not a
// token. The bridge therefore refuses, with a message on its error output,
// a first line that is a JSON-RPC message. The stdio form works only where
// something writes the token first (a wrapper, or an agent that passes it
// through); the spec forbids carrying it in the arguments or environment,
// which would have made it work with any agent.
package mcp
