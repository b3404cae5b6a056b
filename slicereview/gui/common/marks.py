"""The marks of the image list's rows (:mod:`.browser`): an annotation status is a shape and a
word, so colour is never the only cue; the status box filters by them."""

from __future__ import annotations

from PySide6.QtGui import QColor

#: The marker of an image given to the annotator shown by the low-agreement rule.
ASSIGNED_MARK = "⚑ given to you: low agreement"
#: The status box's entry for the images the acting annotator claimed (batches handed out
#: by claims, :mod:`slicereview.gui.annotate.claims`).
CLAIMED_MARK = "◆ claimed by you"
#: Annotation status words and their marks (shape, so colour is never the only cue).
STATUS_MARKS = {"not started": "○", "in progress": "◐", "submitted": "✓",
                "nothing to annotate": "∅", "returned": "↩"}
STATUS_COLOURS = {"not started": QColor(90, 90, 90), "in progress": QColor(0, 90, 170),
                  "submitted": QColor(0, 120, 60), "nothing to annotate": QColor(100, 100, 100),
                  "returned": QColor(190, 70, 0)}
