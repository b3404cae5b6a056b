"""Who reads a pin, from the Review tab: the pin dialog puts a comment on the selected
annotator's annotation (it goes back to them with a rejection), on the image for reviewers
and owners, or -- the owner's only -- on the image for everyone; the pins list says which,
and *Mark for everyone* changes an image pin's readers (undoable). The Annotate tab then shows
an annotator the image's pins for everyone, never a pin for reviewers."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from slicereview.gui.review.dialogs import PinDialog
from slicereview.store import Project
from tests.gui.review.review_fixture import build_review_project
from tests.gui.review.test_review import _open

_SHIFT = Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def project_file(tmp_path: Path) -> Path:
    path = build_review_project(tmp_path)
    with Project.open(path) as project:
        project.raters.add("Dr Review", "reviewer")
        project.raters.add("olivia", "owner")
        project.raters.add("ann")  # (a person: "You are" offers people)
    return path


def _pin_dialog(qtbot, readers: str, text: str, seen: dict) -> None:
    """Answer the next pin dialog: ``readers`` (a :class:`PinDialog` choice) and ``text``;
    ``seen`` gets which choices it offered."""
    def fill() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, PinDialog):
            QTimer.singleShot(20, fill)
            return
        seen.update({k: b.isEnabled() for k, b in dialog.choices.items()})
        seen["label"] = dialog.choices[PinDialog.ANNOTATION].text()
        dialog.choices[readers].click()
        dialog.text.setPlainText(text)
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    QTimer.singleShot(20, fill)


def _pins(path: Path, image_id: int) -> dict[str, tuple[int | None, bool]]:
    with Project.open(path) as project:
        return {r.comment: (r.annotation_id, r.for_everyone)
                for r in project.reviews.all(image_id=image_id) if r.is_pin}


def test_the_pin_dialog_and_the_pins_list_say_who_reads_a_pin(qtbot, project_file: Path,
                                                              screenshots) -> None:
    w = _open(qtbot, project_file)
    page = w.review_page
    page.set_reviewer("Dr Review")
    image = page.state.review.image_id
    first = page.state.review.annotators[0]
    qtbot.keyClick(page, Qt.Key.Key_Tab)  # (a box to pin to)
    seen: dict = {}
    _pin_dialog(qtbot, PinDialog.ANNOTATION, "too loose here", seen)
    qtbot.keyClick(page, Qt.Key.Key_P, _SHIFT)
    assert seen[PinDialog.ANNOTATION] and seen[PinDialog.IMAGE]
    assert not seen[PinDialog.EVERYONE]  # a reviewer does not mark pins for everyone
    assert first.name in seen["label"] and "goes back" in seen["label"]
    _pin_dialog(qtbot, PinDialog.IMAGE, "for reviewers", seen)
    qtbot.keyClick(page, Qt.Key.Key_P, _SHIFT)
    assert _pins(project_file, image) == {"too loose here": (first.annotation_id, False),
                                          "for reviewers": (None, False)}
    pins = page.panel.pins
    assert [pins.item(k).text().split(": ")[0] for k in range(pins.count())] == [
        pins.item(0).text().split(" (")[0] + f" (on {first.name})",
        pins.item(1).text().split(" (")[0] + " (reviewers and owners)"]
    pins.setCurrentRow(0)  # a pin on an annotation goes with its decision
    assert not page.panel.for_everyone_button.isEnabled()
    pins.setCurrentRow(1)
    qtbot.mouseClick(page.panel.for_everyone_button, Qt.MouseButton.LeftButton)
    assert "Only the task owner" in page.panel.message.text()
    assert _pins(project_file, image)["for reviewers"] == (None, False)

    page.reviewer_box.setCurrentIndex(page.reviewer_box.findText("olivia (owner)"))
    assert page.reviewer_id is not None
    _pin_dialog(qtbot, PinDialog.EVERYONE, "an artefact, not a finding", seen)
    seen.clear()
    page.setFocus()
    qtbot.keyClick(page, Qt.Key.Key_Tab)  # (the box again: the image was shown anew)
    qtbot.keyClick(page, Qt.Key.Key_P, _SHIFT)
    assert seen[PinDialog.EVERYONE], page.panel.message.text()
    assert _pins(project_file, image)["an artefact, not a finding"] == (None, True)
    pins = page.panel.pins
    pins.setCurrentRow(1)
    assert page.panel.for_everyone_button.text() == "Mark for everyone"
    qtbot.mouseClick(page.panel.for_everyone_button, Qt.MouseButton.LeftButton)
    assert _pins(project_file, image)["for reviewers"] == (None, True)
    assert "(for everyone)" in page.panel.pins.item(1).text()
    w.grab().save(str(screenshots / "review_pin_readers.png"))
    qtbot.keyClick(page, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # undo the mark
    assert _pins(project_file, image)["for reviewers"] == (None, False)
    w.close()

    # the Annotate tab: an annotator of the image (no work on it yet) sees the pins for
    # everyone, and not the others
    w2 = _open(qtbot, project_file)
    w2.tabs.setCurrentWidget(w2.annotate_page)
    annotate = w2.annotate_page
    with Project.open(project_file) as project:
        ann = project.raters.by_name("ann").id
    annotate.select_you(ann)
    annotate.select_annotator(ann)
    annotate.show_image(image)
    box = annotate.returned
    qtbot.waitUntil(box.isVisible, timeout=10_000)
    assert box.title() == "Comments for everyone" and not box.revise_button.isVisible()
    assert "returned" not in annotate.panel.status_label.text()  # (nothing was returned)
    assert box.pins.count() == 1
    assert box.pins.item(0).text().endswith(": an artefact, not a finding")
    assert len(annotate.status.pin_items) == 2  # (its outline and its number, on the image)
    w2.close()
