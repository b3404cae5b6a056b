"""The project file: its header, migrations, refusals of files that are not ours or damaged
(byte for byte untouched), durability under ``kill -9`` and hot journals. What every project
does on both backends (reopening, foreign keys, transactions) is in test_project_lifecycle.py."""

from __future__ import annotations

import hashlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from slicereview.model import NewImage
from slicereview.store import (
    DamagedProjectError,
    NewerProjectError,
    NotAProjectError,
    Project,
    ProjectError,
    check_file,
)
from slicereview.store import checking as checking_module
from slicereview.store import connection as connection_module
from slicereview.store.schema import _V1, APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION

pytestmark = pytest.mark.file_only(
    "a project file's bytes, header, journal and migrations by raw SQLite; the server's are in "
    "test_server.py")

TABLES = {
    "meta", "sources", "images", "raters", "image_sets", "image_set_members", "sessions",
    "answers", "grades", "annotations", "polygons", "questions", "reviews", "guidelines",
}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def raw(path: Path) -> sqlite3.Connection:
    """A plain connection that bypasses every slicereview check (to inspect or tamper)."""
    return sqlite3.connect(path, isolation_level=None)


def add_file(project: Project, path: Path, payload: bytes, n_images: int = 1) -> list[int]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(payload)
    digest = hashlib.sha256(payload).hexdigest()
    frames = [NewImage(rows=8, cols=8, frame=k) for k in range(n_images)]
    return project.images.add_source(path, digest, "png", frames)


@pytest.fixture
def project_path(tmp_path: Path) -> Path:
    """A real project with raters, images and guidelines spread over many pages."""
    path = tmp_path / "study.srproj"
    with Project.create(path, name="study") as project:
        for k in range(40):
            project.raters.add(f"rater-{k:03d}-" + "x" * 100, "annotator", group="g1")
        for k in range(12):
            add_file(project, tmp_path / "data" / f"img{k}.png", bytes([k]) * 300, n_images=3)
        for k in range(30):
            project.guidelines.add(f"version {k}: " + "outline every lesion. " * 40)
    return path


# -- create / reopen --------------------------------------------------------------------------
def test_header_pragmas_and_tables(project_path: Path):
    conn = raw(project_path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    # Rollback journal, not WAL: one file, and it works on network drives.
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert names >= TABLES
    conn.close()
    header = project_path.read_bytes()[:100]
    assert header[68:72] == b"SRvw"
    assert check_file(project_path) == SCHEMA_VERSION


def test_create_refuses_existing_file(project_path: Path):
    before = sha256(project_path)
    with pytest.raises(FileExistsError, match="already exists"):
        Project.create(project_path)
    assert sha256(project_path) == before


# -- foreign keys ------------------------------------------------------------------------------
@pytest.mark.parametrize("read_only", [False, True])
def test_foreign_keys_on_for_every_connection(project_path: Path, read_only: bool):
    with Project.open(project_path, read_only=read_only) as project:
        assert project.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_read_only_project_cannot_write(project_path: Path):
    before = sha256(project_path)
    with Project.open(project_path, read_only=True) as project:
        assert len(project.images.all()) == 36
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            project.raters.add("intruder")
    assert sha256(project_path) == before


# -- migrations --------------------------------------------------------------------------------
def _version(path: Path) -> int:
    conn = raw(path)
    try:
        return conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()


def _format_1_file(path: Path) -> None:
    """A project as the first slicereview release wrote it (format 1)."""
    from slicereview.store.schema import MIGRATIONS

    conn = raw(path)
    conn.executescript(MIGRATIONS[0])
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.close()


def test_older_format_file_is_migrated(tmp_path: Path):
    path = tmp_path / "old.srproj"
    _format_1_file(path)
    with Project.open(path) as project:
        assert project.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        project.raters.add("ann")  # the tables exist
    assert _version(path) == SCHEMA_VERSION


def test_format_0_file_is_refused_by_every_opening(tmp_path: Path):
    """Format 0 with our application id is never ours (another program's database): refused
    read-write and read-only alike, never migrated into."""
    path = tmp_path / "old.srproj"
    conn = raw(path)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("CREATE TABLE scratch (x)")
    conn.close()
    before = sha256(path)
    for read_only in (False, True):
        with pytest.raises(ProjectError, match="damaged project format number"):
            Project.open(path, read_only=read_only)
    assert sha256(path) == before and _version(path) == 0


def test_read_only_open_of_older_file_is_refused(tmp_path: Path):
    path = tmp_path / "old.srproj"
    _format_1_file(path)
    before = sha256(path)
    with pytest.raises(ProjectError, match="open it once with write access"):
        Project.open(path, read_only=True)
    assert sha256(path) == before


def _fake_migrations(monkeypatch: pytest.MonkeyPatch, extra: list[str]) -> int:
    migrations = [*MIGRATIONS, *extra]
    for module in (connection_module, checking_module):  # (opening, and the checks before it)
        monkeypatch.setattr(module, "MIGRATIONS", migrations)
        monkeypatch.setattr(module, "SCHEMA_VERSION", len(migrations))
    return len(migrations)


def test_migrations_apply_in_order(project_path: Path, monkeypatch: pytest.MonkeyPatch):
    # Step 2 creates a table that step 3 alters: run out of order, step 3 would fail.
    steps = [
        "CREATE TABLE history (step INTEGER NOT NULL);\nINSERT INTO history VALUES (2);",
        "-- step 3\nALTER TABLE history ADD COLUMN note TEXT;\n"
        "INSERT INTO history (step, note) VALUES (3, 'a;b');",
    ]
    target = _fake_migrations(monkeypatch, steps)
    assert check_file(project_path) == SCHEMA_VERSION
    with Project.open(project_path) as project:
        rows = project.db.execute("SELECT step, note FROM history ORDER BY rowid").fetchall()
        assert [tuple(r) for r in rows] == [(2, None), (3, "a;b")]
        assert len(project.raters.all()) == 40  # the data survived
    assert _version(project_path) == target
    assert check_file(project_path) == target
    with Project.open(project_path) as project:  # reopening does not migrate again
        assert project.db.execute("SELECT count(*) FROM history").fetchone()[0] == 2


def test_failing_migration_rolls_back_and_leaves_file_unchanged(
    project_path: Path, monkeypatch: pytest.MonkeyPatch
):
    _fake_migrations(monkeypatch, [
        "CREATE TABLE history (step INTEGER);\nINSERT INTO history VALUES (2);",
        "INSERT INTO no_such_table VALUES (3);",
    ])
    before = sha256(project_path)
    with pytest.raises(sqlite3.OperationalError, match="no_such_table"):
        Project.open(project_path)
    assert sha256(project_path) == before
    assert _version(project_path) == SCHEMA_VERSION
    assert not project_path.with_name(project_path.name + "-journal").exists()


def test_schema_version_matches_migrations():
    assert SCHEMA_VERSION == len(MIGRATIONS) >= 1
    assert MIGRATIONS[0] is _V1


# -- refusals: each leaves the file byte-for-byte unchanged -------------------------------------
def _assert_refused(path: Path, error: type[Exception], *needles: str) -> str:
    before = sha256(path)
    siblings = sorted(p.name for p in path.parent.iterdir())
    for read_only in (False, True):
        with pytest.raises(error) as info:
            Project.open(path, read_only=read_only)
        message = str(info.value)
        assert str(path) in message
        for needle in needles:
            assert needle in message, message
    with pytest.raises(error):
        check_file(path)
    assert sha256(path) == before
    assert sorted(p.name for p in path.parent.iterdir()) == siblings  # no journal left behind
    return message


@pytest.mark.parametrize("content", [
    b"",
    b"hello, this is a text file\n" * 20,
    b"\x89PNG\r\n\x1a\n" + bytes(200),
    b"SQLite format 3\x00",  # a magic string alone, too short to be a database
])
def test_refuses_non_sqlite_file(tmp_path: Path, content: bytes):
    path = tmp_path / "notes.srproj"
    path.write_bytes(content)
    _assert_refused(path, NotAProjectError, "not an SQLite database")


def test_refuses_foreign_sqlite_database(tmp_path: Path):
    path = tmp_path / "other.db"
    conn = raw(path)
    conn.execute("CREATE TABLE images (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO images (name) VALUES ('a')")
    conn.close()
    message = _assert_refused(path, NotAProjectError, "not a slicereview project")
    assert "application_id 0x0" in message


def test_refuses_foreign_database_even_with_a_hot_journal(tmp_path: Path):
    # Another program crashed mid-transaction: we must not even roll back its journal.
    path = tmp_path / "other.db"
    conn = raw(path)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    journal = path.with_name(path.name + "-journal")
    journal.write_bytes(b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7" + bytes(504))
    before = sha256(journal)
    _assert_refused(path, NotAProjectError, "not a slicereview project")
    assert sha256(journal) == before


def test_refuses_newer_file(project_path: Path):
    conn = raw(project_path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    _assert_refused(
        project_path, NewerProjectError, "newer slicereview",
        f"format {SCHEMA_VERSION + 1}", f"up to {SCHEMA_VERSION}",
    )


def _corrupt(data: bytearray, how: str, rng: random.Random) -> bytearray:
    page = 4096
    if how == "zero-pages":
        for k in (3, 4, 5):
            data[k * page:(k + 1) * page] = bytes(page)
    elif how == "random-middle":
        mid = len(data) // 2
        data[mid:mid + 2 * page] = rng.randbytes(2 * page)
    elif how == "truncated":
        del data[len(data) // 2:]
    elif how == "schema-page":  # page 1 after the 100-byte header: the table of tables
        data[100:page] = rng.randbytes(page - 100)
    elif how == "last-pages":
        data[-2 * page:] = rng.randbytes(2 * page)
    return data


@pytest.mark.parametrize(
    "how", ["zero-pages", "random-middle", "truncated", "schema-page", "last-pages"]
)
def test_refuses_damaged_file(project_path: Path, how: str):
    assert project_path.stat().st_size >= 20 * 4096  # enough pages to damage
    data = _corrupt(bytearray(project_path.read_bytes()), how, random.Random(how))
    project_path.write_bytes(bytes(data))
    _assert_refused(project_path, DamagedProjectError, "damaged", "restore it from a backup")


# -- transactions ------------------------------------------------------------------------------
def test_each_store_call_commits_before_returning(project_path: Path):
    with Project.open(project_path) as project:
        rater_id = project.raters.add("committed")
        # A second connection sees it at once: it is on disk, not pending.
        other = raw(project_path)
        assert other.execute("SELECT name FROM raters WHERE id = ?", (rater_id,)).fetchone()
        other.close()


# -- durability under kill -9 ------------------------------------------------------------------
#: Address-space limit of the writer child: a runaway child fails this test alone (MemoryError)
#: instead of exhausting the machine. It once grew to 22.9 GB: it built every pair of *all* the
#: project's images, and every run adds up to hundreds of volume slices, so the pairs grew
#: quadratically from run to run. It now pairs a fixed few images and stops after a bounded
#: number of writes.
WRITER_MEMORY = 1 << 30
WRITER_STEPS = 400
WRITER = textwrap.dedent(
    f"""
    import resource
    resource.setrlimit(resource.RLIMIT_AS, ({WRITER_MEMORY}, {WRITER_MEMORY}))
    import hashlib, os, sys, time
    from slicereview.store import Project
    from slicereview.model import NewImage

    path, folder = sys.argv[1], sys.argv[2]
    project = Project.open(path)
    # A tiny page cache makes big transactions spill pages into the file before COMMIT, so a
    # kill can land in the middle of a transaction that has already touched the file.
    project.db.execute("PRAGMA cache_size = 8")
    image_ids = [im.id for im in project.images.all()][:12]  # not all: earlier runs add volumes
    rater = project.raters.ensure("durable", "annotator")
    set_id = project.image_sets.create(f"set-{{len(project.image_sets.all())}}", image_ids)
    print("ready", flush=True)
    pairs = [(a, b) for i, a in enumerate(image_ids) for b in image_ids[i + 1:]]
    for n in range({WRITER_STEPS}):
        if n % 40 == 0:
            with project.transaction():
                session = project.db.execute(
                    "INSERT INTO sessions (kind, rater_id, image_set_id, name, seed, created_at)"
                    " VALUES ('exhaustive', ?, ?, 'kill test', 0, 'now')", (rater, set_id),
                ).lastrowid
            print("session", session, flush=True)
        left, right = pairs[n % len(pairs)]
        with project.transaction():
            answer = project.db.execute(
                "INSERT INTO answers (session_id, left_id, right_id, answer, active_ms,"
                " answered_at) VALUES (?, ?, ?, 'left', 1200, 'now')", (session, left, right),
            ).lastrowid
        print("answer", answer, flush=True)
        if n % 7 == 0:
            # A volume: one source and 150 slices in one transaction (spills the cache).
            payload = f"volume {{n}} of writer {{os.getpid()}}".encode() * 50  # unique per run
            file = f"{{folder}}/vol{{os.getpid()}}-{{n}}.nii"
            open(file, "wb").write(payload)
            ids = project.images.add_source(
                file, hashlib.sha256(payload).hexdigest(), "nifti",
                [NewImage(64, 64, axis=2, slice_index=k, info={{"pad": "z" * 300}})
                 for k in range(150)],
            )
            print("volume", " ".join(map(str, ids)), flush=True)
    print("done", flush=True)
    time.sleep(600)  # the test kills it; it never exits by itself
    """
)


def _peak_memory(pid: int) -> int:
    """The peak resident memory of a running process in bytes (0 where /proc is missing)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    kb = next((line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")), 0)
    return int(kb) * 1024


def _run_and_kill(path: Path, folder: Path, script: Path, answers: int, delay: float,
                  peaks: list[int] | None = None) -> dict[str, list[int]]:
    """Run the writer, kill -9 it ``delay`` s after its ``answers``-th answer past its first
    volume (or when it is done), and return the ids whose commit it reported."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(
        [sys.executable, str(script), str(path), str(folder)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    early = ""
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        # Let the first volume commit, then kill at a seeded point of the writer's progress
        # (counted in its answers, so the same on a slow machine as on a fast one).
        seen_volume, count, line = False, 0, ""
        while count < answers and not line.startswith("done"):
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            early += line
            seen_volume = seen_volume or line.startswith("volume")
            count += seen_volume and line.startswith("answer")
        time.sleep(delay)
        if peaks is not None:
            peaks.append(_peak_memory(proc.pid))
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
        out = early + out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, err
    committed: dict[str, list[int]] = {"session": [], "answer": [], "volume": []}
    for line in out.splitlines(keepends=True):
        if not line.endswith("\n") or line == "done\n":
            continue  # cut off by the kill: the commit happened, the print did not finish
        kind, *ids = line.split()
        committed[kind].extend(int(i) for i in ids)
    return committed


@pytest.mark.slow
def test_kill_9_never_loses_a_committed_write(project_path: Path, tmp_path: Path):
    folder = tmp_path / "volumes"
    folder.mkdir()
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    rng = random.Random(20240611)
    total = {"answer": 0, "volume": 0}
    for _ in range(5):
        committed = _run_and_kill(project_path, folder, script, rng.randrange(1, 60),
                                  rng.uniform(0.0, 0.05))
        # Opening recovers from the kill (rolls back a hot journal) and checks the file.
        with Project.open(project_path) as project:
            conn = project.db.conn
            assert conn.execute("PRAGMA quick_check").fetchall()[0][0] == "ok"
            assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
            answers = {r[0] for r in conn.execute("SELECT id FROM answers")}
            sessions = {r[0] for r in conn.execute("SELECT id FROM sessions")}
            images = {r[0] for r in conn.execute("SELECT id FROM images")}
            assert set(committed["answer"]) <= answers
            assert set(committed["session"]) <= sessions
            assert set(committed["volume"]) <= images
            # Atomicity: a volume is all 150 slices or absent, never a part.
            per_source = conn.execute(
                "SELECT count(*) FROM images JOIN sources ON sources.id = images.source_id "
                "WHERE sources.format = 'nifti' GROUP BY sources.id"
            ).fetchall()
            assert all(r[0] == 150 for r in per_source)
        # No hot journal is left: a read-only check passes. (A kill before the journal was
        # synced can leave an empty or zeroed journal; SQLite ignores such a file.)
        assert check_file(project_path) == SCHEMA_VERSION
        total["answer"] += len(committed["answer"])
        total["volume"] += len(committed["volume"]) // 150
    # Every run committed its first volume before the kill (see _run_and_kill).
    assert total["answer"] >= 5 and total["volume"] >= 5, total


def test_kill_9_writer_memory_stays_small_on_a_big_project(project_path: Path, tmp_path: Path):
    # Six thousand images (as after a few runs of the test above): the writer must not build
    # anything quadratic in them.
    folder = tmp_path / "volumes"
    folder.mkdir()
    with Project.open(project_path) as project:
        for k in range(40):
            file = folder / f"bulk{k}.nii"
            file.write_bytes(f"bulk volume {k}".encode())
            project.images.add_source(file, sha256(file), "nifti",
                                      [NewImage(64, 64, axis=2, slice_index=i) for i in range(150)])
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    peaks: list[int] = []
    committed = _run_and_kill(project_path, folder, script, 3, 0.0, peaks)
    assert committed["volume"] and committed["answer"]
    assert peaks[0] < 400 * 2**20, f"writer peaked at {peaks[0] / 2**20:.0f} MiB"


def test_open_recovers_from_hot_journal(project_path: Path, tmp_path: Path):
    # Freeze a writer in the middle of a big transaction whose pages already reached the file,
    # then kill it: the file is left with a hot journal and uncommitted pages in it.
    script = tmp_path / "stuck.py"
    script.write_text(textwrap.dedent(
        """
        import sys, time
        from slicereview.store import Project
        project = Project.open(sys.argv[1])
        project.db.execute("PRAGMA cache_size = 5")
        project.db.execute("BEGIN IMMEDIATE")
        for k in range(2000):
            project.db.execute(
                "INSERT INTO guidelines (version, text, created_at) VALUES (?, ?, 'x')",
                (1000 + k, "y" * 500),
            )
        print("inside", flush=True)
        time.sleep(60)
        """
    ))
    size_before = project_path.stat().st_size
    proc = subprocess.Popen([sys.executable, str(script), str(project_path)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "inside"
    finally:
        proc.kill()
        proc.communicate()
    journal = project_path.with_name(project_path.name + "-journal")
    assert journal.exists() and project_path.stat().st_size > size_before  # truly hot
    with Project.open(project_path) as project:
        assert project.guidelines.get()[0] == 30  # the uncommitted rows are gone
        assert project.db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    assert not journal.exists()
    assert project_path.stat().st_size == size_before
