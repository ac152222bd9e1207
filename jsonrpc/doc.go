// Package jsonrpc speaks JSON-RPC 2.0 over a stream of lines, the wire of
// Escouade plugins (docs/protocol.md#3-messages): one UTF-8 JSON message or batch per
// '\n'-ended line, in both directions.
//
// The package has three layers, each usable alone:
//
//   - DecodeLine turns one line into messages or into the exact error
//     answers JSON-RPC requires (-32700 for what is not JSON, -32600 for a
//     JSON value that is not a message), member by member for a batch.
//   - LineReader cuts a stream into lines of bounded length, skipping blank
//     lines and resynchronising after an over-long one.
//   - Conn is a bidirectional connection: it calls the peer (Call, Notify,
//     Batch, and Go and GoBatch to write now and wait later), serves the
//     peer's requests through Options.Handle, and reports what its owner
//     should journal through Options.OnEvent.
//
// # Serving the peer
//
// A request alone on its line is served by the goroutine that read it,
// while a new goroutine takes over the reading (leader/follower): lines are
// still read by one reader at a time, requests run concurrently, and the
// answer goes out without a hand-off between goroutines — which, on a
// plugin's blocking stdin, cost the wait for the scheduler to notice the
// reader blocked in its next read. Each request of a batch gets a goroutine
// of its own. Notifications are served one at a time, in the order they
// came, on one goroutine, so that ordered streams (log lines, chunks) keep
// their order. A batch is answered by one array once all its requests are
// answered; a batch of notifications only gets no answer.
//
// Options.Bind hands the Conn to its owner before the first line is read,
// so that what serves the peer can notify it from a handler or later. A
// handler that returns ErrAsyncResponse answers later with Conn.Respond:
// its goroutine is gone and its request slot given back meanwhile, so a
// request that waits on something slow (a program, a fetch) holds neither;
// a batch holding such a request is answered once it is. A handler's
// panic answers -32603 and is reported as EventHandlerPanic.
//
// # Bounds
//
// Whatever the peer sends, a Conn holds a bounded amount for it
// (docs/protocol.md#3-messages): at most Options.MaxRequests requests served at once
// (64), Options.MaxHeld bytes of request lines, answers waiting to be
// written and notifications waiting to be served (16 MiB),
// Options.MaxNotifications notifications queued (1024), and
// Options.MaxLater requests waiting for an answer given later (1024). While one of them
// bites the Conn reads nothing more, so the pipe pushes back on the peer,
// and it reports EventBound ("reading paused: 64 requests served at once,
// the limit"), the first time and then each time the count doubles. No
// line longer than Options.MaxWriteLine (8 MiB) is written: an answer that
// would be is replaced by -32004 "the answer would exceed the 8 MiB line
// limit" (EventAnswerTooLong); in a batch, only the members whose answers
// would not fit get it, room for it being kept for every member, and a
// batch whose answer could not fit even then is refused whole with that
// one error before any member is served.
//
// # Reading answers
//
// Answers to our own calls go from whoever reads them straight to the
// waiting caller. On a stream whose reads can be interrupted (a pipe
// *os.File, a net.Conn), a caller whose call is not yet answered reads the
// stream itself when nobody else does, as a bare program reading its pipe
// would, instead of waiting for a reader goroutine to wake it: with two
// scheduler threads that wake is a thread woken on the other core for
// every call. A background reader takes over when nobody calls (token.go).
//
// # Ids
//
// An ID keeps the exact JSON text the peer sent, so 9007199254740993 or
// "a\"b" is echoed byte for byte. Any JSON number or string is accepted as
// an id; numbers are never converted, so 1e400 or 1.5 are kept as written.
// Two ids are the same only when their texts are equal: 1 and 1.0 differ,
// and so do 1 and "1". The connection's own requests use integer ids counted
// from 1 that are never reused during its life.
//
// # Decisions where JSON-RPC 2.0 is loose
//
//   - Member names are case-sensitive and compared after unescaping, so
//     "m\u0065thod" is method but "Method" is an unknown member. Unknown
//     members are ignored. A known member given twice makes the message
//     invalid (-32600): parsers disagree on which copy wins.
//   - "params": null is taken as no params; any other JSON value is kept
//     as given, as the reference's own example sends "params": 1: what a
//     method takes is its schema's to say (-32602), not the envelope's.
//   - An empty method name is invalid, as is a message holding a method and
//     a result or an error.
//   - "id": null is invalid in a request and in a success answer, and
//     accepted in an error answer (the peer could not read our message).
//   - A response to something that could not be read carries "id": null.
//
// # Performance
//
// BenchmarkRoundTrip times one call between two Conns over os.Pipe pairs;
// BenchmarkPipeEcho is a raw echo of the same line over the same pipes;
// BenchmarkDecodeLine decodes a request and a batch of 100 (one pass over
// the line, three allocations for either). The module in perf/ measures
// the whole host against the raw pipe and its peers; docs/PERFORMANCE.md
// holds the results.
//
//	go test -run '^$' -bench 'RoundTrip|PipeEcho|DecodeLine' -benchmem ./jsonrpc
//
// # Example
//
//	conn := jsonrpc.NewConn(stdout, stdin, jsonrpc.Options{
//		Handle: func(ctx context.Context, m *jsonrpc.Message) (any, error) {
//			return nil, jsonrpc.ErrMethodNotFound
//		},
//	})
//	defer conn.Close()
//	result, err := conn.Call(ctx, "initialize", params)
package jsonrpc
