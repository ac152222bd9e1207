//! The Rust kit of Escouade: it speaks protocol 1 for a plugin built as a
//! WebAssembly module (`"run": {"wasm": "Cargo.toml"}`), so that its author
//! only writes the methods the plugin offers.
//!
//! ```no_run
//! use escouade_plugin::{Error, Host, Level, Plugin};
//! use serde_json::{json, Value};
//!
//! fn setup(p: &mut Plugin) {
//!     p.handle("hello/greet", |host: Host, params: Value| async move {
//!         let name = params["name"].as_str().ok_or_else(|| Error::invalid_params("name is required"))?;
//!         let settings = host.settings(None).await?;
//!         let greeting = settings.get("greeting").and_then(|g| g.as_str()).unwrap_or("Hello");
//!         host.log(Level::Info, &format!("greeted {}", name));
//!         Ok(json!({ "text": format!("{}, {}!", greeting, name) }))
//!     });
//! }
//!
//! escouade_plugin::module!(setup);
//! ```
//!
//! The crate is a `cdylib` built for `wasm32-wasi`; `escouade-plugin build`
//! builds it offline and writes `plugin.wasm` beside the manifest.
//!
//! **The turn model.** [`module!`] exports `escouade-turn`, the reactor
//! shape of the protocol: the host appends whole lines to stdin and calls
//! the export; the kit reads them all, runs every handler until each has
//! returned or waits for an answer of the host, writes what they produced
//! and returns. A handler is an `async` block: a call to the host
//! ([`Host::secret`], [`Host::fetch`], [`Host::sleep`]…) writes its request
//! at once and completes in a later turn, when the answer comes, so no
//! turn ever blocks and the plugin's state lives between calls.
//!
//! **What the kit answers itself**: `initialize`
//! (`{"protocolVersion":1,"capabilities":{"attach":…,"batch":true}}`),
//! `shutdown` (null, then the module exits once the turn's output is
//! written), a method nobody registered (`-32601`, `data.reason`
//! `no such method: <method>`), batches (one array of answers, nothing for
//! notifications only), and ids echoed byte for byte.
//!
//! **Errors**: a handler returns an [`Error`] with a protocol code; the
//! host's refusals arrive as the same type, with the host's code, message
//! and `data.reason`. A panic aborts the module (WebAssembly has no
//! unwinding): the host journals a crash and starts a new instance.

mod base64;
mod error;
mod exec;
mod host;
mod plugin;
pub mod proto;

pub use error::Error;
pub use host::{Call, Host, Level, Request, Response, Socket, Stream, Timer, WsEvent};
pub use plugin::{Plugin, Session, MAX_LINE_BYTES, PROTOCOL_VERSION};
pub use serde_json::{json, Value};

/// Reads params into a T. Params the host omitted read as an empty
/// object; params that do not fit T give -32602 `Invalid params: <why>`,
/// which a handler returns as is:
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Greet { name: String }
/// let p: Greet = escouade_plugin::decode(serde_json::json!({"name": "Ada"})).unwrap();
/// assert_eq!(p.name, "Ada");
/// ```
pub fn decode<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, Error> {
    let params = if params.is_null() { Value::Object(Default::default()) } else { params };
    serde_json::from_value(params).map_err(Error::invalid_params)
}

/// Exports `escouade-turn` for the plugin that `setup` registers: put it
/// once at the root of the crate.
#[macro_export]
macro_rules! module {
    ($setup:path) => {
        #[export_name = "escouade-turn"]
        pub extern "C" fn __escouade_turn() {
            $crate::__turn($setup)
        }
    };
}

/// How much of stdin one read takes.
const INPUT_CHUNK: usize = 64 << 10;

thread_local! {
    static SESSION: std::cell::RefCell<Option<Session>> = std::cell::RefCell::new(None);
    // The buffer of stdin's reads, made once: zeroing 64 KiB in every turn
    // would be a loop of its own under the host's checks.
    static READ_BUF: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0u8; INPUT_CHUNK]);
}

/// One turn of the module: the body of [`module!`]'s export.
#[doc(hidden)]
pub fn __turn(setup: fn(&mut Plugin)) {
    let input = read_stdin();
    let (output, ended) = SESSION.with(|cell| {
        let mut cell = cell.borrow_mut();
        let session = cell.get_or_insert_with(|| Session::new(setup));
        let output = session.turn(&input);
        (output, session.ended())
    });
    write_stdout(&output);
    if ended {
        // shutdown was answered: the module exits once its output is out,
        // as a process does.
        std::process::exit(0);
    }
}

/// Reads every byte the host appended to stdin. Reads never block: an
/// empty stdin reads 0 bytes or EAGAIN.
fn read_stdin() -> Vec<u8> {
    READ_BUF.with(|buf| read_all(&mut buf.borrow_mut()))
}

fn read_all(buf: &mut [u8]) -> Vec<u8> {
    use std::io::Read;
    let mut input = Vec::new();
    let mut stdin = std::io::stdin();
    loop {
        match stdin.read(buf) {
            Ok(0) => return input,
            Ok(n) => input.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return input,
            Err(e) => {
                eprintln!("kit: stdin: {}: reading no more this turn", e);
                return input;
            }
        }
    }
}

fn write_stdout(output: &[u8]) {
    use std::io::Write;
    if output.is_empty() {
        return;
    }
    let mut out = std::io::stdout();
    if let Err(e) = out.write_all(output).and_then(|_| out.flush()) {
        eprintln!("kit: stdout: {} bytes not written: {}", output.len(), e);
    }
}
