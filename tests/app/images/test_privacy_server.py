"""A server project serves de-identified copies to every login but the owner's
(docs/privacy.md, "On a server"): a ``pg_dump`` run as an annotator's login, and the files its
client caches, hold no sentinel and no original UID; the owner's login reads the originals;
the UID map, the seed and the original paths are the owner's alone."""

from __future__ import annotations

import os
import re
import subprocess
from urllib.parse import quote

import numpy as np
import pydicom
import pytest

from slicereview.app.images.file_cache import cache_folder, close_connections
from slicereview.app.images.importing import import_paths
from slicereview.app.images.pacs import Locator, local_file
from slicereview.app.people import add_login
from slicereview.engines.imaging.loader import load_display
from slicereview.model import Polygon, Role
from slicereview.store import Project
from tests import privacy_sentinels as sentinels


@pytest.fixture
def url(postgres_cluster):
    made = postgres_cluster.new_database("privacy")
    yield made
    close_connections()
    postgres_cluster.drop_database(made)


def _as(url: str, login: str) -> str:
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{quote(login)}@{rest.split('@', 1)[1]}"


def _dump(cluster, url: str, login: str) -> bytes:
    """What ``login`` can read: ``pg_dump --enable-row-security`` as that login, its bytea
    values (hex in the dump) decoded and appended."""
    import psycopg

    database = url.split("?", 1)[0].rsplit("/", 1)[1]
    with psycopg.connect(_as(url, login)) as conn:  # (a table the login may not read at all
        # holds nothing it can read: left out, or pg_dump would stop at it)
        unreadable = [r[0] for r in conn.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind = 'r' AND NOT "
            "has_table_privilege(c.oid, 'SELECT')")]
    done = subprocess.run(
        [str(cluster.bin / "pg_dump"), "--enable-row-security", "-h", str(cluster.socket),
         "-U", login, "-d", database, *[f"--exclude-table={t}" for t in unreadable]],
        capture_output=True, check=True, env={**os.environ, "PGOPTIONS": ""})
    text = done.stdout
    decoded = b"".join(bytes.fromhex(m.decode()) for m in re.findall(rb"\\\\x([0-9a-f]+)", text))
    return text + b"\n" + decoded


def test_an_annotators_login_reads_no_patient_data(url, postgres_cluster, tmp_path):
    files = sentinels.all_kinds(tmp_path / "in")
    with Project.create(url) as owner:
        report = import_paths(owner, files)
        assert report.added_files == 4 and not report.failed, report.details()
        ann, _ = add_login(owner, "privacy ann", Role.ANNOTATOR)
        add_login(owner, "privacy rev", Role.REVIEWER)
        add_login(owner, "privacy boss", Role.OWNER)
        a = owner.annotations.for_image(ann, 1)
        owner.polygons.replace(a.id, [Polygon(np.array([[1.0, 1], [6, 1], [6, 6]]))])
    # the test can fail: the owner's dump holds every sentinel and the original UIDs
    assert sentinels.hits(_dump(postgres_cluster, url, postgres_cluster.user)) > 40
    for login in ("privacy ann", "privacy rev"):
        dump = _dump(postgres_cluster, url, login)
        assert b"COPY public.blobs" in dump and b"COPY public.shared_parts" in dump
        assert sentinels.hits(dump) == 0, login
    # what the annotator's client reads and caches: the shared copies, which display
    cache = cache_folder()
    with Project.open(_as(url, "privacy ann")) as mine:
        assert [s.path for s in mine.images.sources()] == [
            "C000001.dcm", "C000002.nii.gz", "C000003.png", "C000004.tif"]
        assert mine.privacy.uid_map() == {} and mine.privacy.origins() == {}
        assert mine.privacy.seed(create=False) is None
        locator = Locator(mine)
        for image in mine.images.all():
            where = locator.file_of(image)
            shown = load_display(where, image)
            assert shown.data.shape[:2] == (image.rows, image.cols)
        dicom = pydicom.dcmread(local_file(locator.file_of(mine.images.get(1)), 1 << 30))
    assert dicom.PixelData == pydicom.dcmread(files[0]).PixelData
    cached = sorted(cache.iterdir())
    assert len(cached) == 4
    for file in cached:
        assert sentinels.hits(file.read_bytes()) == 0, file.name
    # the owner's own login reads the originals
    close_connections()
    for file in cached:
        file.unlink()
    with Project.open(_as(url, "privacy boss")) as boss:
        assert boss.privacy.is_owner_login() and boss.privacy.uid_map()
        original = local_file(Locator(boss).file_of(boss.images.get(1)), 1 << 30)
        assert sentinels.hits(original.read_bytes()) > 10
        assert boss.images.sources()[0].path.endswith("PHI_SENTINEL_Smith_John_CT.dcm")


def test_only_the_owner_changes_the_setting_and_sharing_originals_opens_the_blobs(
        url, postgres_cluster, tmp_path):
    import psycopg

    from slicereview.app.images import privacy
    from slicereview.model import SharedImages, SharedNames

    files = sentinels.all_kinds(tmp_path / "in")[:1]
    with Project.create(url) as owner:
        import_paths(owner, files)
        add_login(owner, "privacy ann2", Role.ANNOTATOR)
        add_login(owner, "privacy rev2", Role.REVIEWER)
    with (Project.open(_as(url, "privacy rev2")) as reviewer,
          pytest.raises(privacy.NotOwnerError, match="Only the project's owner")):
        privacy.change(reviewer, images=SharedImages.ORIGINALS, by="privacy rev2")
    with psycopg.connect(_as(url, "privacy rev2"), autocommit=True) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # nor through SQL
            conn.execute("INSERT INTO privacy_log (images, names, changed_by, changed_at) "
                         "VALUES ('originals', 'file_names', 'me', '')")
        assert conn.execute("SELECT count(*) FROM blobs").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM uid_map").fetchone()[0] == 0
    with Project.open(_as(url, "privacy ann2")) as mine:
        assert [s.path for s in mine.images.sources()] == ["C000001.dcm"]
    with Project.open(url) as owner:
        privacy.change(owner, images=SharedImages.ORIGINALS, names=SharedNames.FILE_NAMES,
                       by="owner")
    with psycopg.connect(_as(url, "privacy ann2"), autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM blobs").fetchone()[0] > 0  # (as chosen)
        assert conn.execute("SELECT count(*) FROM uid_map").fetchone()[0] == 0  # (never)
        [path] = conn.execute("SELECT path FROM sources").fetchone()
        assert path.endswith("PHI_SENTINEL_Smith_John_CT.dcm")
    with Project.open(url) as owner:
        privacy.change(owner, names=SharedNames.CASE_IDS, by="owner")
    with Project.open(_as(url, "privacy ann2")) as mine:
        assert [s.path for s in mine.images.sources()] == ["C000001.dcm"]


def test_an_annotators_login_packages_its_work_from_the_owners_copies(url, tmp_path):
    """The annotator's own work package is written from the copies the owner made (its login
    may neither read nor write the original paths); an image with no copy yet is refused in
    a sentence that says who can make one, and nothing is written."""
    import zipfile

    import psycopg

    from slicereview.app.images.sharing import NotShareable
    from slicereview.app.qa.packages import package

    files = sentinels.all_kinds(tmp_path / "in")[:2]
    with Project.create(url) as owner:
        import_paths(owner, files)
        ann, _ = add_login(owner, "privacy ann3", Role.ANNOTATOR)
        for image in owner.images.all():
            owner.annotations.for_image(ann, image.id)
    out = tmp_path / "mine.zip"
    with Project.open(_as(url, "privacy ann3")) as mine:
        package(mine, "privacy ann3", out)
    with zipfile.ZipFile(out) as zf:
        names = sorted(n for n in zf.namelist() if n.startswith("images/"))
        assert names == ["images/C000001.dcm", "images/C000002.nii.gz"]
        assert all(sentinels.hits(zf.read(n)) == 0 for n in names)
    with psycopg.connect(url, autocommit=True) as conn:  # (as if imported before copies were)
        conn.execute("DELETE FROM shared_parts WHERE sha256 IN (SELECT sha256 FROM "
                     "shared_copies WHERE source_id = 2)")
        conn.execute("DELETE FROM shared_copies WHERE source_id = 2")
    again = tmp_path / "again.zip"
    with (Project.open(_as(url, "privacy ann3")) as mine,
          pytest.raises(NotShareable, match="no de-identified copy yet: ask the project's owner")):
        package(mine, "privacy ann3", again)
    assert not again.exists()
