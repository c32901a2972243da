"""A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records every POST (body
and headers) and answers as the test says (a status, a delay), and chainkit's own verifier
(validateWebhook, run by Node.js) over what it received."""

from __future__ import annotations

import contextlib
import http.server
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from snowfield.testing import run_node_script


@dataclass
class Received:
    body: bytes
    headers: dict[str, str]
    at: float  # time.time() when it arrived

    def json(self) -> Any:
        return orjson.loads(self.body)


@dataclass
class Receiver:
    """What came in, and how to answer the next request (`answer(n)` -> (status, delay s))."""

    url: str = ""
    received: list[Received] = field(default_factory=list)
    answer: Callable[[int], tuple[int, float]] = lambda n: (200, 0.0)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def bodies(self) -> list[Any]:
        with self.lock:
            return [r.json() for r in self.received]


@contextlib.contextmanager
def receiver() -> Iterator[Receiver]:
    state = Receiver()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            body = self.rfile.read(length)
            with state.lock:
                n = len(state.received)
                state.received.append(Received(body, dict(self.headers.items()), time.time()))
            status, delay = state.answer(n)
            if delay:
                time.sleep(delay)
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


_VALIDATE = """
import { readFileSync } from "node:fs";
import { Avalanche } from "@avalanche-sdk/chainkit";
// argv[2]: a file with {secret, deliveries} (a command line is too short for real traffic).
const { secret, deliveries } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const client = new Avalanche({ enableTelemetry: false });
const out = [];
for (const d of deliveries) {
  try {
    const parsed = await client.validateWebhook({
      request: { body: d.body, method: "POST", url: "http://127.0.0.1/hook", headers: d.headers },
      secret,
    });
    out.push({ ok: true, messageId: parsed.messageId, eventType: parsed.eventType });
  } catch (e) {
    out.push({ ok: false, name: e?.constructor?.name, message: String(e?.message ?? e) });
  }
}
console.log(JSON.stringify(out));
"""


def validate(secret: str, received: list[Received]) -> list[dict[str, Any]]:
    """chainkit's validateWebhook over each delivery: {ok, messageId} or {ok: False, name}."""
    plan = {
        "secret": secret,
        "deliveries": [{"body": r.body.decode(), "headers": r.headers} for r in received],
    }
    with tempfile.NamedTemporaryFile("wb", suffix=".json") as f:
        f.write(orjson.dumps(plan))
        f.flush()
        out = run_node_script(_VALIDATE, f.name, packages=("@avalanche-sdk/chainkit",))
    result: list[dict[str, Any]] = orjson.loads(out)
    return result
