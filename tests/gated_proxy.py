"""An HTTP relay on a loopback port in front of a real server (the tests' Orthanc) that can
hold one chosen request until the test lets it go: a race made explicit, so that a test can
press Cancel or send Ctrl+C while the client is waiting for exactly that answer.

Only GET is relayed (what QIDO-RS and WADO-RS use), with the client's headers; the answer is
read whole from the server and sent on with its status and content type.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

#: Longest a held request waits for :meth:`GatedProxy.release` (then it goes on anyway, so a
#: failed test never leaves a thread hanging).
HOLD_S = 300.0


@dataclass
class _Gate:
    pattern: re.Pattern[str]
    nth: int
    seen: int = 0
    reached: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)


class GatedProxy:
    """Relays ``http://127.0.0.1:PORT/...`` to ``upstream`` (a base URL such as Orthanc's
    REST root); :meth:`hold` chooses the request to hold."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.paths: list[str] = []
        self._gate: _Gate | None = None
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                proxy._relay(self)

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def hold(self, pattern: str, nth: int = 1) -> threading.Event:
        """Hold the ``nth`` request whose path matches ``pattern`` (a regular expression);
        returns the event set when it arrives (it then waits for :meth:`release`)."""
        with self._lock:
            self._gate = _Gate(re.compile(pattern), nth)
            return self._gate.reached

    def release(self) -> None:
        with self._lock:
            if self._gate is not None:
                self._gate.released.set()

    def stop(self) -> None:
        self.release()
        self._server.shutdown()
        self._server.server_close()

    def _relay(self, handler: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self.paths.append(handler.path)
            gate = self._gate
            held = False
            if gate is not None and gate.pattern.search(handler.path.split("?")[0]):
                gate.seen += 1
                held = gate.seen == gate.nth
        if held and gate is not None:
            gate.reached.set()
            gate.released.wait(HOLD_S)
        headers = {k: v for k, v in handler.headers.items()
                   if k.lower() in ("accept", "authorization")}
        try:
            answer = requests.get(self.upstream + handler.path, headers=headers, timeout=60)
        except requests.RequestException:
            handler.send_error(502)
            return
        body = answer.content
        try:
            handler.send_response(answer.status_code)
            handler.send_header("Content-Type", answer.headers.get("content-type",
                                                                   "application/octet-stream"))
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
        except OSError:  # (the client went away: Ctrl+C, Cancel)
            pass
