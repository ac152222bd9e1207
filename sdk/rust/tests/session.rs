//! The kit as the host sees it: lines in, lines out, turn by turn.

use escouade_plugin::{decode, json, proto, Error, Host, Level, Plugin, Request, Session, Value, WsEvent};

fn setup(p: &mut Plugin) {
    p.handle("t/echo", |_h: Host, params: Value| async move { Ok(params) });
    p.handle("t/fail", |_h: Host, _p: Value| async move { Err::<Value, _>(Error::new(proto::CODE_FORBIDDEN, "No.").with_reason("why")) });
    p.handle("t/greet", |_h: Host, params: Value| async move {
        #[derive(serde::Deserialize)]
        struct In {
            name: String,
        }
        let input: In = decode(params)?;
        Ok(format!("Hello, {}", input.name))
    });
    p.handle("t/secret", |h: Host, _p: Value| async move {
        let token = h.secret("token").await?;
        h.log(Level::Info, "asked");
        Ok(json!({ "found": token.is_some() }))
    });
    p.handle("t/sleep", |h: Host, _p: Value| async move {
        h.sleep(25).await?;
        Ok("slept")
    });
    p.handle("t/timeout", |h: Host, _p: Value| async move {
        let r = h.timeout(10, async { h.secret("slow").await }).await;
        match r {
            Err(e) if e.is_timeout() => Ok(e.message().to_string()),
            other => Ok(format!("{:?}", other)),
        }
    });
    p.handle("t/fetch", |h: Host, _p: Value| async move {
        let r = h.fetch(Request::get("https://example.org/")).await?;
        Ok(json!({ "status": r.status, "body": r.text() }))
    });
    p.handle("t/stream", |h: Host, _p: Value| async move {
        let mut s = h.stream(Request::get("https://example.org/")).await?;
        let mut body = Vec::new();
        while let Some(chunk) = s.next().await? {
            body.extend(chunk);
        }
        Ok(String::from_utf8_lossy(&body).into_owned())
    });
    p.handle("t/ws", |h: Host, _p: Value| async move {
        let mut sock = h.ws_open(proto::WsOpenParams { url: "wss://example.org/".into(), ..Default::default() }).await?;
        sock.send_text("hi").await?;
        let mut got = Vec::new();
        while let Some(e) = sock.next().await {
            got.push(match e {
                WsEvent::Message { data, .. } => String::from_utf8_lossy(&data).into_owned(),
                WsEvent::Closed { code, .. } => format!("closed {}", code),
            });
        }
        Ok(got)
    });
    p.on_event("ticket.column", |h: Host, params: Value| async move {
        h.log(Level::Info, &format!("moved {}", params["ticket"]));
    });
}

fn turn(s: &mut Session, lines: &[&str]) -> Vec<String> {
    let mut input = String::new();
    for l in lines {
        input.push_str(l);
        input.push('\n');
    }
    let out = String::from_utf8(s.turn(input.as_bytes())).unwrap();
    out.lines().map(|l| l.to_string()).collect()
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"escouade":{"version":"2.2.0"},"plugin":{"id":"dev.t","version":"0.1.0"},"lang":"fr","capabilities":{"batch":true}}}"#;

fn started() -> Session {
    let mut s = Session::new(setup);
    let out = turn(&mut s, &[INIT]);
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"attach":false,"batch":true},"protocolVersion":1}}"#]);
    s
}

#[test]
fn handshake_then_exact_ids() {
    let mut s = started();
    let out = turn(
        &mut s,
        &[
            r#"{"jsonrpc":"2.0","id":9007199254740993,"method":"t/echo","params":{"a":1}}"#,
            r#"{"jsonrpc":"2.0","id":1e400,"method":"t/echo"}"#,
            r#"{"jsonrpc":"2.0","id":"a\"b","method":"t/echo","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1.0,"method":"t/echo"}"#,
        ],
    );
    assert_eq!(
        out,
        vec![
            r#"{"jsonrpc":"2.0","id":9007199254740993,"result":{"a":1}}"#,
            r#"{"jsonrpc":"2.0","id":1e400,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":"a\"b","result":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1.0,"result":null}"#,
        ]
    );
}

#[test]
fn errors_have_the_go_kits_codes_and_texts() {
    let mut s = started();
    let out = turn(
        &mut s,
        &[
            r#"{"jsonrpc":"2.0","id":2,"method":"t/nope"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"t/greet","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"t/fail"}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"t/greet","params":{"name":"Ada"}}"#,
            "not json",
            r#"{"jsonrpc":"1.0","id":6,"method":"t/echo"}"#,
            "[]",
        ],
    );
    assert_eq!(
        out,
        vec![
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"data":{"reason":"no such method: t/nope"},"message":"Method not found"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
            r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"Invalid Request"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: missing field `name`"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32003,"data":{"reason":"why"},"message":"No."}}"#,
            r#"{"jsonrpc":"2.0","id":5,"result":"Hello, Ada"}"#,
        ]
    );
}

#[test]
fn a_batch_is_answered_as_one_array() {
    let mut s = started();
    let out = turn(
        &mut s,
        &[
            r#"[{"jsonrpc":"2.0","id":"x","method":"t/echo","params":{"n":1}},{"jsonrpc":"2.0","method":"event/ticket.column","params":{"ticket":"T-1"}},{"jsonrpc":"2.0","id":"y","method":"t/nope"}]"#,
            r#"[{"jsonrpc":"2.0","method":"event/ticket.column","params":{"ticket":"T-2"}}]"#,
        ],
    );
    assert_eq!(
        out,
        vec![
            r#"[{"jsonrpc":"2.0","id":"x","result":{"n":1}},{"jsonrpc":"2.0","id":"y","error":{"code":-32601,"data":{"reason":"no such method: t/nope"},"message":"Method not found"}}]"#,
            r#"{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"moved \"T-1\""}}"#,
            r#"{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"moved \"T-2\""}}"#,
        ]
    );
}

#[test]
fn a_call_to_the_host_completes_in_a_later_turn() {
    let mut s = started();
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","id":7,"method":"t/secret"}"#]);
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":1,"method":"secrets/get","params":{"key":"token"}}"#]);
    assert_eq!(s.pending(), 1);
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","id":1,"result":"s3cret"}"#]);
    assert_eq!(
        out,
        vec![r#"{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"asked"}}"#, r#"{"jsonrpc":"2.0","id":7,"result":{"found":true}}"#]
    );
    assert_eq!(s.pending(), 0);
}

#[test]
fn a_refusal_of_the_host_reaches_the_caller_as_is() {
    let mut s = started();
    turn(&mut s, &[r#"{"jsonrpc":"2.0","id":7,"method":"t/secret"}"#]);
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"This secret is not the plugin's.","data":{"reason":"token"}}}"#]);
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"data":{"reason":"token"},"message":"This secret is not the plugin's."}}"#]);
}

#[test]
fn a_bad_answer_of_the_host_is_named() {
    let mut s = started();
    turn(&mut s, &[r#"{"jsonrpc":"2.0","id":7,"method":"t/secret"}"#]);
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","id":1,"result":42}"#]);
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"kit: secrets/get answered 42, not a string or null"}}"#]);
}

#[test]
fn sleep_waits_for_timer_fired() {
    let mut s = started();
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","id":8,"method":"t/sleep"}"#]);
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":1,"method":"timer/set","params":{"ms":25}}"#]);
    // The answer and the fired in one turn: the fired comes before the
    // task has read the answer, and is kept for it.
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","id":1,"result":{"timer":3}}"#, r#"{"jsonrpc":"2.0","method":"timer/fired","params":{"timer":3}}"#]);
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":8,"result":"slept"}"#]);
}

#[test]
fn timeout_gives_up_and_names_its_limit() {
    let mut s = started();
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","id":9,"method":"t/timeout"}"#]);
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":1,"method":"timer/set","params":{"ms":10}}"#]);
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","id":1,"result":{"timer":1}}"#]);
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":2,"method":"secrets/get","params":{"key":"slow"}}"#]);
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","method":"timer/fired","params":{"timer":1}}"#]);
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":9,"result":"no answer within 10 ms"}"#]);
}

#[test]
fn fetch_decodes_the_body() {
    let mut s = started();
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","id":10,"method":"t/fetch"}"#]);
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":1,"method":"net/fetch","params":{"url":"https://example.org/"}}"#]);
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","id":1,"result":{"status":200,"headers":{},"body":"aGk=","bodyEncoding":"base64"}}"#]);
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":10,"result":{"body":"hi","status":200}}"#]);
}

#[test]
fn fetch_reads_a_body_past_4_mib_through_net_stream() {
    let mut s = started();
    turn(&mut s, &[r#"{"jsonrpc":"2.0","id":10,"method":"t/fetch"}"#]);
    let refusal = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32004,"message":"The request failed on the way.","data":{"reason":"https://example.org/: the body is over the 4194304 bytes a net/fetch answer carries (limits.netMaxBytes 16777216 holds for net/stream): read it through net/stream"}}}"#;
    let out = turn(&mut s, &[refusal]);
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":2,"method":"net/stream","params":{"url":"https://example.org/"}}"#]);
    // 10 MiB in chunks of 32 KiB, the first two coming with the answer.
    let chunk = format!(r#"{{"jsonrpc":"2.0","method":"net/chunk","params":{{"stream":6,"data":"{}","bodyEncoding":"utf8"}}}}"#, "x".repeat(32 << 10));
    let head = r#"{"jsonrpc":"2.0","id":2,"result":{"stream":6,"status":200,"headers":{"Content-Type":"text/plain"}}}"#;
    assert!(turn(&mut s, &[head, &chunk, &chunk]).is_empty());
    for _ in 2..320 {
        assert!(turn(&mut s, &[&chunk]).is_empty());
    }
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","method":"net/end","params":{"stream":6}}"#]);
    assert_eq!(out.len(), 1);
    let answer: Value = serde_json::from_str(&out[0]).unwrap();
    assert_eq!(answer["result"]["status"], 200);
    assert_eq!(answer["result"]["body"].as_str().map(str::len), Some(10 << 20));

    // A body past limits.netMaxBytes ends the stream with the host's reason.
    turn(&mut s, &[r#"{"jsonrpc":"2.0","id":11,"method":"t/fetch"}"#]);
    turn(&mut s, &[&refusal.replace(r#""id":1"#, r#""id":3"#)]);
    turn(&mut s, &[r#"{"jsonrpc":"2.0","id":4,"result":{"stream":7,"status":200,"headers":{}}}"#]);
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","method":"net/end","params":{"stream":7,"error":"https://example.org/: the body is over the limit of 16777216 bytes"}}"#]);
    assert_eq!(out.len(), 1);
    assert!(out[0].contains(r#""code":-32004"#) && out[0].contains("over the limit of 16777216 bytes"), "{}", out[0]);
}

#[test]
fn a_stream_reads_its_chunks_to_the_end() {
    let mut s = started();
    turn(&mut s, &[r#"{"jsonrpc":"2.0","id":11,"method":"t/stream"}"#]);
    let out = turn(
        &mut s,
        &[
            r#"{"jsonrpc":"2.0","id":1,"result":{"stream":4,"status":200,"headers":{}}}"#,
            r#"{"jsonrpc":"2.0","method":"net/chunk","params":{"stream":4,"data":"ab","bodyEncoding":"utf8"}}"#,
            r#"{"jsonrpc":"2.0","method":"net/chunk","params":{"stream":4,"data":"Yw==","bodyEncoding":"base64"}}"#,
        ],
    );
    assert!(out.is_empty(), "{:?}", out);
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","method":"net/end","params":{"stream":4}}"#]);
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":11,"result":"abc"}"#]);
}

#[test]
fn a_socket_reads_messages_then_its_close() {
    let mut s = started();
    turn(&mut s, &[r#"{"jsonrpc":"2.0","id":12,"method":"t/ws"}"#]);
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","id":1,"result":{"socket":2}}"#]);
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":2,"method":"ws/send","params":{"socket":2,"data":"hi"}}"#]);
    let out = turn(
        &mut s,
        &[
            r#"{"jsonrpc":"2.0","id":2,"result":null}"#,
            r#"{"jsonrpc":"2.0","method":"ws/message","params":{"socket":2,"data":"yo","binary":false}}"#,
            r#"{"jsonrpc":"2.0","method":"ws/closed","params":{"socket":2,"code":1000,"reason":""}}"#,
        ],
    );
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":12,"result":["yo","closed 1000"]}"#]);
}

#[test]
fn shutdown_is_answered_and_ends_the_session() {
    let mut s = started();
    let out = turn(&mut s, &[r#"{"jsonrpc":"2.0","id":"s","method":"shutdown"}"#, r#"{"jsonrpc":"2.0","id":13,"method":"t/echo"}"#]);
    assert_eq!(out, vec![r#"{"jsonrpc":"2.0","id":"s","result":null}"#]);
    assert!(s.ended());
}

#[test]
fn a_line_may_come_in_pieces() {
    let mut s = started();
    assert!(s.turn(br#"{"jsonrpc":"2.0","id":2,"#).is_empty());
    let out = s.turn(b"\"method\":\"t/echo\"}\r\n");
    assert_eq!(String::from_utf8(out).unwrap(), "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":null}\n");
}

#[test]
fn root_files_are_read_from_the_root_folder() {
    let dir = std::env::temp_dir().join(format!("escouade-kit-root-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("rules.json"), "{}").unwrap();
    let host_seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let seen = host_seen.clone();
    let mut s = Session::new(move |p: &mut Plugin| {
        let seen = seen.clone();
        p.handle("t/root", move |h: Host, _p: Value| {
            let seen = seen.clone();
            async move {
                for name in ["rules.json", "nope.json", "../x.json"] {
                    seen.borrow_mut().push(match h.root_file(name) {
                        Ok(b) => String::from_utf8(b).unwrap(),
                        Err(e) => format!("{} {}", e.code(), e.reason()),
                    });
                }
                Ok(())
            }
        });
    })
    .with_root(&dir);
    turn(&mut s, &[INIT, r#"{"jsonrpc":"2.0","id":2,"method":"t/root"}"#]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        *host_seen.borrow(),
        vec![
            "{}".to_string(),
            "-32005 nope.json: not among the root JSON files of /plugin".to_string(),
            "-32003 \"../x.json\": a root JSON file is named without a folder".to_string()
        ]
    );
}

const PARSE_ERROR: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;

#[test]
fn bad_json_is_answered_and_the_next_line_read() {
    let mut s = started();
    let out = turn(
        &mut s,
        &[
            r#"{"jsonrpc":"2.0","id":2,"method":"t/echo""#, // cut short
            r#"{"jsonrpc":"2.0","id":3,"method":"t/echo"} {}"#, // data after the value
            "\u{1}",
            r#"{"jsonrpc":"2.0","id":4,"method":"t/echo","params":[1]}"#,
        ],
    );
    assert_eq!(out, vec![PARSE_ERROR, PARSE_ERROR, PARSE_ERROR, r#"{"jsonrpc":"2.0","id":4,"result":[1]}"#]);
    let out = String::from_utf8(s.turn(b"\xff\xfe\n{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"t/echo\"}\n")).unwrap();
    assert_eq!(out, format!("{}\n{}\n", PARSE_ERROR, r#"{"jsonrpc":"2.0","id":5,"result":null}"#), "a line that is not UTF-8");
}

#[test]
fn a_line_too_long_is_refused_and_skipped_to_its_end() {
    let mut s = started();
    // Over the limit in one piece: refused at once, the next line read.
    let long = format!("{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"t/echo\",\"params\":[\"{}\"]}}", "a".repeat(escouade_plugin::MAX_LINE_BYTES));
    let out = turn(&mut s, &[&long, r#"{"jsonrpc":"2.0","id":3,"method":"t/echo"}"#]);
    assert_eq!(out, vec![PARSE_ERROR, r#"{"jsonrpc":"2.0","id":3,"result":null}"#]);

    // Over the limit across turns: refused when it passes the limit; what
    // follows, up to its end, is skipped without being kept.
    let half = vec![b'a'; escouade_plugin::MAX_LINE_BYTES / 2 + 1];
    assert!(s.turn(b"[\"").is_empty());
    assert!(s.turn(&half).is_empty(), "half the limit waits for the end of its line");
    assert_eq!(String::from_utf8(s.turn(&half)).unwrap(), format!("{}\n", PARSE_ERROR));
    assert!(s.turn(&half).is_empty(), "the rest of a refused line is skipped");
    let out = String::from_utf8(s.turn(b"\"]\n{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"t/echo\"}\n")).unwrap();
    assert_eq!(out, format!("{}\n", r#"{"jsonrpc":"2.0","id":4,"result":null}"#));

    // A line of exactly the limit is read.
    let pad = escouade_plugin::MAX_LINE_BYTES - r#"{"jsonrpc":"2.0","id":5,"method":"t/echo","params":[""]}"#.len();
    let exact = format!("{{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"t/echo\",\"params\":[\"{}\"]}}", "b".repeat(pad));
    assert_eq!(exact.len(), escouade_plugin::MAX_LINE_BYTES);
    let out = turn(&mut s, &[&exact]);
    assert_eq!(out.len(), 1);
    assert!(out[0].starts_with(r#"{"jsonrpc":"2.0","id":5,"result":["bbb"#), "{}", &out[0][..80]);
}

#[test]
fn a_batch_of_garbage_is_answered_member_by_member() {
    let mut s = started();
    let out = turn(
        &mut s,
        &[
            r#"[1,"x",null,{"jsonrpc":"2.0","id":6,"method":"t/echo","params":{"n":6}},{"jsonrpc":"1.0","id":7,"method":"t/echo"}]"#,
            r#"[1,2"#, // not JSON
        ],
    );
    let invalid = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#;
    // The answers of two lines may come in either order: the batch is
    // written once its handlers ran, the parse error at once.
    let mut out = out;
    out.sort();
    assert_eq!(
        out,
        vec![
            format!(
                "[{},{},{},{},{}]",
                invalid,
                invalid,
                invalid,
                r#"{"jsonrpc":"2.0","id":6,"result":{"n":6}}"#,
                r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request"}}"#
            ),
            PARSE_ERROR.to_string(),
        ]
    );
}
