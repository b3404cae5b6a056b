"""Owner ▸ Privacy…: what everyone but the owner gets of the images (docs/privacy.md).

Two choices, each a pair of radio buttons: what work packages and the logins of annotators and
reviewers on a server get (*de-identified copies*, the default, or *the original files*), and
how images are named to them (*case ids only*, the default, or *file names*). **Apply…**
first shows what changes in a confirmation (the same sentence as ``slicereview privacy``) and
records the change only on *Yes*, with who made it and when; the log of every change is
listed. Below, the images to check before sharing them: text burned into the pixels
(BurnedInAnnotation YES, ultrasound, secondary captures), which de-identification cannot
remove. The same as ``slicereview privacy PROJECT [--share ...] [--names ...]``.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from slicereview.gui.gateway.owner import OwnerService
from slicereview.model import SharedImages, SharedNames


class PrivacyDialog(QDialog):
    def __init__(self, owner: OwnerService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Privacy: what others get of the images")
        self.owner = owner
        self.deidentified = QRadioButton("De-identified copies (patient data removed, UIDs "
                                         "replaced; the pixels unchanged)")
        self.originals = QRadioButton("The original files, with every patient attribute")
        self.case_ids = QRadioButton("Case ids only (C000012)")
        self.file_names = QRadioButton("File names (which can carry a patient's name)")
        self.groups = []
        layout = QVBoxLayout(self)
        self.state = QLabel()
        self.state.setWordWrap(True)
        layout.addWidget(self.state)
        for title, buttons in (("Work packages, annotators' and reviewers' logins get",
                                (self.deidentified, self.originals)),
                               ("Images are named to annotators by",
                                (self.case_ids, self.file_names))):
            box, group = QGroupBox(title), QButtonGroup(self)
            inner = QVBoxLayout(box)
            for button in buttons:
                group.addButton(button)
                inner.addWidget(button)
            self.groups.append(group)
            layout.addWidget(box)
        self.apply_button = QPushButton("Apply…")
        self.apply_button.clicked.connect(self.apply)
        layout.addWidget(self.apply_button)
        self.message = QLabel()
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        layout.addWidget(QLabel("Check before sharing (text burned into the pixels is not "
                                "removed):"))
        self.flagged = QPlainTextEdit()
        self.flagged.setReadOnly(True)
        layout.addWidget(self.flagged, 1)
        layout.addWidget(QLabel("Changes:"))
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumHeight(90)
        layout.addWidget(self.log)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout.addWidget(close)
        self.refresh()
        self.resize(620, 560)

    def refresh(self) -> None:
        setting, log, flagged = self.owner.privacy()
        (self.deidentified if setting.images is SharedImages.DEIDENTIFIED
         else self.originals).setChecked(True)
        (self.case_ids if setting.names is SharedNames.CASE_IDS else self.file_names
         ).setChecked(True)
        said = ("de-identified copies" if setting.images is SharedImages.DEIDENTIFIED
                else "the ORIGINAL files")
        self.state.setText(f"In force: others get {said}, named by "
                           f"{'case id' if setting.names is SharedNames.CASE_IDS else 'file name'}"
                           + (f" (set by {setting.changed_by}, {setting.changed_at[:16]} UTC)."
                              if setting.changed_by else " (the default)."))
        self.flagged.setPlainText("\n".join(f"{case}: {'; '.join(why)}" for case, why in flagged)
                                  or "No image is flagged.")
        self.log.setPlainText("\n".join(
            f"{e.changed_at[:16]} UTC  {e.changed_by}: {e.images}, {e.names}" for e in log)
            or "Never changed: the default is in force.")

    def chosen(self) -> tuple[SharedImages, SharedNames]:
        return (SharedImages.DEIDENTIFIED if self.deidentified.isChecked()
                else SharedImages.ORIGINALS,
                SharedNames.CASE_IDS if self.case_ids.isChecked() else SharedNames.FILE_NAMES)

    def apply(self) -> None:
        images, names = self.chosen()
        text = self.owner.describe_privacy_change(images, names)
        if text == "Nothing changes.":
            self.message.setText(text)
            return
        box = QMessageBox(QMessageBox.Icon.Warning, "Change what others get", text,
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setObjectName("confirm_privacy")
        box.setInformativeText("The change is recorded with your name and the time.")
        box.setDefaultButton(QMessageBox.StandardButton.No)
        if box.exec() != QMessageBox.StandardButton.Yes:
            self.message.setText("Nothing was changed.")
            self.refresh()
            return
        try:
            self.owner.change_privacy(images, names)
        except PermissionError as exc:
            self.message.setText(str(exc))
            return
        self.message.setText("Saved.")
        self.refresh()
