package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/escouade-dev/escouade-plugin/vocab"
)

const jsonrpcVersion = "2.0"

// JSON-RPC and ACP error codes the client meets or sends. JSON-RPC's own
// are the plugin protocol's too, and come from its schema (vocab);
// ACP's are ACP's alone.
const (
	CodeParseError       = vocab.CodeParseError
	CodeInvalidRequest   = vocab.CodeInvalidRequest
	CodeMethodNotFound   = vocab.CodeMethodNotFound
	CodeInvalidParams    = vocab.CodeInvalidParams
	CodeInternalError    = vocab.CodeInternalError
	CodeAuthRequired     = -32000
	CodeResourceNotFound = -32002 // a file that does not exist
	CodeRequestCancelled = -32800
)

// The ACP methods the client calls, sends or serves (ACP 1), named once.
const (
	methodInitialize        = "initialize"
	methodSessionNew        = "session/new"
	methodSessionLoad       = "session/load"
	methodSessionResume     = "session/resume"
	methodSessionPrompt     = "session/prompt"
	methodSessionCancel     = "session/cancel"
	methodSessionClose      = "session/close"
	methodSessionUpdate     = "session/update"
	methodSessionSetMode    = "session/set_mode"
	methodSessionSetModel   = "session/set_model"
	methodSessionSetConfig  = "session/set_config_option"
	methodRequestPermission = "session/request_permission"
	methodReadTextFile      = "fs/read_text_file"
	methodWriteTextFile     = "fs/write_text_file"
	methodCancelRequest     = "$/cancel_request"
)

// Error is a JSON-RPC error, as the agent sent it or as the host answers an
// agent's request with it (Reply).
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// Out is one JSON-RPC message to write to the agent's stdin, without the
// newline that ends it.
type Out struct {
	Line []byte
}

// incoming is any JSON-RPC message from the agent.
type incoming struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

func (m *incoming) hasID() bool { return len(m.ID) > 0 && string(m.ID) != "null" }

type outRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type outNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type outResult struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type outError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *Error          `json:"error"`
}

// rawID is the exact text of a JSON-RPC id, used as a map key; ids 5 and
// "5" stay apart.
func rawID(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// jsonText gives a JSON value as text for messages: strings unquoted, other
// values as written, "none" when absent.
func jsonText(v json.RawMessage) string {
	if len(v) == 0 {
		return "none"
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return rawID(v)
}

func idText(id int64) string { return strconv.FormatInt(id, 10) }
