"""The main window on a server project (a ``postgresql://`` URL): it opens, shows the images,
rates, sees another connection's answers appear (the change counter, polled as on a file), and
its workers open their own connection to the URL. No lock file: a server has no folder."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from slicereview.gui.common import workers
from slicereview.gui.common.background import thread_worker
from slicereview.store import Project
from slicereview.store.copying import copy_project
from tests.gui.gateway.test_two_instances import _answer_elsewhere
from tests.gui.rate.test_rate import _key_for, _new_session, _press, _window, make_rate_project


def test_the_window_works_on_a_server_project(qtbot, tmp_path: Path, postgres_cluster) -> None:
    from skimage import io

    url = postgres_cluster.new_database("gui")
    copy_project(make_rate_project(tmp_path), url)
    w, page = _window(qtbot, url)
    project = page.gateway.project
    assert project is not None and project.is_server and project.path is None
    assert w.windowTitle().startswith("rate")
    assert len(w.browser.image_ids()) == 6 and page.gateway.missing_files() == []
    assert page.gateway.watch.lock is None  # nothing written beside a server project
    sid = _new_session(page, "sort")
    _press(qtbot, page, _key_for(page))
    shown = page.compare.current
    # another connection answers the pair on screen: the 1 s check brings the next one
    assert _answer_elsewhere(url, sid) == (shown.left, shown.right)
    qtbot.waitUntil(lambda: page.compare.current != shown, timeout=5000)
    assert page.compare.current.answered == 2
    # a worker opens the URL on its own connection (File ▸ Import)
    extra = tmp_path / "more"
    extra.mkdir()
    io.imsave(extra / "new.png", np.full((40, 30), 1000, np.uint16), check_contrast=False)
    worker = thread_worker(workers.import_files, project.location, [extra])
    with qtbot.waitSignal(worker.finished, timeout=60000) as done:
        pass
    report = done.args[0]
    assert report.added_files == 1 and not report.failed
    with Project.open(url) as other:
        assert len(other.ratings.answers(sid)) == 2
        assert other.images.sources()[-1].path == (extra / "new.png").as_posix()  # absolute
    w.close()
    postgres_cluster.drop_database(url)


def test_the_window_shows_held_images_without_the_importers_files(
        qtbot, tmp_path: Path, postgres_cluster, monkeypatch) -> None:
    import shutil

    from skimage import io

    from slicereview.app.images.embedding import hold_files

    url = postgres_cluster.new_database("gui")
    copy_project(make_rate_project(tmp_path), url)
    with Project.open(url) as project:
        assert hold_files(project).held == 6
    originals = {p.name: io.imread(p) for p in (tmp_path / "images").iterdir()}
    shutil.rmtree(tmp_path / "images")  # another machine: only the URL
    monkeypatch.setenv("SLICEREVIEW_FILE_CACHE", str(tmp_path / "fresh-cache"))
    w, page = _window(qtbot, url)
    gateway = page.gateway
    assert gateway.missing_files() == [] and len(w.browser.image_ids()) == 6
    for image in gateway.images():
        shown = gateway.display(image)
        np.testing.assert_array_equal(shown.data, originals[Path(image.path).name])
    assert len(list((tmp_path / "fresh-cache").iterdir())) == 6
    w.close()
    postgres_cluster.drop_database(url)
