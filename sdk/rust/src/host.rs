//! The host as a plugin calls it: its services, each an async method whose
//! answer comes in a later turn.

use crate::base64;
use crate::error::Error;
use crate::exec::{Exec, Slot};
use crate::proto::{self, BodyEncoding, FsPathParams, FsWriteParams, Headers, ProcRunParams, ProcRunResult};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

/// How much of an unexpected answer an error quotes.
const ANSWER_EXCERPT_LEN: usize = 80;

/// How many timer/fired, net/* or ws/* notifications the kit keeps for ids
/// it does not know yet (their call's answer is still on its way): the
/// host holds 64 timers and 16 sockets at most.
const MAX_EARLY: usize = 64;

/// What a session and its host handles share.
pub(crate) struct Shared {
    pub(crate) exec: Exec,
    pub(crate) out: RefCell<Vec<u8>>,
    pub(crate) shutdown: Cell<bool>,
    pub(crate) init: RefCell<proto::InitializeParams>,
    pub(crate) root: RefCell<PathBuf>,
    next_id: Cell<u64>,
    calls: RefCell<HashMap<u64, Rc<RefCell<Slot<Result<Value, Error>>>>>>,
    timers: RefCell<Feeds<()>>,
    streams: RefCell<Feeds<StreamEvent>>,
    sockets: RefCell<Feeds<WsEvent>>,
}

impl Shared {
    pub(crate) fn new(exec: Exec) -> Shared {
        Shared {
            exec,
            out: RefCell::new(Vec::new()),
            shutdown: Cell::new(false),
            init: RefCell::new(Default::default()),
            root: RefCell::new(PathBuf::from("/plugin")),
            next_id: Cell::new(1),
            calls: RefCell::new(HashMap::new()),
            timers: RefCell::new(Feeds::default()),
            streams: RefCell::new(Feeds::default()),
            sockets: RefCell::new(Feeds::default()),
        }
    }

    pub(crate) fn write_line(&self, line: &str) {
        let mut out = self.out.borrow_mut();
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }

    pub(crate) fn write_error_line(&self, id: &str, e: &Error) {
        self.write_line(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{}}}", id, e.to_json()));
    }

    pub(crate) fn take_output(&self) -> Vec<u8> {
        std::mem::take(&mut *self.out.borrow_mut())
    }

    /// Delivers the host's answer to a call of the plugin.
    pub(crate) fn answered(&self, id: &str, result: Option<&RawValue>, error: Option<Value>) {
        let slot = id.parse::<u64>().ok().and_then(|n| self.calls.borrow_mut().remove(&n));
        let slot = match slot {
            Some(s) => s,
            None => return eprintln!("kit: an answer to no call ignored (id {})", id),
        };
        let value = match (error, result) {
            (Some(e), _) => Err(Error::from_json(&e)),
            (None, Some(r)) => serde_json::from_str(r.get()).map_err(Error::from),
            (None, None) => Ok(Value::Null),
        };
        slot.borrow_mut().fill(value);
    }

    /// Serves the kit's own notifications: timers, streams, sockets.
    pub(crate) fn notified(&self, method: &str, params: Value) {
        let id = |member: &str| params.get(member).and_then(|v| v.as_i64());
        match method {
            proto::METHOD_TIMER_FIRED => match id("timer") {
                Some(t) => self.timers.borrow_mut().push(t, ()),
                None => eprintln!("kit: {} from the host: {} is not {{\"timer\": <id>}}", method, params),
            },
            proto::METHOD_NET_CHUNK | proto::METHOD_NET_END => {
                let event = if method == proto::METHOD_NET_CHUNK { chunk_event(&params) } else { end_event(&params) };
                match id("stream") {
                    Some(s) => self.streams.borrow_mut().push(s, event),
                    None => eprintln!("kit: {} from the host without a stream: {}", method, params),
                }
            }
            proto::METHOD_WS_MESSAGE | proto::METHOD_WS_CLOSED => {
                let event = ws_event(method, &params);
                match id("socket") {
                    Some(s) => self.sockets.borrow_mut().push(s, event),
                    None => eprintln!("kit: {} from the host without a socket: {}", method, params),
                }
            }
            _ => {} // a notification the plugin does not serve
        }
    }
}

/// Events by id (a timer, a stream, a socket), kept until their reader
/// takes them; the events of an id nobody reads yet wait for it, the
/// oldest ids dropped past MAX_EARLY.
struct Feeds<T> {
    queues: HashMap<i64, (VecDeque<T>, Option<std::task::Waker>)>,
    early: VecDeque<i64>,
}

impl<T> Default for Feeds<T> {
    fn default() -> Self {
        Feeds { queues: HashMap::new(), early: VecDeque::new() }
    }
}

impl<T> Feeds<T> {
    fn open(&mut self, id: i64) {
        self.queues.entry(id).or_insert_with(|| (VecDeque::new(), None));
        self.early.retain(|&e| e != id);
    }

    fn push(&mut self, id: i64, event: T) {
        if !self.queues.contains_key(&id) {
            if self.early.len() == MAX_EARLY {
                if let Some(old) = self.early.pop_front() {
                    self.queues.remove(&old);
                }
            }
            self.early.push_back(id);
        }
        let (queue, waker) = self.queues.entry(id).or_insert_with(|| (VecDeque::new(), None));
        queue.push_back(event);
        if let Some(w) = waker.take() {
            w.wake();
        }
    }

    fn poll_next(&mut self, id: i64, cx: &mut Context<'_>) -> Poll<T> {
        let (queue, waker) = self.queues.entry(id).or_insert_with(|| (VecDeque::new(), None));
        match queue.pop_front() {
            Some(e) => Poll::Ready(e),
            None => {
                *waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    fn close(&mut self, id: i64) {
        self.queues.remove(&id);
    }
}

/// The levels of [`Host::log`].
pub use proto::LogParamsLevel as Level;

/// The host, as a handler calls it. It is cheap to clone; every call goes
/// out at once and its answer comes in a later turn, which the returned
/// future waits for. Nothing blocks: while a handler waits, others run.
#[derive(Clone)]
pub struct Host {
    shared: Rc<Shared>,
}

/// The future of a call to the host: the answer's result, or its error.
pub struct Call {
    slot: Rc<RefCell<Slot<Result<Value, Error>>>>,
}

impl Future for Call {
    type Output = Result<Value, Error>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.slot.borrow_mut().poll_take(cx)
    }
}

impl Host {
    pub(crate) fn from_shared(shared: Rc<Shared>) -> Host {
        Host { shared }
    }

    /// What initialize said: protocol version, app version, plugin id and
    /// version, language, the host's capabilities.
    pub fn init(&self) -> proto::InitializeParams {
        self.shared.init.borrow().clone()
    }

    /// The language of the interface (en, fr), from initialize.
    pub fn lang(&self) -> String {
        self.shared.init.borrow().lang.clone()
    }

    /// Runs `fut` as a task of its own, beside the handlers: a background
    /// job that outlives the call that started it.
    pub fn spawn(&self, fut: impl Future<Output = ()> + 'static) {
        self.shared.exec.spawn(fut)
    }

    /// Calls any method of the host with any params; the request is
    /// written at once. The typed methods below are built on it.
    pub fn call(&self, method: &str, params: impl Serialize) -> Call {
        let slot = Rc::new(RefCell::new(Slot::default()));
        let id = self.shared.next_id.get();
        self.shared.next_id.set(id + 1);
        match serde_json::to_string(&params) {
            Ok(p) => {
                self.shared.calls.borrow_mut().insert(id, slot.clone());
                let params = if p == "null" { String::new() } else { format!(",\"params\":{}", p) };
                self.shared.write_line(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":{}{}}}", id, Value::from(method), params));
            }
            Err(e) => slot.borrow_mut().fill(Err(Error::internal(format!("kit: the params of {} do not serialize: {}", method, e)))),
        }
        Call { slot }
    }

    /// Sends a notification to the host.
    pub fn notify(&self, method: &str, params: impl Serialize) {
        match serde_json::to_string(&params) {
            Ok(p) => self.shared.write_line(&format!("{{\"jsonrpc\":\"2.0\",\"method\":{},\"params\":{}}}", Value::from(method), p)),
            Err(e) => eprintln!("kit: the params of {} do not serialize: {}", method, e),
        }
    }

    /// A call whose answer is read as a T.
    async fn call_as<T: serde::de::DeserializeOwned>(&self, method: &str, params: impl Serialize, want: &str) -> Result<T, Error> {
        let v = self.call(method, params).await?;
        serde_json::from_value(v.clone()).map_err(|_| bad_answer(method, want, &v))
    }

    /// secrets/get: the secret the user keeps under `key`, `None` when none
    /// is kept. The key must match a permissions.secrets entry of the
    /// manifest: any other key fails with -32001; an unreachable keychain
    /// with -32002. Never print the value.
    pub async fn secret(&self, key: &str) -> Result<Option<String>, Error> {
        self.call_as(proto::METHOD_SECRETS_GET, proto::SecretsGetParams { key: key.to_string() }, "a string or null").await
    }

    /// settings/get: the values the user chose, by key; values left at
    /// their default are absent (apply the manifest's defaults). With a
    /// project id, that project's `.escouade.yml` values come first; an
    /// unknown project is -32602, a `.escouade.yml` that cannot be read
    /// -32004.
    pub async fn settings(&self, project: Option<&str>) -> Result<serde_json::Map<String, Value>, Error> {
        let params = proto::SettingsGetParams { project: project.map(|p| p.to_string()) };
        self.call_as(proto::METHOD_SETTINGS_GET, params, "an object").await
    }

    /// files/read: a UTF-8 text file of the plugin's folder, path relative
    /// with `/` (`data/words.txt`), at most 256 KB. Refused: outside the
    /// folder, hidden or the manifest (-32003), missing (-32005), too
    /// large or not text (-32004).
    pub async fn read_file(&self, path: &str) -> Result<String, Error> {
        self.call_as(proto::METHOD_FILES_READ, proto::FilesReadParams { path: path.to_string() }, "a string").await
    }

    /// A JSON file at the root of the plugin's folder (`greetings.json`),
    /// which a module finds in its read-only `/plugin` directory: read
    /// there, without a call to the host. A missing file is -32005, another
    /// failure -32004, a name with a `/` -32003.
    pub fn root_file(&self, name: &str) -> Result<Vec<u8>, Error> {
        if name.is_empty() || name.contains('/') || name.starts_with('.') {
            return Err(Error::new(proto::CODE_FORBIDDEN, "The plugin may not read this file.").with_reason(format!("{:?}: a root JSON file is named without a folder", name)));
        }
        let path = self.shared.root.borrow().join(name);
        std::fs::read(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::new(proto::CODE_MISSING, "No such file.").with_reason(format!("{}: not among the root JSON files of /plugin", name))
            } else {
                Error::new(proto::CODE_FAILED, "The file cannot be read.").with_reason(format!("{}: {}", name, e))
            }
        })
    }

    /// log: one journal line per line of `message`, tagged `log.<level>`.
    pub fn log(&self, level: Level, message: &str) {
        self.notify(proto::METHOD_LOG, proto::LogParams { level, message: message.to_string() })
    }

    /// net/fetch, the kit's HTTP client: an https request to a host of
    /// permissions.network, through the host. A redirect is not followed.
    /// Refused with -32003 (another host, plain http, a local address) or
    /// -32004 (timed out, too large, unreachable, TLS). A body past the
    /// 4 MiB a net/fetch answer carries is read through net/stream, up to
    /// the manifest's `limits.netMaxBytes`: the request is then made twice.
    pub async fn fetch(&self, req: Request) -> Result<Response, Error> {
        let r: proto::FetchResult = match self.call_as(proto::METHOD_NET_FETCH, req.params(), "a fetch result").await {
            Err(e) if over_fetch_bound(&e) => return self.fetch_streamed(req).await,
            other => other?,
        };
        let body = decode_body(proto::METHOD_NET_FETCH, &r.body, &r.body_encoding)?;
        Ok(Response { status: r.status as u16, headers: r.headers, body })
    }

    /// The request of [`Host::fetch`] through net/stream, its chunks
    /// gathered; the host bounds their sum by `limits.netMaxBytes`.
    async fn fetch_streamed(&self, req: Request) -> Result<Response, Error> {
        let mut s = self.stream(req).await?;
        let mut body = Vec::new();
        while let Some(chunk) = s.next().await? {
            body.extend_from_slice(&chunk);
        }
        Ok(Response { status: s.status, headers: std::mem::take(&mut s.headers), body })
    }

    /// net/stream: the request of [`Host::fetch`], answered as soon as the
    /// headers come; read the body chunk by chunk with [`Stream::next`].
    pub async fn stream(&self, req: Request) -> Result<Stream, Error> {
        let r: proto::StreamResult = self.call_as(proto::METHOD_NET_STREAM, req.params(), "a stream result").await?;
        self.shared.streams.borrow_mut().open(r.stream);
        Ok(Stream { host: self.clone(), id: r.stream, status: r.status as u16, headers: r.headers, ended: false })
    }

    /// ws/open: a websocket (`wss://` only, the host rules of net/fetch),
    /// 16 at most per instance. Read what comes with [`Socket::next`].
    pub async fn ws_open(&self, params: proto::WsOpenParams) -> Result<Socket, Error> {
        let r: proto::SocketRef = self.call_as(proto::METHOD_WS_OPEN, params, "{\"socket\": <id>}").await?;
        self.shared.sockets.borrow_mut().open(r.socket);
        Ok(Socket { host: self.clone(), id: r.socket })
    }

    /// timer/set: a timer of `ms` milliseconds (10 at least) kept by the
    /// host, which wakes the module when it is due: a module's own clock
    /// runs only during its turns. At most 64 are pending (-32003).
    pub async fn timer(&self, ms: u64) -> Result<Timer, Error> {
        let ms = ms.min(i32::MAX as u64) as i64;
        let r: proto::TimerRef = self.call_as(proto::METHOD_TIMER_SET, proto::TimerSetParams { ms }, "{\"timer\": <id>}").await?;
        if r.timer < 1 {
            return Err(bad_answer(proto::METHOD_TIMER_SET, "{\"timer\": <id>}", &Value::from(r.timer)));
        }
        self.shared.timers.borrow_mut().open(r.timer);
        Ok(Timer { host: self.clone(), id: r.timer, done: false })
    }

    /// Waits `ms` milliseconds on a host timer.
    pub async fn sleep(&self, ms: u64) -> Result<(), Error> {
        self.timer(ms).await?.await;
        Ok(())
    }

    /// Runs `fut` for at most `ms` milliseconds: its own result, or, when
    /// the host timer fires first, an error for which
    /// [`Error::is_timeout`] holds (-32603, `no answer within <ms> ms`);
    /// `fut` is then dropped. The timer is cleared when `fut` ends first.
    pub async fn timeout<T>(&self, ms: u64, fut: impl Future<Output = Result<T, Error>>) -> Result<T, Error> {
        let timer = self.timer(ms).await?;
        Race { fut: Box::pin(fut), timer: Box::pin(timer), ms }.await
    }

    /// fs/read: the text of a file under a granted permissions.files root.
    pub async fn fs_read(&self, at: FsPathParams) -> Result<String, Error> {
        self.call_as(proto::METHOD_FS_READ, at, "a string").await
    }

    /// fs/write: creates or replaces a file, never its folder.
    pub async fn fs_write(&self, at: FsWriteParams) -> Result<(), Error> {
        self.call(proto::METHOD_FS_WRITE, at).await.map(|_| ())
    }

    /// fs/list: the entries of a folder.
    pub async fn fs_list(&self, at: FsPathParams) -> Result<proto::FsListResult, Error> {
        self.call_as(proto::METHOD_FS_LIST, at, "a list of entries").await
    }

    /// fs/stat: the size, kind and modification time of a file or folder.
    pub async fn fs_stat(&self, at: FsPathParams) -> Result<proto::FsStatResult, Error> {
        self.call_as(proto::METHOD_FS_STAT, at, "{\"size\", \"dir\", \"modified\"}").await
    }

    /// fs/remove: a file, a link itself, or an empty folder.
    pub async fn fs_remove(&self, at: FsPathParams) -> Result<(), Error> {
        self.call(proto::METHOD_FS_REMOVE, at).await.map(|_| ())
    }

    /// fs/mkdir: a folder.
    pub async fn fs_mkdir(&self, at: FsPathParams) -> Result<(), Error> {
        self.call(proto::METHOD_FS_MKDIR, at).await.map(|_| ())
    }

    /// proc/run: a program of permissions.programs, run without a shell in
    /// a granted folder; its exit code and outputs.
    pub async fn proc_run(&self, params: ProcRunParams) -> Result<ProcRunResult, Error> {
        self.call_as(proto::METHOD_PROC_RUN, params, "{\"code\", \"stdout\", \"stderr\"}").await
    }
}

/// bad_answer reports an answer of the host that does not have the shape
/// protocol 1 gives it, in the Go kit's words.
fn bad_answer(method: &str, want: &str, got: &Value) -> Error {
    let mut text = got.to_string();
    if text.len() > ANSWER_EXCERPT_LEN {
        let mut cut = ANSWER_EXCERPT_LEN;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    Error::internal(format!("kit: {} answered {}, not {}", method, text, want))
}

/// An HTTP request of [`Host::fetch`] and [`Host::stream`]. The method
/// empty is GET; the body goes as text when it is UTF-8, in base64
/// otherwise.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub url: String,
    pub method: String,
    pub headers: Headers,
    pub body: Vec<u8>,
}

impl Request {
    /// A GET of `url`.
    pub fn get(url: &str) -> Request {
        Request { url: url.to_string(), ..Default::default() }
    }

    fn params(&self) -> proto::FetchParams {
        let mut p = proto::FetchParams { url: self.url.clone(), ..Default::default() };
        if !self.method.is_empty() {
            p.method = Some(self.method.clone());
        }
        if !self.headers.is_empty() {
            p.headers = Some(self.headers.clone());
        }
        if !self.body.is_empty() {
            match std::str::from_utf8(&self.body) {
                Ok(text) => {
                    p.body = Some(text.to_string());
                    p.body_encoding = Some(BodyEncoding::UTF8);
                }
                Err(_) => {
                    p.body = Some(base64::encode(&self.body));
                    p.body_encoding = Some(BodyEncoding::Base64);
                }
            }
        }
        p
    }
}

/// The host's answer to [`Host::fetch`]: a 3xx comes back as it is; values
/// of a repeated header are joined with ", "; the body is decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub status: u16,
    pub headers: Headers,
    pub body: Vec<u8>,
}

impl Response {
    /// The body as text (lossy where it is not UTF-8).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Whether net/fetch refused an answer for its 4 MiB bound, naming
/// net/stream as the way (docs/protocol.md#fetch-bounds).
fn over_fetch_bound(e: &Error) -> bool {
    e.code() == proto::CODE_FAILED && e.reason().contains("read it through net/stream")
}

fn decode_body(method: &str, body: &str, encoding: &BodyEncoding) -> Result<Vec<u8>, Error> {
    match encoding {
        BodyEncoding::UTF8 => Ok(body.as_bytes().to_vec()),
        BodyEncoding::Base64 => base64::decode(body).map_err(|e| Error::internal(format!("kit: {} answered a body that does not decode: {}", method, e))),
    }
}

enum StreamEvent {
    Chunk(Result<Vec<u8>, Error>),
    End(Option<String>),
}

fn chunk_event(params: &Value) -> StreamEvent {
    let chunk: Result<proto::NetChunkParams, _> = serde_json::from_value(params.clone());
    StreamEvent::Chunk(match chunk {
        Ok(c) => decode_body(proto::METHOD_NET_CHUNK, &c.data, &c.body_encoding),
        Err(e) => Err(Error::internal(format!("kit: {} from the host does not read: {}", proto::METHOD_NET_CHUNK, e))),
    })
}

fn end_event(params: &Value) -> StreamEvent {
    StreamEvent::End(params.get("error").and_then(|e| e.as_str()).map(|e| e.to_string()))
}

/// A response of [`Host::stream`]: its status and headers, then its body
/// chunk by chunk.
pub struct Stream {
    host: Host,
    id: i64,
    pub status: u16,
    pub headers: Headers,
    ended: bool,
}

impl Stream {
    /// The next chunk of the body, `Ok(None)` at its end, or the error that
    /// ended it (-32004 with the host's reason: too large, silence,
    /// canceled).
    pub async fn next(&mut self) -> Result<Option<Vec<u8>>, Error> {
        if self.ended {
            return Ok(None);
        }
        let event = Next { host: self.host.clone(), id: self.id, kind: FeedKind::Stream }.await;
        match event {
            Event::Stream(StreamEvent::Chunk(c)) => c.map(Some),
            Event::Stream(StreamEvent::End(error)) => {
                self.ended = true;
                self.host.shared.streams.borrow_mut().close(self.id);
                match error {
                    None => Ok(None),
                    Some(why) => Err(Error::new(proto::CODE_FAILED, "The request failed on the way.").with_reason(why)),
                }
            }
            Event::Socket(_) => Ok(None),
        }
    }

    /// net/cancel: stops the stream; `next` then ends with its error.
    pub async fn cancel(&self) -> Result<(), Error> {
        self.host.call(proto::METHOD_NET_CANCEL, proto::StreamRef { stream: self.id }).await.map(|_| ())
    }
}

/// What comes on a [`Socket`].
#[derive(Debug, Clone, PartialEq)]
pub enum WsEvent {
    /// ws/message: a text message, or binary data.
    Message { data: Vec<u8>, binary: bool },
    /// ws/closed: the socket is closed, with the close code and reason.
    Closed { code: i64, reason: String },
}

fn ws_event(method: &str, params: &Value) -> WsEvent {
    if method == proto::METHOD_WS_CLOSED {
        let c: proto::WsClosedParams = serde_json::from_value(params.clone()).unwrap_or_default();
        return WsEvent::Closed { code: c.code, reason: c.reason };
    }
    let m: proto::WsMessageParams = serde_json::from_value(params.clone()).unwrap_or_default();
    let data = if m.binary { base64::decode(&m.data).unwrap_or_default() } else { m.data.into_bytes() };
    WsEvent::Message { data, binary: m.binary }
}

/// A websocket of [`Host::ws_open`].
pub struct Socket {
    host: Host,
    id: i64,
}

impl Socket {
    /// The socket's id, as the host numbered it.
    pub fn id(&self) -> i64 {
        self.id
    }

    /// ws/send of a text message (1 MiB at most: -32004 past it).
    pub async fn send_text(&self, text: &str) -> Result<(), Error> {
        let p = proto::WsSendParams { socket: self.id, data: text.to_string(), binary: None };
        self.host.call(proto::METHOD_WS_SEND, p).await.map(|_| ())
    }

    /// ws/send of binary data.
    pub async fn send_binary(&self, data: &[u8]) -> Result<(), Error> {
        let p = proto::WsSendParams { socket: self.id, data: base64::encode(data), binary: Some(true) };
        self.host.call(proto::METHOD_WS_SEND, p).await.map(|_| ())
    }

    /// ws/close, with a close code and a reason if given.
    pub async fn close(&self, code: Option<i64>, reason: Option<&str>) -> Result<(), Error> {
        let p = proto::WsCloseParams { socket: self.id, code, reason: reason.map(|r| r.to_string()) };
        self.host.call(proto::METHOD_WS_CLOSE, p).await.map(|_| ())
    }

    /// The next message, or the close; `None` after the close was read.
    pub async fn next(&mut self) -> Option<WsEvent> {
        if !self.host.shared.sockets.borrow().queues.contains_key(&self.id) {
            return None;
        }
        match (Next { host: self.host.clone(), id: self.id, kind: FeedKind::Socket }).await {
            Event::Socket(e) => {
                if let WsEvent::Closed { .. } = e {
                    self.host.shared.sockets.borrow_mut().close(self.id);
                }
                Some(e)
            }
            Event::Stream(_) => None,
        }
    }
}

enum FeedKind {
    Stream,
    Socket,
}

enum Event {
    Stream(StreamEvent),
    Socket(WsEvent),
}

/// Waits for the next event of one id.
struct Next {
    host: Host,
    id: i64,
    kind: FeedKind,
}

impl Future for Next {
    type Output = Event;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Event> {
        let s = &self.host.shared;
        match self.kind {
            FeedKind::Stream => s.streams.borrow_mut().poll_next(self.id, cx).map(Event::Stream),
            FeedKind::Socket => s.sockets.borrow_mut().poll_next(self.id, cx).map(Event::Socket),
        }
    }
}

/// A host timer of [`Host::timer`]: await it for timer/fired. Dropped
/// before it fired, it is cleared on the host (timer/clear).
pub struct Timer {
    host: Host,
    id: i64,
    done: bool,
}

impl Timer {
    /// The timer's id, as the host numbered it.
    pub fn id(&self) -> i64 {
        self.id
    }
}

impl Future for Timer {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.done {
            return Poll::Ready(());
        }
        let fired = self.host.shared.timers.borrow_mut().poll_next(self.id, cx);
        if fired.is_ready() {
            self.done = true;
            self.host.shared.timers.borrow_mut().close(self.id);
        }
        fired
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        if !self.done {
            self.host.shared.timers.borrow_mut().close(self.id);
            drop(self.host.call(proto::METHOD_TIMER_CLEAR, proto::TimerRef { timer: self.id })); // its answer is not awaited
        }
    }
}

/// The race of [`Host::timeout`].
struct Race<F> {
    fut: Pin<Box<F>>,
    timer: Pin<Box<Timer>>,
    ms: u64,
}

impl<T, F: Future<Output = Result<T, Error>>> Future for Race<F> {
    type Output = Result<T, Error>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Poll::Ready(v) = self.fut.as_mut().poll(cx) {
            return Poll::Ready(v);
        }
        if self.timer.as_mut().poll(cx).is_ready() {
            let ms = self.ms;
            let e = Error::internal(format!("no answer within {} ms", ms)).with_data(serde_json::json!({ "reason": format!("timed out after {} ms", ms), "timeoutMs": ms }));
            return Poll::Ready(Err(e));
        }
        Poll::Pending
    }
}
