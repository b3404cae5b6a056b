"""The main window's Owner menu: the task owner's set-up of the QA workflow.

* **Phases and batches…** (:class:`~slicereview.gui.owner.batches.BatchesDialog`):
  batches per phase from an image set or the images listed in the image list, assignments
  and rules;
* **Gold and onboarding…** (:class:`~slicereview.gui.owner.gold.GoldDialog`): the gold
  standard, annotators' scores against it, the pre-filter and the owner's decision;
* **Guidelines…** (:class:`~slicereview.gui.owner.guideline_editor.GuidelineEditor`): edit
  with a live preview, history with diffs, promote a reviewer's comment;
* **Questions…** (:class:`~slicereview.gui.owner.questions.QuestionsDialog`): the
  classification questions — add, edit, reorder, retire, import and export;
* **Groups…** (:class:`~slicereview.gui.owner.groups.GroupsDialog`): put annotators in
  groups;
* **Audit and selection order…** (:class:`~slicereview.gui.owner.selection.SelectionDialog`):
  the review queue's random audit slots and a batch's selection order;
* **Project model…** (:class:`~slicereview.gui.owner.project_model.ProjectModelDialog`):
  train the project model on the accepted work, its versions' held-out scores, predict;
* **Privacy…** (:class:`~slicereview.gui.owner.privacy.PrivacyDialog`): de-identified copies
  or originals for everyone but the owner, case ids or file names, with a confirmation;
* **Models…** (:class:`~slicereview.gui.owner.models.ModelsDialog`): the model raters,
  importing their predictions, running an ONNX model in the background.

The actions are enabled while a project is open (:class:`OwnerMenu`, a part of the main
window), but for an annotator's login on a server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog

from slicereview.model import Role

if TYPE_CHECKING:
    from slicereview.gui.window.main_window import MainWindow

ITEMS = (("batches", "&Phases and batches…", "Batches per phase, assignments and rules"),
         ("gold", "&Gold and onboarding…", "Gold standard, scores against it, pre-filter"),
         ("guidelines", "Edit g&uidelines…", "Edit the guidelines, history, promote comments"),
         ("questions", "&Questions…", "Classification questions: add, edit, reorder, retire"),
         ("groups", "G&roups…", "Put annotators in groups"),
         ("privacy", "Pri&vacy…", "What others get of the images: de-identified or originals"),
         ("selection", "&Audit and selection order…",
          "Random audit slots of the review queue; the order a batch hands out its images"),
         ("models", "M&odels…", "Model raters: import predictions, run an ONNX model"),
         ("project_model", "Project &model…",
          "Train the project model on the accepted work, its scores, its predictions"))


class OwnerMenu:
    """The Owner menu of ``window``: its actions by name (:attr:`actions`) and the dialog last
    opened (:attr:`dialog`)."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.gateway = window.gateway
        self.dialog: QDialog | None = None
        self.actions: dict[str, QAction] = {}
        menu = window.menuBar().addMenu("&Owner")
        for name, text, tip in ITEMS:
            action = QAction(text, window)
            action.setObjectName(f"action_owner_{name}")
            action.setStatusTip(tip)
            action.setEnabled(False)
            action.triggered.connect(lambda _=False, n=name: self.open(n))
            menu.addAction(action)
            self.actions[name] = action
        self.gateway.project_opened.connect(self._enable)
        self.gateway.project_closed.connect(self._enable)

    def _enable(self, *_args: object) -> None:
        """Enabled with a project open, but for an annotator's login on a server (the owner's
        set-up is the owner's, and the server would refuse its writes)."""
        me = self.gateway.annotate.logged_in() if self.gateway.is_open else None
        annotator = me is not None and me.role is Role.ANNOTATOR
        for action in self.actions.values():
            action.setEnabled(self.gateway.is_open and not annotator)
            action.setToolTip(f"{me.name if me else ''}'s login is an annotator's: the owner's "
                              "set-up is for the project's owner" if annotator else "")

    def open(self, name: str) -> QDialog:
        """Open the dialog of menu item ``name`` (one of :data:`ITEMS`), non-modal."""
        from slicereview.gui.owner.batches import BatchesDialog
        from slicereview.gui.owner.gold import GoldDialog
        from slicereview.gui.owner.groups import GroupsDialog
        from slicereview.gui.owner.guideline_editor import GuidelineEditor
        from slicereview.gui.owner.models import ModelsDialog
        from slicereview.gui.owner.privacy import PrivacyDialog
        from slicereview.gui.owner.project_model import ProjectModelDialog
        from slicereview.gui.owner.questions import QuestionsDialog
        from slicereview.gui.owner.selection import SelectionDialog

        window, owner = self.window, self.gateway.owner
        if name == "batches":
            dialog: QDialog = BatchesDialog(owner, window.browser.image_ids(), window)
        elif name == "gold":
            dialog = GoldDialog(owner, window)
        elif name == "questions":
            dialog = QuestionsDialog(owner, window)
        elif name == "groups":
            dialog = GroupsDialog(owner, window)
        elif name == "privacy":
            dialog = PrivacyDialog(owner, window)
        elif name == "selection":
            dialog = SelectionDialog(owner, window)
        elif name == "models":
            dialog = ModelsDialog(self.gateway.models, window.browser.image_ids, window)
        elif name == "project_model":
            from slicereview.gui.gateway.project_model import ProjectModelService

            dialog = ProjectModelDialog(ProjectModelService(self.gateway), window)
        else:
            dialog = GuidelineEditor(owner, window)
        self.dialog = dialog
        # Closing the dialog hands the keyboard back to the main window (its shortcuts, e.g.
        # F2 on the Annotate tab, need it active; not every window manager or platform does
        # this).
        dialog.finished.connect(lambda _result: window.activateWindow())
        dialog.show()
        return dialog
