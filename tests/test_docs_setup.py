"""What a new user follows word for word (issue 31): how to start PostgreSQL, apt lines that a
root shell without sudo can follow, an Orthanc example that listens on loopback only, the
first-build time measured, and a ``--help`` that names both kinds of project."""

from __future__ import annotations

import re
from pathlib import Path

from slicereview.cli import build_parser

REPO = Path(__file__).resolve().parents[1]


def _read(name: str) -> str:
    return (REPO / name).read_text(encoding="utf-8")


def test_server_docs_say_how_to_start_postgresql() -> None:
    text = _read("docs/server.md")
    for way in ("systemctl start postgresql", "pg_ctlcluster", "docker run", "pg_lsclusters"):
        assert way in text


def test_apt_lines_say_what_root_without_sudo_types() -> None:
    readme = _read("README.md")
    assert "sudo apt-get install" in readme and re.search(r"[Aa]s root.*(no sudo|sudo)", readme)
    assert "As root" in readme.split("sudo apt-get install -y python3-venv")[0]
    assert 'su postgres -c "createuser' in _read("docs/server.md")


def test_every_published_port_and_the_orthanc_example_are_on_loopback() -> None:
    for name in ("README.md", *(f"docs/{p.name}" for p in sorted((REPO / "docs").glob("*.md")))):
        for port in re.findall(r"docker run[^\n`]*?-p (\S+)", _read(name)):
            assert port.startswith("127.0.0.1:"), (name, port)
    dicom = _read("docs/dicom.md")
    example = dicom[dicom.index("mkdir -p ~/orthanc/db"):dicom.index("## Importing from")]
    assert "unshare --net" in example and "exec Orthanc" in example
    assert "TCP-LISTEN:8042,bind=127.0.0.1" in example


def test_help_names_files_and_servers_and_the_build_time_is_measured() -> None:
    description = build_parser().description or ""
    assert "one project file" not in description and "PostgreSQL" in description
    readme = _read("README.md")
    assert "35–81 s" not in readme and "123 s" in readme
