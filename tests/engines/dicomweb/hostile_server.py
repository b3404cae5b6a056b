"""A small local HTTP server that answers like a PACS, or like a hostile one.

The first path segment picks the behaviour (``/good``, ``/wrongtype``, ``/truncated``,
``/cutoff``, ``/huge``, ``/redirect``, ``/error500``, ``/slow``, ``/trickle``, ``/token``,
``/stow``); below it the DICOMweb routes of a study with two instances (pydicom's CT and MR
test files). Bound to 127.0.0.1 only, on a free port, in a thread."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from pydicom import dcmread
from pydicom.data import get_testdata_file

FILES = [Path(get_testdata_file("CT_small.dcm")), Path(get_testdata_file("MR_small.dcm"))]
STUDY = "1.2.826.0.1.3680043.8.498.1"
SERIES = "1.2.826.0.1.3680043.8.498.2"
TOKEN = "s3cret-token"
BOUNDARY = "b0undary"


def _uid(path: Path) -> str:
    return str(dcmread(path, stop_before_pixels=True).SOPInstanceUID)


SOPS = {_uid(p): p for p in FILES}


def _json(tag_values: dict[str, tuple[str, object]]) -> dict:
    return {tag: {"vr": vr, "Value": [value]} for tag, (vr, value) in tag_values.items()}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def _send(self, code: int, body: bytes, content_type: str, length: int | None = None,
              headers: dict | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        mode, _, route = self.path.lstrip("/").partition("/")
        route = "/" + route.split("?")[0]
        if mode == "error500":
            return self._send(500, b"boom", "text/plain")
        if mode == "redirect":
            host = "127.0.0.2" if "127.0.0.1" in self.headers.get("Host", "") else "127.0.0.1"
            port = self.server.server_address[1]
            self.send_response(302)
            self.send_header("Location", f"http://{host}:{port}/good{route}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if mode == "slow":  # no answer until the server stops (the client gives up first)
            self.server.stopping.wait(60)  # type: ignore[attr-defined]
        if mode == "token" and self.headers.get("Authorization") != f"Bearer {TOKEN}":
            return self._send(401, b"{}", "application/json")
        if mode == "wrongtype":
            return self._send(200, b"<html>Welcome</html>", "text/html")
        if route.endswith("/studies"):
            return self._send(200, json.dumps([_json({
                "0020000D": ("UI", STUDY), "00080020": ("DA", "20240102"),
                "00081030": ("LO", "Chest"), "00080061": ("CS", "CT"),
                "00201208": ("IS", 2)})]).encode(), "application/dicom+json")
        if route.endswith("/series"):
            return self._send(200, json.dumps([_json({
                "0020000E": ("UI", SERIES), "00080060": ("CS", "CT")})]).encode(),
                "application/dicom+json")
        if route.endswith("/instances"):
            return self._send(200, json.dumps([_json({"00080018": ("UI", sop)})
                                               for sop in SOPS]).encode(),
                              "application/dicom+json")
        sop = route.rsplit("/", 1)[-1]
        if sop not in SOPS:
            return self._send(404, b"", "text/plain")
        data = SOPS[sop].read_bytes()
        body = (f"--{BOUNDARY}\r\nContent-Type: application/dicom\r\n\r\n".encode() + data
                + f"\r\n--{BOUNDARY}--\r\n".encode())
        content_type = f'multipart/related; type="application/dicom"; boundary={BOUNDARY}'
        last = sop == list(SOPS)[-1]
        if mode == "truncated" and last:  # a whole HTTP body, but the multipart is cut
            body = body[:len(body) // 2]
        if mode == "cutoff" and last:  # the connection ends before Content-Length
            self._send(200, body[:len(body) // 2], content_type, length=len(body))
            self.close_connection = True
            return None
        if mode == "huge" and last:
            return self._send(200, body[:100], content_type, length=10 * (1 << 30))
        if mode == "trickle":
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for k in range(0, len(body), 64):
                self.wfile.write(body[k:k + 64])
                self.wfile.flush()
                time.sleep(0.05)
            return None
        return self._send(200, body, content_type)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else self._chunked()
        marker = b"\x08\x00\x18\x00UI"
        at = body.find(marker)
        size = int.from_bytes(body[at + 6:at + 8], "little")
        uid = body[at + 8:at + 8 + size].rstrip(b"\0 ").decode()
        item = {"00081150": {"vr": "UI", "Value": ["1.2.840.10008.5.1.4.1.1.66.4"]},
                "00081155": {"vr": "UI", "Value": [uid]}}
        if uid.endswith("7"):
            item["00081197"] = {"vr": "US", "Value": [0xA900]}
            answer = {"00081198": {"vr": "SQ", "Value": [item]}}
            return self._send(409, json.dumps(answer).encode(), "application/dicom+json")
        answer = {"00081199": {"vr": "SQ", "Value": [item]}}
        return self._send(200, json.dumps(answer).encode(), "application/dicom+json")

    def _chunked(self) -> bytes:
        out = b""
        while True:
            size = int(self.rfile.readline().strip() or b"0", 16)
            if size == 0:
                self.rfile.readline()
                return out
            out += self.rfile.read(size)
            self.rfile.readline()


class _Quiet(ThreadingHTTPServer):
    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.stopping = threading.Event()  # set by HostileServer.stop

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that hung up on purpose (the tests' time limits)


class HostileServer:
    def __init__(self) -> None:
        self.httpd = _Quiet(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, mode: str) -> str:
        return f"http://127.0.0.1:{self.port}/{mode}"

    def stop(self) -> None:
        self.httpd.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
