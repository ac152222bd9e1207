//! hello-rust is the "hello" example plugin written in Rust with the kit
//! and built as a WebAssembly module: `escouade-plugin build .` makes
//! plugin.wasm, which the host loads for the manifest's run.wasm. It
//! answers as hello-wasm (the Go kit) does, and counts the words of
//! data/words.txt, a file of its folder.

use escouade_plugin::{decode, Error, Host, Level, Plugin, Request, Value};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

// The facts the manifest declares, which the code must agree with.
const GREETINGS_FILE: &str = "greetings.json"; // a JSON file at the plugin's root
const WORDS_FILE: &str = "data/words.txt"; // read with files/read
const TOKEN_KEY: &str = "token"; // permissions.secrets
const DEFAULT_GREETING: &str = "Hello"; // contributes.settings.greeting.default
const MAX_DELAY_MS: i64 = 60_000;

/// greetings.json.
#[derive(Deserialize)]
struct Greetings {
    punctuation: String,
    emoji: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GreetParams {
    #[serde(default)]
    name: String,
    project: Option<String>,
    /// Waits this long first, on a host timer.
    #[serde(default)]
    delay_ms: i64,
}

#[derive(Serialize)]
struct GreetResult {
    text: String,
    emoji: String,
    token: bool,
    waited: i64,
    words: usize,
}

#[derive(Deserialize)]
struct FetchParams {
    url: String,
}

fn setup(p: &mut Plugin) {
    p.handle("hello/greet", greet);
    p.handle("hello/echo", |_host: Host, params: Value| async move { Ok(params) });
    p.handle("hello/fetch", fetch);
    p.on_event("ticket.column", |host: Host, params: Value| async move {
        host.log(Level::Info, &format!("ticket.column: {}", params));
    });
}

escouade_plugin::module!(setup);

/// greet answers "<greeting>, <name><punctuation>" with the user's settings
/// and greetings.json, the emoji of the host's language, whether a token is
/// kept (never the token), and how many words data/words.txt holds.
async fn greet(host: Host, params: Value) -> Result<GreetResult, Error> {
    let input: GreetParams = decode(params)?;
    if input.name.is_empty() {
        return Err(Error::invalid_params("name is required"));
    }
    if input.delay_ms < 0 || input.delay_ms > MAX_DELAY_MS {
        return Err(Error::invalid_params(format!("delayMs must be between 0 and {}", MAX_DELAY_MS)));
    }
    if input.delay_ms > 0 {
        host.sleep(input.delay_ms as u64).await?;
    }
    let greetings: Greetings = serde_json::from_slice(&host.root_file(GREETINGS_FILE)?).map_err(|e| Error::internal(format!("{}: {}", GREETINGS_FILE, e)))?;
    let settings = host.settings(input.project.as_deref()).await?;
    let greeting = settings.get("greeting").and_then(|g| g.as_str()).unwrap_or(DEFAULT_GREETING);
    let mut text = format!("{}, {}{}", greeting, input.name, greetings.punctuation);
    if settings.get("shout").and_then(|s| s.as_bool()).unwrap_or(false) {
        text = text.to_uppercase();
    }
    let words = host.read_file(WORDS_FILE).await?.split_whitespace().count();
    host.log(Level::Info, &format!("greeted {}", input.name));
    eprintln!("hello-rust: greeting {}", input.name);
    let lang = host.lang();
    let emoji = greetings.emoji.get(&lang).or_else(|| greetings.emoji.get("en")).cloned().unwrap_or_default();
    Ok(GreetResult { text, emoji, token: has_token(&host).await, waited: input.delay_ms, words })
}

/// has_token reports whether the user keeps a token. A keychain out of
/// reach reads as no token, with a warning.
async fn has_token(host: &Host) -> bool {
    match host.secret(TOKEN_KEY).await {
        Ok(token) => token.is_some(),
        Err(e) => {
            host.log(Level::Warn, &format!("no token: {}", e));
            false
        }
    }
}

/// fetch answers {status, length} of a GET through the host's net/fetch.
async fn fetch(host: Host, params: Value) -> Result<Value, Error> {
    let input: FetchParams = decode(params)?;
    let res = host.fetch(Request::get(&input.url)).await?;
    Ok(serde_json::json!({ "status": res.status, "length": res.body.len() }))
}
