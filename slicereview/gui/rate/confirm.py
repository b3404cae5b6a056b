"""Asking before an undo deletes an answer that is not this window's own recent work.

The Rate tab's undo takes back the last answer or grade. From this window's history (answers
given since the session was opened here) it happens at once, as in any editor. When it would
delete a *stored* answer — one given before this window opened the session, perhaps by another
rater — or when the session is finished, the user is asked first, with whose answer it is and
what it was; the dialog defaults to *No*.
"""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from slicereview.gui.gateway import ProjectGateway
from slicereview.model import Answer, Grade


def describe_last_answer(gateway: ProjectGateway, session_id: int) -> str | None:
    """One sentence naming the session's rater and its last answer or grade; ``None`` if it
    has none."""
    rs = gateway.rating.run(session_id)
    grades = rs.grades()
    last: Answer | Grade | None = list(grades.values())[-1] if grades else rs.last_answer()
    if last is None:
        return None
    project = gateway.open_project
    owner = project.raters.get(rs.session.rater_id).name
    who = getattr(last, "rater_id", None)
    rater = project.raters.get(who).name if who is not None else owner
    state = "finished" if rs.done else "in progress"
    if isinstance(last, Grade):
        what = (f"grade “{rs.labels[last.grade]}” of "
                f"{gateway.image(last.image_id).case_id}")
    else:
        left, right = (gateway.image(i).case_id for i in (last.left, last.right))
        what = {"left": f"{left} shows more than {right}",
                "right": f"{right} shows more than {left}",
                "same": f"no difference between {left} and {right}"}[str(last.answer)]
    stamp = last.answered_at if isinstance(last, Answer) else last.graded_at
    when = f" (given {stamp.replace('T', ' ')[:16]} UTC)" if stamp else ""
    noun = "grade" if isinstance(last, Grade) else "answer"
    whose = f"{owner}'s session" if rater == owner else f"{rater} in {owner}'s session"
    return f"the last {noun} of {whose} “{rs.session.name}” ({state}): {what}{when}"


def confirm_undo(parent: QWidget, gateway: ProjectGateway, session_id: int) -> bool:
    """Ask whether to delete the session's last stored answer; ``True`` = go ahead."""
    text = describe_last_answer(gateway, session_id)
    if text is None:
        return False
    grade = str(gateway.rating.run(session_id).kind) == "classify"
    box = QMessageBox(QMessageBox.Icon.Question,
                      "Undo last grade" if grade else "Undo last answer",
                      f"Delete {text}?", QMessageBox.StandardButton.Yes
                      | QMessageBox.StandardButton.No, parent)
    box.setObjectName("confirm_undo")
    noun = "grade" if grade else "answer"
    if gateway.rating.history(session_id).can_undo:  # given in this window: say so
        box.setInformativeText(f"You gave this {noun} in this window; deleting it reopens the "
                               "session at that comparison (Ctrl+Shift+Z stores it again).")
    else:
        box.setInformativeText(f"This {noun} was not given in this window just now; deleting "
                               "it reopens the session at that comparison.")
    box.setDefaultButton(QMessageBox.StandardButton.No)
    return box.exec() == QMessageBox.StandardButton.Yes
