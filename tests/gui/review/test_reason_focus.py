"""The reason of a rejection or a pin can be typed as soon as its dialog opens.

Under Xvfb, pressing Shift+P and typing a comment lost the typing: the keyboard focus was on the
first reason check box, where letters do nothing."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QDialogButtonBox

from slicereview.gui.review.dialogs import ReasonDialog


def test_typing_goes_to_the_reason_text(qtbot) -> None:
    dialog = ReasonDialog("Pin a comment", "Comment on this region:")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    focus = QApplication.focusWidget()
    assert focus is not None
    qtbot.keyClicks(focus, "look here")
    assert dialog.reason() == ((), "look here")
    assert dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()  # a reason
