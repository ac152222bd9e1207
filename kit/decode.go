package kit

import (
	"encoding/json"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// Decode reads params into a T. Params the host omitted read as the zero T
// (an empty object, as the protocol schema says); params that do not fit T
// give an error wrapping jsonrpc.ErrInvalidParams, which a handler returns
// as is so that the host gets -32602:
//
//	in, err := kit.Decode[struct{ Name string `json:"name"` }](params)
//	if err != nil {
//		return nil, err
//	}
func Decode[T any](params json.RawMessage) (T, error) {
	var v T
	if len(params) == 0 {
		return v, nil
	}
	if err := json.Unmarshal(params, &v); err != nil {
		var zero T
		return zero, fmt.Errorf("%w: %v", jsonrpc.ErrInvalidParams, err)
	}
	return v, nil
}
