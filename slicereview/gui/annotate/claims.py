"""The Annotate page's claims: :class:`AnnotateClaims`, a part of the Annotate page, for batches
handed out by claims
(``slicereview batch ... --per-image K``; the rule is :mod:`slicereview.app.qa.claiming`).

* **Next image to annotate** — when the phase shown has a batch handed out by claims, the
  *Your batch* box offers a button (and the key ``N``, from the shortcut table) that asks the
  application layer for the acting annotator's next image (``gateway.annotate.next_claim``):
  an unfinished image they claimed before, else a newly claimed one. On a server two windows
  asking at once never get the same place (``FOR UPDATE SKIP LOCKED``). The image is opened in
  the image list (its filters cleared if they hide it) and shown as *your* annotation.
* **nothing to hand out** — nothing left, held back by the owner's decision after onboarding,
  or not assigned to such a batch: one sentence in the box, nothing claimed.
* **finishing** — *Submit* or *Nothing to annotate* on an image you claimed goes on to your
  next claimed image (instead of the next image of the list).
* **the image list** — the status filter's ``◆ claimed by you`` shows the images the acting
  annotator claimed in the phase shown (:attr:`AnnotateClaims.claims_changed`, while the page
  is shown).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QGroupBox, QLabel, QPushButton, QVBoxLayout

from slicereview.gui.annotate.people import AnnotatorChoice
from slicereview.gui.annotate.state import AnnotateState
from slicereview.gui.annotate.writer import AnnotationWriter

if TYPE_CHECKING:
    from slicereview.gui.gateway.annotate import AnnotateService


class AnnotateClaims(QObject):
    """Claims (see the module docstring): the *Your batch* box (:attr:`box`, placed by the
    page), ``action`` (key N) and the panel's ``message`` line."""

    #: The images the acting annotator claimed in the phase shown (``None``: no claims).
    claims_changed = Signal(object)
    #: Show this image (a claimed one): the image list selects it.
    open_requested = Signal(int)

    def __init__(self, state: AnnotateState, annotate: AnnotateService,
                 writer: AnnotationWriter, people: AnnotatorChoice, action: QAction,
                 message: QLabel) -> None:
        super().__init__()
        self.state = state
        self.annotate = annotate
        self.writer = writer
        self.people = people
        self.action = action
        self.message = message
        self.box = QGroupBox("Your batch")
        self.box.setObjectName("claims_box")
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.setStyleSheet("color: #e0a030")
        self.button = QPushButton("Next image to annotate")
        self.button.setObjectName("claim_next")
        self.button.setToolTip(self.action.toolTip())
        col = QVBoxLayout(self.box)
        for widget in (self.summary, self.notice, self.button):
            col.addWidget(widget)
        self.box.setVisible(False)
        self.button.clicked.connect(self.next)
        self.action.triggered.connect(self.next)
        #: The acting annotator's claimed images shown last: image id → finished.
        self.claimed: dict[int, bool] = {}

    def offered(self) -> bool:
        """Whether the phase shown has a batch handed out by claims."""
        return self.annotate.is_open and bool(self.annotate.claim_batches(self.state.phase))

    def working(self) -> bool:
        """Whether the annotation shown is the acting annotator's on an image they claimed."""
        return self.state.own and self.state.image_id in self.claimed

    def show(self) -> None:
        """The box (shown only when claims are offered), its counts and the image list's
        ``claimed by you`` filter."""
        offered = self.offered()
        acting = self.state.acting_id
        self.box.setVisible(offered)
        self.button.setEnabled(offered and acting is not None)
        self.action.setEnabled(offered and acting is not None)
        self.claimed = (self.annotate.claimed(acting, self.state.phase)
                        if offered and acting is not None else {})
        if offered and acting is not None:
            done = sum(self.claimed.values())
            self.summary.setText(f"{len(self.claimed)} image(s) claimed by you in this phase, "
                                 f"{done} finished.")
        else:
            self.summary.setText("Say who you are (You are) to be given images."
                                 if offered else "")
        if self.state.shown:
            self.claims_changed.emit(list(self.claimed) if offered else None)

    def next(self) -> int | None:
        """Claim the acting annotator's next image and show it; its id, or ``None`` (the
        reason is in :attr:`notice`)."""
        acting = self.state.acting_id
        if acting is None or not self.offered():
            return None
        self.writer.commit_pending()
        claim = self.annotate.next_claim(acting, self.state.phase)
        self.notice.setText(claim.message)
        self.notice.setVisible(bool(claim.message))
        if claim.image_id is None:
            self.show()
            self.message.setText(claim.message)
            return None
        if self.state.rater_id != acting:
            self.people.select_annotator(acting)  # your own annotation, editable
        self.show()
        self.open_requested.emit(claim.image_id)  # (the page shows it)
        return claim.image_id
