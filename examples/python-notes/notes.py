#!/usr/bin/env python3
"""The "notes" example plugin of Escouade in plain Python 3 (standard library only).

It speaks plugin protocol 1: JSON-RPC 2.0, one message per line, on stdin and
stdout. Stdout carries the protocol only; traces go to stderr, which the host
copies to the plugin's journal. Requests are served on threads of their own,
so a handler may call the host (secrets/get, settings/get, files/read) while
the main thread keeps reading; notifications are served in order on one
thread.
"""

import itertools
import json
import os
import queue
import sys
import threading
import time

WORDS_FILE = "data/words.txt"
TOKEN_KEY = "token"
DEFAULT_GREETING = "Hello"  # contributes.settings.greeting.default
CRASH_EXIT_CODE = 3
CRASH_LINES = 3
STOP_GRACE_SECONDS = 1.0  # how long shutdown waits for calls under way
PROTOCOL_VERSION = 1

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


class RPCError(Exception):
    """An error answer: one the host sent, or one to send."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self):
        return {"code": self.code, "message": self.message}


def trace(text):
    print("python-notes: " + text, file=sys.stderr, flush=True)


class Connection:
    """Both directions of the protocol over stdin and stdout."""

    def __init__(self, stdin, stdout):
        self.stdin = stdin
        self.stdout = stdout
        self.write_lock = threading.Lock()
        self.pending_lock = threading.Lock()
        self.pending = {}  # id -> [threading.Event, response]
        self.ids = itertools.count(1)
        self.handlers = {}
        self.events = {}
        self.notes = queue.Queue()
        self.workers = []  # threads serving requests

    # Writing.

    def send(self, message):
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        with self.write_lock:
            self.stdout.write(line.encode("utf-8") + b"\n")
            self.stdout.flush()

    def call(self, method, params):
        """Calls the host and waits for its answer; raises RPCError on an error answer."""
        call_id = next(self.ids)
        waiter = [threading.Event(), None]
        with self.pending_lock:
            self.pending[call_id] = waiter
        self.send({"jsonrpc": "2.0", "id": call_id, "method": method, "params": params})
        waiter[0].wait()
        answer = waiter[1]
        if "error" in answer:
            error = answer["error"]
            raise RPCError(error.get("code", INTERNAL_ERROR), error.get("message", ""))
        return answer.get("result")

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def log(self, level, message):
        self.notify("log", {"level": level, "message": message})

    # Reading.

    def serve(self):
        """Reads lines until shutdown is answered or stdin ends."""
        threading.Thread(target=self.serve_notifications, daemon=True).start()
        for raw in iter(self.stdin.readline, b""):
            if self.dispatch_line(raw.rstrip(b"\n").rstrip(b"\r")):
                break
        self.drain()

    def drain(self):
        """Lets the calls under way answer, for STOP_GRACE_SECONDS at most."""
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for worker in self.workers:
            worker.join(max(0.0, deadline - time.monotonic()))

    def dispatch_line(self, raw):
        """Routes one line; returns True once shutdown has been answered."""
        if not raw.strip():
            return False
        try:
            value = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            trace("not a JSON-RPC message: %r" % raw[:200])
            self.send(error_answer(None, RPCError(PARSE_ERROR, "Parse error")))
            return False
        if isinstance(value, list):
            return self.dispatch_batch(value)
        return self.dispatch_one(value, self.send)

    def dispatch_one(self, value, answer):
        fault = check_message(value)
        if fault is not None:
            answer(error_answer(fault[0], fault[1]))
            return False
        if "method" not in value:
            self.deliver(value)
            return False
        if value["method"] == "shutdown":
            if "id" in value:
                answer({"jsonrpc": "2.0", "id": value["id"], "result": None})
            return True
        if "id" not in value:
            self.notes.put(value)
            return False
        worker = threading.Thread(target=lambda: answer(self.serve_request(value)), daemon=True)
        self.workers = [w for w in self.workers if w.is_alive()] + [worker]
        worker.start()
        return False

    def dispatch_batch(self, members):
        if not members:
            self.send(error_answer(None, RPCError(INVALID_REQUEST, "Invalid Request")))
            return False
        batch = BatchAnswer(self, sum(1 for m in members if expects_answer(m)))
        shutdown = False
        for member in members:
            shutdown = self.dispatch_one(member, batch.add) or shutdown
        return shutdown

    def deliver(self, answer):
        with self.pending_lock:
            waiter = self.pending.pop(answer.get("id"), None)
        if waiter is None:
            trace("an answer no call waits for: id %r" % answer.get("id"))
            return
        waiter[1] = answer
        waiter[0].set()

    def serve_request(self, request):
        method, params = request["method"], request.get("params") or {}
        handler = self.handlers.get(method)
        try:
            if method == "initialize":
                result = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {"batch": True}}
            elif handler is None:
                raise RPCError(METHOD_NOT_FOUND, "Method not found")
            else:
                result = handler(params)
            return {"jsonrpc": "2.0", "id": request["id"], "result": result}
        except RPCError as error:
            return error_answer(request["id"], error)
        except Exception as error:  # a bug in a handler must not kill the plugin
            trace("%s failed: %r" % (method, error))
            return error_answer(request["id"], RPCError(INTERNAL_ERROR, str(error)))

    def serve_notifications(self):
        while True:
            note = self.notes.get()
            method = note["method"]
            handler = self.events.get(method[len("event/"):]) if method.startswith("event/") else None
            if handler is None:
                continue
            try:
                handler(note.get("params") or {})
            except Exception as error:
                trace("%s failed: %r" % (method, error))


class BatchAnswer:
    """Gathers the answers to one batch and sends them as one array."""

    def __init__(self, conn, expected):
        self.conn = conn
        self.lock = threading.Lock()
        self.answers = []
        self.expected = expected

    def add(self, answer):
        with self.lock:
            self.answers.append(answer)
            done = len(self.answers) == self.expected
        if done:
            line = json.dumps(self.answers, ensure_ascii=False, separators=(",", ":"))
            with self.conn.write_lock:
                self.conn.stdout.write(line.encode("utf-8") + b"\n")
                self.conn.stdout.flush()


def expects_answer(member):
    """Whether a batch member gets an entry in the answer array."""
    fault = check_message(member)
    return fault is not None or ("method" in member and "id" in member)


def valid_id(value):
    return value is None or (not isinstance(value, bool) and isinstance(value, (int, float, str)))


def check_message(value):
    """Returns (id, RPCError) when value is not a JSON-RPC message, else None."""
    invalid = RPCError(INVALID_REQUEST, "Invalid Request")
    if not isinstance(value, dict):
        return (None, invalid)
    msg_id = value.get("id")
    if not valid_id(msg_id):
        return (None, invalid)
    if value.get("jsonrpc") != "2.0":
        return (msg_id, invalid)
    if "method" in value:
        if not isinstance(value["method"], str) or not value["method"]:
            return (msg_id, invalid)
        if "id" in value and msg_id is None:
            return (None, invalid)
        if value.get("params") is not None and not isinstance(value["params"], (dict, list)):
            return (msg_id, invalid)
    if "method" not in value and "result" not in value and "error" not in value:
        return (msg_id, invalid)
    return None


def error_answer(msg_id, error):
    return {"jsonrpc": "2.0", "id": msg_id, "error": error.to_json()}


def count_lines(text):
    """Counts the lines of text; a last line needs no newline."""
    n = text.count("\n")
    if text and not text.endswith("\n"):
        n += 1
    return n


class Notes:
    """The plugin's methods and events."""

    def __init__(self, conn):
        self.conn = conn
        conn.handlers.update({
            "notes/greet": self.greet,
            "notes/echo": lambda params: params,
            "notes/crash": self.crash,
            "notes/sleep": self.sleep,
        })
        conn.events["ticket.column"] = self.ticket_column

    def greet(self, params):
        name = params.get("name") if isinstance(params, dict) else None
        if not isinstance(name, str) or not name:
            raise RPCError(INVALID_PARAMS, "Invalid params: name is required")
        project = params.get("project")
        settings = self.conn.call("settings/get", {"project": project} if project else {})
        words = self.conn.call("files/read", {"path": WORDS_FILE})
        greeting = settings.get("greeting")
        if not isinstance(greeting, str):
            greeting = DEFAULT_GREETING
        text = "%s, %s!" % (greeting, name)
        if settings.get("shout") is True:
            text = text.upper()
        self.conn.log("info", "greeted " + name)
        trace("greeting " + name)
        return {"text": text, "words": count_lines(words), "token": self.has_token()}

    def has_token(self):
        """Whether the user keeps a token; never the token itself."""
        try:
            return self.conn.call("secrets/get", {"key": TOKEN_KEY}) is not None
        except RPCError as error:
            self.conn.log("warn", "no token: " + error.message)
            return False

    def crash(self, params):
        for i in range(1, CRASH_LINES + 1):
            trace("crashing on purpose (%d/%d)" % (i, CRASH_LINES))
        os._exit(CRASH_EXIT_CODE)

    def sleep(self, params):
        ms = params.get("ms", 0) if isinstance(params, dict) else None
        if isinstance(ms, bool) or not isinstance(ms, int) or ms < 0:
            raise RPCError(INVALID_PARAMS, "Invalid params: ms must be a whole number, not negative")
        time.sleep(ms / 1000)
        return {"slept": ms}

    def ticket_column(self, params):
        self.conn.log("info", "ticket.column: " + json.dumps(params, separators=(",", ":")))


def main():
    conn = Connection(sys.stdin.buffer, sys.stdout.buffer)
    Notes(conn)
    conn.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
