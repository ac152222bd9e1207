//! The plugin's methods, events and attach handler, and the session that
//! routes the host's messages to them.

use crate::error::Error;
use crate::exec::{Exec, LocalFuture};
use crate::host::{Host, Shared};
use crate::proto;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::rc::Rc;

type Handler = Rc<dyn Fn(Host, Value) -> LocalFuture<Result<Box<RawValue>, Error>>>;
type EventHandler = Rc<dyn Fn(Host, Value) -> LocalFuture<()>>;

/// The protocol version the kit speaks.
pub const PROTOCOL_VERSION: i64 = 1;

/// The longest line the kit reads from the host, the host's own limit
/// (docs/protocol.md#3-messages).
pub const MAX_LINE_BYTES: usize = proto::LIMIT_MAX_LINE_BYTES as usize;

/// A plugin: the methods and events it serves. Register them in the setup
/// function given to [`crate::module!`]; the host may call any of them once
/// the handshake is answered.
#[derive(Default)]
pub struct Plugin {
    methods: HashMap<String, Handler>,
    events: HashMap<String, EventHandler>,
    attach: Option<Handler>,
}

impl Plugin {
    /// A plugin with no method.
    pub fn new() -> Plugin {
        Plugin::default()
    }

    /// Registers `f` for `method`. `f` gets the host and the params (JSON
    /// `null` when the host sent none) and returns a future of the result
    /// (anything serde serializes) or an [`Error`], whose code goes to the
    /// host. Like the Go kit it panics on a programming error: an empty
    /// method, a method registered twice, or one the kit serves itself
    /// (initialize, shutdown, agent/attach — use on_attach —, event/… —
    /// use on_event —, timer/fired and the notifications of net/stream and
    /// ws/*).
    pub fn handle<F, Fut, R>(&mut self, method: &str, f: F)
    where
        F: Fn(Host, Value) -> Fut + 'static,
        Fut: Future<Output = Result<R, Error>> + 'static,
        R: Serialize,
    {
        match method {
            "" => panic!("kit: handle needs a method name"),
            proto::METHOD_INITIALIZE | proto::METHOD_SHUTDOWN => {
                panic!("kit: handle({}): the kit answers {} itself", method, method)
            }
            proto::METHOD_AGENT_ATTACH => panic!("kit: handle({}): use on_attach", method),
            proto::METHOD_TIMER_FIRED | proto::METHOD_NET_CHUNK | proto::METHOD_NET_END | proto::METHOD_WS_MESSAGE | proto::METHOD_WS_CLOSED => {
                panic!("kit: handle({}): the kit serves it for its timers, streams and sockets", method)
            }
            _ => {}
        }
        if let Some(name) = method.strip_prefix(proto::METHOD_PREFIX_EVENT) {
            panic!("kit: handle({}): use on_event({:?})", method, name);
        }
        if self.methods.insert(method.to_string(), wrap(f)).is_some() {
            panic!("kit: handle({}) called twice", method);
        }
    }

    /// Registers `f` for the notification `event/<name>`, which the host
    /// sends for the fact `event:<name>` of the manifest's activation list.
    /// It panics on an empty name, a name with its `event/` prefix, or a
    /// name registered twice.
    pub fn on_event<F, Fut>(&mut self, name: &str, f: F)
    where
        F: Fn(Host, Value) -> Fut + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        if name.is_empty() || name.starts_with(proto::METHOD_PREFIX_EVENT) {
            panic!("kit: on_event({:?}) needs a name without \"event/\"", name);
        }
        let f = Rc::new(f);
        let h: EventHandler = Rc::new(move |host, params| Box::pin(f(host, params)));
        if self.events.insert(name.to_string(), h).is_some() {
            panic!("kit: on_event({}) called twice", name);
        }
    }

    /// Registers `f` for agent/attach: an agent attached to the plugin,
    /// with the params the app gave. Without it the kit answers -32601 and
    /// says `"attach": false` in its capabilities. It panics on a second
    /// call.
    pub fn on_attach<F, Fut, R>(&mut self, f: F)
    where
        F: Fn(Host, Value) -> Fut + 'static,
        Fut: Future<Output = Result<R, Error>> + 'static,
        R: Serialize,
    {
        if self.attach.is_some() {
            panic!("kit: on_attach takes one function");
        }
        self.attach = Some(wrap(f));
    }
}

/// wrap makes a handler of any result type one that answers raw JSON.
fn wrap<F, Fut, R>(f: F) -> Handler
where
    F: Fn(Host, Value) -> Fut + 'static,
    Fut: Future<Output = Result<R, Error>> + 'static,
    R: Serialize,
{
    let f = Rc::new(f);
    Rc::new(move |host, params| {
        let fut = f(host, params);
        Box::pin(async move {
            let result = fut.await?;
            let text = serde_json::to_string(&result).map_err(|e| Error::internal(format!("kit: the result does not serialize: {}", e)))?;
            Ok(RawValue::from_string(text)?)
        })
    })
}

/// Where the answer of a request goes: alone on its line, or into its
/// batch, which is written as one array once every request of it is
/// answered.
enum Reply {
    Line,
    Batch(Rc<RefCell<Batch>>, usize),
}

struct Batch {
    answers: Vec<Option<String>>,
    left: usize,
}

/// A session serves one host: it takes the lines the host wrote, runs the
/// handlers, and hands back the lines the plugin writes. The module's
/// turns drive one; a test drives one with [`Session::turn`].
pub struct Session {
    plugin: Rc<Plugin>,
    shared: Rc<Shared>,
    exec: Exec,
    partial: Vec<u8>,
    /// Set while the rest of a line over the limit is skipped.
    skipping: bool,
}

impl Session {
    /// A session of the plugin that `setup` registers.
    pub fn new(setup: impl FnOnce(&mut Plugin)) -> Session {
        let mut plugin = Plugin::new();
        setup(&mut plugin);
        let exec = Exec::default();
        Session { plugin: Rc::new(plugin), shared: Rc::new(Shared::new(exec.clone())), exec, partial: Vec::new(), skipping: false }
    }

    /// Sets the folder where [`Host::root_file`] finds the root JSON files
    /// (`/plugin` in a module; a test points it at a folder of its own).
    pub fn with_root(self, dir: impl Into<std::path::PathBuf>) -> Session {
        *self.shared.root.borrow_mut() = dir.into();
        self
    }

    /// One turn: takes `input` (whole lines, each ended by `\n`; a piece of
    /// a line waits for its end), runs every task until none can, and
    /// returns what the plugin wrote.
    pub fn turn(&mut self, input: &[u8]) -> Vec<u8> {
        self.feed(input);
        self.exec.run_ready();
        self.shared.take_output()
    }

    /// Whether the host sent shutdown: a module exits once the turn's
    /// output is written.
    pub fn ended(&self) -> bool {
        self.shared.shutdown.get()
    }

    /// How many handlers have not finished (each waits for the host).
    pub fn pending(&self) -> usize {
        self.exec.pending()
    }

    /// Cuts the input into lines. A line longer than [`MAX_LINE_BYTES`]
    /// is answered -32700 as soon as it passes the limit and skipped to
    /// its end, so that the kit never holds more than the limit of one
    /// line (docs/protocol.md#3-messages: the host does the same).
    fn feed(&mut self, mut input: &[u8]) {
        while !input.is_empty() {
            let (piece, ended) = match input.iter().position(|&b| b == b'\n') {
                Some(end) => (&input[..end], true),
                None => (input, false),
            };
            input = if ended { &input[piece.len() + 1..] } else { &[] };
            if self.skipping {
                self.skipping = !ended;
                continue;
            }
            if self.partial.len() + piece.len() > MAX_LINE_BYTES {
                self.partial = Vec::new();
                self.skipping = !ended;
                eprintln!("kit: a line from the host is longer than {} bytes: skipped to its end", MAX_LINE_BYTES);
                self.shared.write_error_line("null", &Error::new(proto::CODE_PARSE_ERROR, "Parse error"));
                continue;
            }
            if !ended {
                self.partial.extend_from_slice(piece);
            } else if self.partial.is_empty() {
                self.line(piece);
            } else {
                self.partial.extend_from_slice(piece);
                let line = std::mem::take(&mut self.partial);
                self.line(&line);
            }
        }
    }

    /// Routes one line: a message or a batch.
    fn line(&self, line: &[u8]) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let text = match std::str::from_utf8(line) {
            Ok(t) => t.trim(),
            Err(_) => return self.refuse_line("a line that is not UTF-8"),
        };
        if text.is_empty() || self.shared.shutdown.get() {
            return;
        }
        if text.starts_with('[') {
            return self.batch(text);
        }
        match serde_json::from_str::<&RawValue>(text) {
            Ok(raw) => self.message(raw, Reply::Line),
            Err(e) => self.refuse_line(&e.to_string()),
        }
    }

    fn refuse_line(&self, why: &str) {
        eprintln!("kit: a line from the host is not JSON: {}", why);
        self.shared.write_error_line("null", &Error::new(proto::CODE_PARSE_ERROR, "Parse error"));
    }

    fn batch(&self, text: &str) {
        let items: Vec<&RawValue> = match serde_json::from_str(text) {
            Ok(items) => items,
            Err(e) => return self.refuse_line(&e.to_string()),
        };
        if items.is_empty() {
            return self.shared.write_error_line("null", &Error::new(proto::CODE_INVALID_REQUEST, "Invalid Request"));
        }
        let requests = items.iter().filter(|raw| is_request(raw)).count();
        let batch = Rc::new(RefCell::new(Batch { answers: vec![None; requests], left: requests }));
        let mut index = 0;
        for raw in items {
            if is_request(raw) {
                self.message(raw, Reply::Batch(batch.clone(), index));
                index += 1;
            } else {
                self.message(raw, Reply::Line);
            }
        }
    }

    /// Routes one message: an answer to a call of the plugin, a request, or
    /// a notification.
    fn message(&self, raw: &RawValue, reply: Reply) {
        let m: Incoming = match serde_json::from_str(raw.get()) {
            Ok(m) => m,
            Err(e) => return self.invalid(&reply, "null", &format!("not a JSON-RPC message: {}", e)),
        };
        let id = m.id.map(|i| i.get().to_string());
        if m.jsonrpc.as_deref() != Some("2.0") {
            return self.invalid(&reply, id.as_deref().unwrap_or("null"), "jsonrpc is not \"2.0\"");
        }
        let method = match m.method {
            Some(method) => method,
            None => {
                return match id {
                    Some(id) => self.shared.answered(&id, m.result, m.error),
                    None => eprintln!("kit: the host sent a message with neither method nor id"),
                }
            }
        };
        let params = m.params.unwrap_or(Value::Null);
        match id {
            Some(id) if id == "null" => self.invalid(&reply, "null", "a request with id null"),
            Some(id) => self.request(id, method, params, reply),
            None => self.notification(&method, params),
        }
    }

    fn invalid(&self, reply: &Reply, id: &str, why: &str) {
        eprintln!("kit: from the host: {}", why);
        let answer = answer_line(id, Err(Error::new(proto::CODE_INVALID_REQUEST, "Invalid Request")));
        self.shared.reply(reply, answer);
    }

    fn request(&self, id: String, method: String, params: Value, reply: Reply) {
        let host = Host::from_shared(self.shared.clone());
        let shared = self.shared.clone();
        let handler = match method.as_str() {
            proto::METHOD_INITIALIZE => return shared.reply(&reply, answer_line(&id, self.initialize(params))),
            proto::METHOD_SHUTDOWN => {
                // The answer, null, goes out with this turn's output; the
                // module then exits, as a process does after shutdown.
                shared.shutdown.set(true);
                return shared.reply(&reply, answer_line(&id, Ok(raw_null())));
            }
            proto::METHOD_AGENT_ATTACH => self.plugin.attach.clone(),
            _ => self.plugin.methods.get(&method).cloned(),
        };
        let handler = match handler {
            Some(h) => h,
            None => return shared.reply(&reply, answer_line(&id, Err(Error::method_not_found(&method)))),
        };
        let fut = handler(host, params);
        self.exec.spawn(async move {
            let result = fut.await;
            shared.reply(&reply, answer_line(&id, result));
        });
    }

    fn initialize(&self, params: Value) -> Result<Box<RawValue>, Error> {
        let params = if params.is_null() { Value::Object(Default::default()) } else { params };
        let init: proto::InitializeParams =
            serde_json::from_value(lenient_init(params)).map_err(|e| Error::invalid_params(format!("{}: {}", proto::METHOD_INITIALIZE, e)))?;
        *self.shared.init.borrow_mut() = init;
        let answer = serde_json::json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": { "attach": self.plugin.attach.is_some(), "batch": true },
        });
        Ok(RawValue::from_string(answer.to_string())?)
    }

    fn notification(&self, method: &str, params: Value) {
        if let Some(name) = method.strip_prefix(proto::METHOD_PREFIX_EVENT) {
            if let Some(h) = self.plugin.events.get(name) {
                self.exec.spawn(h(Host::from_shared(self.shared.clone()), params));
            }
            return;
        }
        self.shared.notified(method, params);
    }
}

impl Shared {
    /// Writes an answer where its request's reply goes.
    fn reply(&self, reply: &Reply, answer: String) {
        match reply {
            Reply::Line => self.write_line(&answer),
            Reply::Batch(batch, i) => {
                let mut b = batch.borrow_mut();
                b.answers[*i] = Some(answer);
                b.left -= 1;
                if b.left == 0 {
                    let all: Vec<String> = b.answers.iter_mut().map(|a| a.take().unwrap_or_default()).collect();
                    self.write_line(&format!("[{}]", all.join(",")));
                }
            }
        }
    }
}

/// The members of a message the kit reads; others are ignored. The id is
/// kept as written, so that it goes back byte for byte.
#[derive(serde::Deserialize)]
struct Incoming<'a> {
    jsonrpc: Option<String>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    method: Option<String>,
    params: Option<Value>,
    result: Option<&'a RawValue>,
    error: Option<Value>,
}

/// Whether a batch member is a request, which its batch answers.
fn is_request(raw: &RawValue) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
        method: Option<Value>,
    }
    match serde_json::from_str::<Probe>(raw.get()) {
        Ok(p) => p.method.is_some() && p.id.is_some(),
        Err(_) => true, // a member that is not a message is answered -32600
    }
}

/// An answer line: the id as the request wrote it.
fn answer_line(id: &str, result: Result<Box<RawValue>, Error>) -> String {
    match result {
        Ok(r) => format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{}}}", id, r.get()),
        Err(e) => format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{}}}", id, e.to_json()),
    }
}

pub(crate) fn raw_null() -> Box<RawValue> {
    RawValue::from_string("null".to_string()).expect("null is JSON")
}

/// The params of initialize with missing members filled, so that an
/// older or newer host's params still read: the host decides whether the
/// two sides agree, from the kit's answer.
fn lenient_init(mut params: Value) -> Value {
    if let Some(obj) = params.as_object_mut() {
        obj.entry("protocolVersion").or_insert(Value::from(0));
        obj.entry("escouade").or_insert(serde_json::json!({ "version": "" }));
        obj.entry("plugin").or_insert(serde_json::json!({ "id": "", "version": "" }));
        obj.entry("lang").or_insert(Value::from(""));
        obj.entry("capabilities").or_insert(serde_json::json!({}));
    }
    params
}
