"""A real Orthanc (Debian's ``orthanc`` + ``orthanc-dicomweb``) for the tests: a temporary
storage folder and configuration, HTTP basic authentication, reachable on one loopback port
of this machine only (see ``orthanc_relay.py``), stopped at the end."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.dicom_tools import need

PLUGIN = "/usr/share/orthanc/plugins/libOrthancDicomWeb.so"
USER, PASSWORD = "alice", "wonderland"
_INNER_PORT = 8042


@dataclass
class Orthanc:
    url: str  # the REST API root
    process: subprocess.Popen
    folder: Path

    @property
    def dicomweb(self) -> str:
        return f"{self.url}/dicom-web"

    @property
    def auth(self) -> tuple[str, str]:
        return (USER, PASSWORD)

    def upload(self, path: str | Path) -> dict:
        response = requests.post(f"{self.url}/instances", data=Path(path).read_bytes(),
                                 auth=self.auth, timeout=60)
        response.raise_for_status()
        return response.json()

    def post(self, route: str, body: object) -> Any:
        response = requests.post(f"{self.url}{route}", json=body, auth=self.auth, timeout=60)
        response.raise_for_status()
        return response.json()

    def get(self, route: str) -> Any:
        response = requests.get(f"{self.url}{route}", auth=self.auth, timeout=60)
        response.raise_for_status()
        return response.json()

    def delete(self, route: str) -> None:
        response = requests.delete(f"{self.url}{route}", auth=self.auth, timeout=60)
        response.raise_for_status()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        shutil.rmtree(self.folder, ignore_errors=True)


def start(folder: Path) -> Orthanc:
    """Start Orthanc with storage in ``folder`` (failing in CI, skipping elsewhere, when
    Orthanc, its DICOMweb plugin or ``unshare`` is missing)."""
    binary = need("Orthanc")
    if not Path(PLUGIN).is_file():
        need("orthanc-dicomweb-plugin")  # (fails or skips with the apt hint)
    unshare = need("unshare")
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "orthanc.json"
    config.write_text(json.dumps({
        "Name": "slicereview-tests", "StorageDirectory": str(folder / "db"),
        "IndexDirectory": str(folder / "db"), "HttpPort": _INNER_PORT,
        "DicomServerEnabled": False, "RemoteAccessAllowed": False,
        "AuthenticationEnabled": True, "RegisteredUsers": {USER: PASSWORD},
        "Plugins": [PLUGIN], "DicomWeb": {"Enable": True, "Root": "/dicom-web/"},
        "HttpCompressionEnabled": False,
    }), encoding="utf-8")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(32)
    port = listener.getsockname()[1]
    relay = Path(__file__).with_name("orthanc_relay.py")
    command = [unshare, "--net"] + ([] if os.geteuid() == 0 else ["--map-root-user"]) + [
        sys.executable, str(relay), str(listener.fileno()), str(config), str(_INNER_PORT),
        binary]
    process = subprocess.Popen(command, pass_fds=[listener.fileno()], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    listener.close()
    first = process.stdout.readline().strip() if process.stdout else ""
    if first != "ready":
        process.kill()
        message = f"Orthanc could not start in a network namespace: {first or 'no output'}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return Orthanc(f"http://127.0.0.1:{port}", process, folder)
