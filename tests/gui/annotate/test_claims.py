"""Claims in the Annotate tab (a batch handed out by claims, ``--per-image K``), with real
widgets on a project file and on a server project: *Next image to annotate* (button and key N)
claims the acting annotator's next image and shows it, Submit goes on to the next claimed
image, the image list's ``claimed by you`` filter shows the claimed images, and nothing left /
held back / not assigned is one sentence. Two windows (two logins on a server) asking in turn
never get the same image when each image needs one annotator."""

from __future__ import annotations

import itertools
from pathlib import Path
from urllib.parse import quote

import numpy as np
from PySide6.QtCore import Qt

from slicereview.app.images.importing import import_paths
from slicereview.app.people import add_login
from slicereview.app.qa.workflow import define_batch
from slicereview.gui.common.marks import CLAIMED_MARK
from slicereview.gui.window.main_window import MainWindow
from slicereview.model import Role
from slicereview.store import Project

_NAMES = itertools.count()


def _claims_project(where, folder: Path, images: int = 4, *, logins: bool = False
                    ) -> tuple[list[str], list[int]]:
    """``images`` PNGs in one formal batch handed out by claims (one annotator per image),
    assigned to two annotators (server logins when ``logins``), and a third not assigned."""
    from skimage import io

    folder.mkdir()
    for k in range(images):
        io.imsave(folder / f"im{k}.png", np.full((40, 50), 100 * k, np.uint16),
                  check_contrast=False)
    tag = next(_NAMES)
    names = [f"ann a{tag}", f"ann b{tag}", f"eve{tag}"]
    with Project.create(where) as project:
        import_paths(project, sorted(folder.glob("*.png")))
        if logins:
            raters = [add_login(project, n, Role.ANNOTATOR)[0] for n in names]
        else:
            raters = [project.raters.add(n) for n in names]
        define_batch(project, "claims", "formal", [im.id for im in project.images.all()],
                     raters=raters[:2], annotators_per_image=1)
    return names, raters


def _as(url: str, login: str) -> str:
    """The same database, connected as ``login`` (the test cluster trusts its socket)."""
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{quote(login)}@{rest.split('@', 1)[1]}"


def _annotate(open_window, where, rater: int) -> MainWindow:
    w = open_window(where)
    page = w.annotate_page
    w.tabs.setCurrentWidget(page)
    page.select_you(rater)
    assert page.acting_id == rater and page.rater_id == rater
    return w


def test_next_image_claims_shows_and_filters_the_claimed_images(
        qtbot, open_window, location, tmp_path: Path) -> None:
    where = location()
    names, (ann, bob, eve) = _claims_project(where, tmp_path / "images")
    w = _annotate(open_window, where, ann)
    page, claims = w.annotate_page, w.annotate_page.claims
    assert claims.box.isVisible() and claims.button.isEnabled()
    assert claims.action.shortcut().toString() == "N"
    qtbot.mouseClick(claims.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.image_id == 1 and page.view.display is not None)
    assert w.browser.current_id() == 1 and claims.notice.text() == ""
    # the key N asks again: image 1 is not finished, so it comes back (nothing new claimed)
    page.setFocus()
    qtbot.keyClick(page, Qt.Key.Key_N)
    assert page.image_id == 1 and claims.claimed == {1: False}
    # the image list's "claimed by you" filter
    box = w.browser.status_box
    box.setCurrentIndex(box.findText(CLAIMED_MARK))
    assert w.browser.image_ids() == [1]
    # finishing a claimed image goes on to the next claimed one (not the list's next image)
    qtbot.mouseClick(page.panel.nothing_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.image_id == 2)
    assert w.browser.current_id() == 2 and w.browser.image_ids() == [1, 2]
    assert claims.claimed == {1: True, 2: False}
    assert "2 image(s) claimed by you in this phase, 1 finished" in claims.summary.text()
    with Project.open(where) as project:
        batch = project.workflow.batch_by_name("claims").id
        assert [(i, r) for i, _, r in project.slots.all(batch)] == [
            (1, ann), (2, ann), (3, None), (4, None)]
        annotation = project.annotations.for_image(ann, 1, create=False)
        assert annotation is not None and annotation.status.value == "nothing_to_annotate"
    # another annotator (not assigned to the batch): one sentence, nothing claimed
    page.select_you(eve)
    assert claims.next() is None
    assert claims.notice.text() == (f"{names[2]} is not assigned to a formal batch handed "
                                    "out by claims: the owner assigns batches (slicereview "
                                    "batch).")
    assert page.panel.message_label.text() == claims.notice.text()
    # no claims in the pilot phase: no box, the key does nothing
    page.select_you(ann)
    page.panel.phase_box.setCurrentText("pilot")
    assert not claims.box.isVisibleTo(page) and not claims.action.isEnabled()
    w.close()


def test_nothing_left_and_held_back_are_one_sentence(qtbot, open_window, location,
                                                     tmp_path: Path) -> None:
    where = location()
    names, (ann, bob, _eve) = _claims_project(where, tmp_path / "images", images=1)
    with Project.open(where) as project:  # bob was onboarded; no owner decided yet
        onboarding = project.workflow.add_batch("onb", "onboarding", [1])
        project.workflow.assign_batch(onboarding, rater_id=bob)
    w = _annotate(open_window, where, ann)
    claims = w.annotate_page.claims
    assert claims.next() == 1
    w.annotate_page.mark_nothing_to_annotate()  # finished: nothing left for ann
    assert claims.notice.text().startswith(f"Nothing left for {names[0]} in batch claims: "
                                           "every image")
    assert claims.notice.text().endswith("(1 of 1 places taken).")
    w.annotate_page.select_you(bob)
    assert claims.next() is None
    assert "no owner has decided yet" in claims.notice.text()
    w.close()


def _two_windows_never_share_an_image(qtbot, open_window, wheres, raters) -> None:
    windows = [_annotate(open_window, where, rater) for where, rater in zip(wheres, raters,
                                                                             strict=True)]
    got: list[list[int]] = [[], []]
    for _ in range(4):  # more asks than images: each window asks until nothing is left
        for k, w in enumerate(windows):
            page = w.annotate_page
            qtbot.mouseClick(page.claims.button, Qt.MouseButton.LeftButton)
            if page.claims.notice.text():
                assert page.claims.notice.text().startswith("Nothing left for")
                continue
            got[k].append(page.image_id)
            qtbot.mouseClick(page.panel.nothing_button, Qt.MouseButton.LeftButton)
    assert not set(got[0]) & set(got[1])  # never the same image (one annotator each)
    assert sorted(got[0] + got[1]) == [1, 2, 3, 4, 5]
    for w in windows:
        w.close()


def test_two_windows_on_a_file_never_get_the_same_image(qtbot, open_window, tmp_path):
    where = tmp_path / "p.srproj"
    _names, (ann, bob, _eve) = _claims_project(where, tmp_path / "images", images=5)
    _two_windows_never_share_an_image(qtbot, open_window, [where, where], [ann, bob])


def test_two_logins_on_a_server_never_get_the_same_image(qtbot, open_window, tmp_path,
                                                         postgres_cluster):
    url = postgres_cluster.new_database("claims")
    names, (ann, bob, _eve) = _claims_project(url, tmp_path / "images", images=5,
                                              logins=True)
    _two_windows_never_share_an_image(
        qtbot, open_window, [_as(url, names[0]), _as(url, names[1])], [ann, bob])
    owner, annotator = open_window(url), open_window(_as(url, names[2]))
    # the Owner menu is the owner's: an annotator's login has it greyed out, saying why
    assert all(a.isEnabled() for a in owner.owner_menu.actions.values())
    assert not any(a.isEnabled() for a in annotator.owner_menu.actions.values())
    assert "login is an annotator's" in annotator.owner_menu.actions["batches"].toolTip()
    postgres_cluster.drop_database(url)



def test_an_image_opened_by_hand_takes_its_place_or_says_it_is_full(
        qtbot, open_window, location, tmp_path: Path) -> None:
    """Claims are a lock in the window too: the first edit of an image opened from the list
    takes one of its places, or the panel says all are taken and nothing is stored."""
    where = location()
    names, (ann, bob, _eve) = _claims_project(where, tmp_path / "images", images=3)
    w = _annotate(open_window, where, ann)
    page = w.annotate_page
    assert page.claims.next() == 1  # ann holds image 1's one place
    page.select_you(bob)
    page.show_image(1)  # bob opens it from the image list
    qtbot.waitUntil(lambda: page.image_id == 1 and page.view.display is not None)
    assert page.writer.ensure_annotation() is None  # the first edit: refused
    message = page.panel.message_label.text()
    assert message.startswith("C000001 already has all the annotators batch claims needs "
                              "(1 of 1 places taken)")
    assert "take the next image" in message and names[1] in message
    page.show_image(2)
    qtbot.waitUntil(lambda: page.image_id == 2)
    made = page.writer.ensure_annotation()  # a free place: taken as the work starts
    assert made is not None and made.image_id == 2
    assert page.claims.next() == 2  # (his unfinished claim comes first)
    with Project.open(where) as project:
        batch = project.workflow.batch_by_name("claims").id
        assert [(i, r) for i, _, r in project.slots.all(batch)] == [
            (1, ann), (2, bob), (3, None)]
        assert {a.image_id for a in project.annotations.all(rater_id=bob)} == {2}
    w.close()


def test_next_image_follows_the_batchs_uncertainty_order(
        qtbot, open_window, location, tmp_path: Path) -> None:
    """The owner orders the batch by a model's uncertainty: *Next image to annotate* hands
    out the image the model was least sure of first (the order rule of app/qa/selection)."""
    from slicereview.app.models.predictions import store_prediction
    from slicereview.app.models.raters import model_rater
    from slicereview.app.qa.selection import set_order

    where = location()
    names, (ann, bob, eve) = _claims_project(where, tmp_path / "images")
    with Project.open(where) as project:
        owner = project.raters.add("olivia", "owner")
        model = model_rater(project, "net", "1")
        for image_id, band in ((1, 1), (2, 1), (3, 2), (4, 1)):
            labels = np.zeros((40, 50), np.uint8)
            labels[5:15, 5:15] = band
            store_prediction(project, model, image_id, labels)
        batch = project.workflow.batch_by_name("claims")
        set_order(project, owner, batch.id, "uncertainty", rater_id=model.id)
    w = _annotate(open_window, where, ann)
    page, claims = w.annotate_page, w.annotate_page.claims
    qtbot.mouseClick(claims.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.image_id == 3 and page.view.display is not None)
    assert claims.claimed == {3: False}
