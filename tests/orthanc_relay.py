"""Run Orthanc where it can listen on no network but its own, and relay one loopback port.

Orthanc 1.10 listens on every interface (it has no bind-address setting), and the tests must
listen on loopback only. So the test starts this script under ``unshare --net`` (a new network
namespace whose only interface is its own loopback) with an inherited socket that the test
bound to ``127.0.0.1:PORT`` in the machine's namespace: Orthanc listens inside the namespace,
reachable from nowhere else, and this script relays each connection from the inherited socket
to it. Usage: ``python orthanc_relay.py FD CONFIG ORTHANC_PORT ORTHANC_BINARY``.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import signal
import socket
import struct
import subprocess
import sys
import threading
import time


def loopback_up() -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    request = struct.pack("16sH14s", b"lo", 0, b"\0" * 14)
    flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, request)[:18])[1]  # SIOCGIFFLAGS
    fcntl.ioctl(s, 0x8914, struct.pack("16sH14s", b"lo", flags | 1, b"\0" * 14))  # IFF_UP
    s.close()


def die_with_parent() -> None:
    ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def pump(src: socket.socket, dst: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while True:
            data = src.recv(1 << 16)
            if not data:
                break
            dst.sendall(data)
    with contextlib.suppress(OSError):
        dst.shutdown(socket.SHUT_WR)


def serve(conn: socket.socket, port: int) -> None:
    try:
        upstream = socket.create_connection(("127.0.0.1", port))
    except OSError:
        conn.close()
        return
    a = threading.Thread(target=pump, args=(conn, upstream), daemon=True)
    b = threading.Thread(target=pump, args=(upstream, conn), daemon=True)
    a.start()
    b.start()
    a.join()
    b.join()
    conn.close()
    upstream.close()


def main() -> int:
    fd, config, port, binary = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
    listener = socket.socket(fileno=fd)
    loopback_up()
    orthanc = subprocess.Popen([binary, config], preexec_fn=die_with_parent,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(*_: object) -> None:
        orthanc.terminate()
        try:
            orthanc.wait(10)
        except subprocess.TimeoutExpired:
            orthanc.kill()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    deadline = time.monotonic() + 60
    while True:
        if orthanc.poll() is not None:
            print(f"orthanc exited with {orthanc.returncode}", flush=True)
            return 1
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                print("orthanc did not start", flush=True)
                stop()
            time.sleep(0.1)
    print("ready", flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, port), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
