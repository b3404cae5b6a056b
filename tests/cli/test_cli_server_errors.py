"""What the command line says when a server project cannot be opened: the server is not
running, it asks for a password, refuses the password or the login, or has no such database.
One sentence each, what to do, no traceback, and never the password."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from slicereview.store import Project

PASSWORD = "s3cret w@rd"


@pytest.fixture(scope="module")
def cluster(postgres_cluster):
    """A cluster whose logins (but its superuser's) need a password (scram-sha-256)."""
    from tests.postgres_cluster import Cluster

    made = Cluster(postgres_cluster.bin, postgres_cluster.root.parent)
    made.admin(f"CREATE ROLE anna LOGIN PASSWORD '{PASSWORD}'")
    made.admin("CREATE DATABASE study OWNER anna")
    hba = made.data / "pg_hba.conf"
    made.admin(f"COPY (SELECT 'local all {made.user} trust' UNION ALL "
               f"SELECT 'local all all scram-sha-256') TO '{hba}'")
    made.admin("SELECT pg_reload_conf()")
    made.admin("CREATE DATABASE other")  # a project of the superuser's, not shared
    Project.create(made.url("other"), name="other").close()
    Project.create(_with_password(made.url("study").replace(f"//{made.user}@", "//anna@")),
                   name="study").close()
    yield made
    made.stop()


def _with_password(url: str) -> str:
    return url.replace("anna@", "anna:" + PASSWORD.replace(" ", "%20").replace("@", "%40") + "@")


def _info(url: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PGPASSFILE": str(tmp_path / "no-pgpass")}
    env.pop("PGPASSWORD", None)
    return subprocess.run([sys.executable, "-m", "slicereview", "info", url],
                          capture_output=True, text=True, env=env, timeout=120)


def _said(done: subprocess.CompletedProcess) -> str:
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and "w@rd" not in done.stderr + done.stdout
    assert "s3cret" not in done.stderr + done.stdout
    return done.stderr


def test_the_server_asks_for_a_password(cluster, tmp_path) -> None:
    said = _said(_info(f"postgresql://anna@/study?host={cluster.socket}", tmp_path))
    assert "asks for a password as anna" in said and "~/.pgpass" in said


def test_a_wrong_password_and_an_unknown_login_are_refused(cluster, tmp_path) -> None:
    wrong = f"postgresql://anna:s3cret%20wrong@/study?host={cluster.socket}"
    assert "refused the login as anna" in _said(_info(wrong, tmp_path))
    nobody = f"postgresql://nobody:{PASSWORD.replace(' ', '%20').replace('@', '%40')}@/study" \
             f"?host={cluster.socket}"
    said = _said(_info(nobody, tmp_path))
    assert "refused the login" in said or "has no login" in said


def test_the_right_password_opens_it_and_another_login_s_project_is_refused(
        cluster, tmp_path) -> None:
    done = _info(_with_password(f"postgresql://anna@/study?host={cluster.socket}"), tmp_path)
    assert done.returncode == 0, done.stderr
    assert "study" in done.stdout and "w@rd" not in done.stdout
    said = _said(_info(_with_password(f"postgresql://anna@/other?host={cluster.socket}"),
                       tmp_path))
    assert "this login may not read the project" in said and "owner" in said


def test_no_such_database_and_no_server(cluster, tmp_path) -> None:
    said = _said(_info(cluster.url("nothing_here"), tmp_path))
    assert "no such database" in said and "createdb" in said
    (tmp_path / "sock").mkdir()
    said = _said(_info(f"postgresql://anna@/study?host={tmp_path / 'sock'}", tmp_path))
    assert "Cannot reach the server" in said and "that the server runs" in said


def _info_in_a_terminal(url: str, tmp_path: Path, typed: str) -> tuple[int, str]:
    """``slicereview info URL`` with a terminal (a pseudo-terminal) as its input and output,
    typing ``typed`` and Return when it asks for a password: its exit code and output."""
    import pty
    import select
    import time

    env = {**os.environ, "PGPASSFILE": str(tmp_path / "no-pgpass")}
    env.pop("PGPASSWORD", None)
    main, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "slicereview", "info", url], stdin=child,
                            stdout=child, stderr=child, env=env, start_new_session=True)
    os.close(child)
    said, typed_it, deadline = b"", False, time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            said += chunk
        if not typed_it and b"Password for" in said:
            os.write(main, typed.encode() + b"\n")
            typed_it = True
        if proc.poll() is not None and not ready:
            break
    os.close(main)
    return proc.wait(timeout=30), said.decode(errors="replace")


def test_in_a_terminal_the_command_asks_for_the_password(cluster, tmp_path) -> None:
    url = f"postgresql://anna@/study?host={cluster.socket}"
    code, said = _info_in_a_terminal(url, tmp_path, PASSWORD)
    assert code == 0, said
    assert f"Password for postgresql://anna@/study?host={cluster.socket}: " in said
    assert "Project: study" in said and PASSWORD not in said  # (not echoed)
    code, said = _info_in_a_terminal(url, tmp_path, "wrong")
    assert code == 2 and "refused the login as anna" in said and "Traceback" not in said


def test_a_new_login_s_password_never_reaches_the_server(cluster, tmp_path) -> None:
    """`people add` sends only the SCRAM verifier of the login's password: the server's log
    of a refused (or logged) CREATE ROLE cannot show it, and the login signs in with it."""
    from slicereview.app.people import add_login
    from slicereview.model import Role

    cluster.admin("ALTER SYSTEM SET log_statement = 'ddl'")
    cluster.admin("SELECT pg_reload_conf()")
    try:
        with Project.open(cluster.url("other")) as owner:  # the superuser's project
            _, password = add_login(owner, "lena", Role.ANNOTATOR)
    finally:
        cluster.admin("ALTER SYSTEM RESET log_statement")
        cluster.admin("SELECT pg_reload_conf()")
    assert password
    logged = (cluster.root / "server.log").read_text(errors="replace")
    assert 'CREATE ROLE "lena" LOGIN PASSWORD \'SCRAM-SHA-256$4096:' in logged
    assert password not in logged
    pw = password.replace("-", "%2D")
    done = _info(f"postgresql://lena:{pw}@/other?host={cluster.socket}", tmp_path)
    assert done.returncode == 0, done.stderr  # scram-sha-256 with the verifier sent
