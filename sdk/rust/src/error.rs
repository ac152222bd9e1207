//! The one error type of the kit: the error member of a JSON-RPC answer.

use crate::proto;
use std::fmt;

/// An error with a protocol code, as the wire carries it: what a handler
/// returns to refuse a call, and what a call to the host fails with (the
/// host's own code, message and `data.reason`).
///
/// The codes and messages are those of the Go kit: [`Error::invalid_params`]
/// is `-32602` `Invalid params: <reason>`, [`Error::internal`] `-32603` with
/// the text given, a method nobody registered `-32601` `Method not found`
/// with `data.reason` `no such method: <method>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    code: i64,
    message: String,
    data: Option<serde_json::Value>,
}

impl Error {
    /// An error with a code and a message, no data.
    pub fn new(code: i64, message: impl Into<String>) -> Error {
        Error { code, message: message.into(), data: None }
    }

    /// -32602 `Invalid params: <reason>`: the params do not fit the method.
    pub fn invalid_params(reason: impl fmt::Display) -> Error {
        Error::new(proto::CODE_INVALID_PARAMS, format!("Invalid params: {}", reason))
    }

    /// -32603 with the text given: the handler failed.
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(proto::CODE_INTERNAL_ERROR, message)
    }

    /// -32601 `Method not found` with `data.reason` `no such method: <method>`.
    pub fn method_not_found(method: &str) -> Error {
        Error::new(proto::CODE_METHOD_NOT_FOUND, "Method not found").with_reason(format!("no such method: {}", method))
    }

    /// The error with `data` `{"reason": reason}`.
    pub fn with_reason(mut self, reason: impl Into<String>) -> Error {
        self.data = Some(serde_json::json!({ "reason": reason.into() }));
        self
    }

    /// The error with any `data`.
    pub fn with_data(mut self, data: serde_json::Value) -> Error {
        self.data = Some(data);
        self
    }

    /// The code: -32601, -32602, -32603, or Escouade's -32001 to -32005
    /// (`proto::CODE_NOT_YOURS`, `CODE_KEYCHAIN`, `CODE_FORBIDDEN`,
    /// `CODE_FAILED`, `CODE_MISSING`).
    pub fn code(&self) -> i64 {
        self.code
    }

    /// The message, a short English sentence.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The data, if any.
    pub fn data(&self) -> Option<&serde_json::Value> {
        self.data.as_ref()
    }

    /// `data.reason`, or "" when there is none: the host's details
    /// (`example.org is not in permissions.network of …`).
    pub fn reason(&self) -> &str {
        self.data.as_ref().and_then(|d| d.get("reason")).and_then(|r| r.as_str()).unwrap_or("")
    }

    /// Whether this is the error of [`crate::Host::timeout`] running out.
    pub fn is_timeout(&self) -> bool {
        self.code == proto::CODE_INTERNAL_ERROR && self.data.as_ref().and_then(|d| d.get("timeoutMs")).is_some()
    }

    /// The error as the wire's error member.
    pub(crate) fn to_json(&self) -> serde_json::Value {
        let mut e = serde_json::json!({ "code": self.code, "message": self.message });
        if let Some(data) = &self.data {
            e["data"] = data.clone();
        }
        e
    }

    /// Reads the error member of an answer of the host.
    pub(crate) fn from_json(v: &serde_json::Value) -> Error {
        let code = v.get("code").and_then(|c| c.as_i64()).unwrap_or(proto::CODE_INTERNAL_ERROR);
        let message = v.get("message").and_then(|m| m.as_str()).unwrap_or("").to_string();
        Error { code, message, data: v.get("data").cloned() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reason = self.reason();
        if reason.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{} ({})", self.message, reason)
        }
    }
}

impl std::error::Error for Error {}

impl From<serde_json::Error> for Error {
    /// A value that does not (de)serialize: -32603 with serde's words.
    fn from(e: serde_json::Error) -> Error {
        Error::internal(format!("kit: JSON: {}", e))
    }
}
