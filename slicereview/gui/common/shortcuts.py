"""Every key of slicereview in one table: the main window's menus, the rating and the annotation
pages, and the mouse gestures of the image views.

The main window's actions (:mod:`slicereview.gui.window.actions`), the annotate page's tool actions
(:mod:`slicereview.gui.annotate.panel`) and the rating view's answer keys
(:mod:`slicereview.gui.rate.compare_view`) are made from these tables, and Help ▸ Keyboard
shortcuts (F1) lists them (:func:`shortcut_rows`), so the list cannot drift from the keys.

Action rows are ``(name, menu text, shortcut(s), tooltip)``; a shortcut is a key-sequence
string, a list of them, a ``QKeySequence.StandardKey`` or ``""`` (none).
"""

from __future__ import annotations

from PySide6.QtGui import QKeySequence

_K = QKeySequence.StandardKey

#: A shortcut: a key-sequence string, a list of them, a standard key, or ``""`` (none).
Keys = str | list[str] | QKeySequence.StandardKey
ActionRow = tuple[str, str, Keys, str]

#: The main window's menu actions by menu; each is connected to ``MainWindow.on_<name>``.
MAIN_ACTIONS: dict[str, list[ActionRow]] = {
    "File": [
        ("new_project", "&New project…", _K.New, "Create an empty project file"),
        ("open_project", "&Open project…", _K.Open, "Open a project file (.srproj)"),
        ("connect_server", "&Connect to server…", "",
         "Open a project on a PostgreSQL server (a postgresql:// URL)"),
        ("open_demo", "Open &demo project", "", "Build (first time) and open the demo project"),
        ("import_files", "&Import images…", "Ctrl+I",
         "Add DICOM, NIfTI, NRRD, MHA/MHD, PNG, TIFF or JPEG files"),
        ("import_folder", "Import &folder…", "Ctrl+Shift+I", "Add every image below a folder"),
        ("import_pacs", "Import from &PACS…", "",
         "List a PACS's studies over DICOMweb and import the ones you choose"),
        ("relink", "&Relink moved files…", "", "Find missing image files below a new folder"),
        ("export_package", "&Export work package…", "",
         "Write one annotator's work (a batch or all) as a zip for another machine"),
        ("merge_package", "&Merge work package…", "",
         "Take an annotator's returned work package back into this project"),
        ("close_project", "&Close project", _K.Close, "Close the project (everything is saved)"),
        ("quit", "&Quit", _K.Quit, "Quit slicereview (everything is saved)"),
    ],
    "View": [
        ("fit", "&Fit to window", "F", "Fit the image to the view"),
        ("actual_size", "&1:1", "1", "One image pixel per screen pixel"),
        ("zoom_in", "Zoom &in", "+", "Zoom in"),
        ("zoom_out", "Zoom &out", "-", "Zoom out"),
        ("invert", "&Invert", "I", "Invert the grey scale"),
        ("auto_window", "&Automatic window", "A", "Window from the 1st to the 99.5th percentile"),
        ("brighter", "&Brighter", "B", "Brighter (lower the window centre)"),
        ("darker", "&Darker", "Shift+B", "Darker (raise the window centre)"),
        ("more_contrast", "&More contrast", "C", "Narrow the window"),
        ("less_contrast", "&Less contrast", "Shift+C", "Widen the window"),
        ("next_image", "&Next image", "PgDown", "Next image in the list"),
        ("previous_image", "&Previous image", "PgUp", "Previous image in the list"),
        ("next_slice", "Next &slice", "Ctrl+PgDown", "Next slice of this volume"),
        ("previous_slice", "Previous s&lice", "Ctrl+PgUp", "Previous slice of this volume"),
    ],
    "Help": [
        ("shortcuts", "&Keyboard shortcuts", "F1", "Every key and mouse gesture"),
        ("about", "&About slicereview", "", "Version, licences and data attribution"),
    ],
}

#: Mouse gestures of every image view (View, Rate and Annotate pages).
VIEW_MOUSE: list[tuple[str, str]] = [
    ("Wheel", "zoom about the cursor"),
    ("Ctrl+wheel", "Annotate, with the brush or the eraser: its radius"),
    ("Shift+click, right click", "Annotate, assisted tools: a negative prompt (not the "
                                 "object); Shift+drag: a background scribble"),
    ("Left-drag", "pan (Annotate: hold Space, or middle-drag)"),
    ("Right-drag", "window/level: horizontal = width, vertical = centre; across the whole "
                   "view ≈ the image's value range"),
    ("Double-click", "fit the image to the view"),
]

#: The rating view's answer keys (key name as in ``Qt.Key.Key_<name>``) and what they answer.
RATE_ANSWER_KEYS: dict[str, str] = {"Left": "left", "Right": "right", "Down": "same",
                                    "Space": "same"}
#: The rating view's keys for the list (it handles them itself, they are not actions).
RATE_KEYS: list[tuple[str, str]] = [
    ("Left", "← the left image shows more of the property"),
    ("Right", "→ the right image shows more"),
    ("Down, Space", "↓ no difference (same)"),
    ("1 … 9", "grade (classification sessions)"),
    ("Backspace, Ctrl+Z", "undo the last answer or grade"),
    ("Ctrl+Shift+Z, Ctrl+Y", "redo: store the undone answer or grade again"),
    ("B, Shift+B, C, Shift+C", "brighter, darker, more / less contrast (both images)"),
]

#: The annotate page's tool actions (active while the page is shown); the main window's View
#: keys (F 1 + - I A B C, PgUp/PgDown) are not reused here (so the brush is Shift+D, next to
#: freehand's D, and the eraser Shift+E, as in GIMP).
ANNOTATE_ACTIONS: list[ActionRow] = [
    ("polygon", "Polygon", "P", "Polygon tool: click vertices; close on the first vertex, "
     "double-click or Enter; Backspace removes the last vertex; Esc cancels"),
    ("freehand", "Freehand", "D", "Freehand tool: press and drag an outline"),
    ("edit", "Edit", "E", "Edit: select, drag vertices or the polygon; Ctrl+click or "
     "double-click an edge inserts a vertex; Shift+click deletes a vertex"),
    ("brush", "Brush", "Shift+D", "Brush: paint onto the selected polygon (with none selected, "
     "a new one); Shift+drag erases; each stroke is one undo step"),
    ("eraser", "Eraser", "Shift+E", "Eraser: erase from the selected polygon (with none "
     "selected or away from it, from every polygon under the stroke); Shift+drag paints"),
    ("points", "Points", "K", "Points (assisted): click the object, Shift+click or right-click "
     "outside it; the outline follows each click; Enter accepts, Esc discards"),
    ("scribble", "Scribble", "S", "Scribble (assisted): drag over the object, Shift+drag over "
     "the background; random-walker probabilities; Enter accepts, Esc discards"),
    ("box", "Box", "R", "Box (assisted): drag a box round the object, then click (Shift: "
     "outside) to correct; Enter accepts, Esc discards"),
    ("trace", "Trace", "T", "Trace (assisted): click along a vessel in order; a tube of the "
     "vessel's width follows the ridge; Enter accepts, Esc discards"),
    ("wand", "Wand", "W", "Wand (assisted): click a region of like grey values; more clicks "
     "add to it; Enter accepts, Esc discards"),
    ("refine", "Refine", "Shift+R", "Refine (assisted): click a polygon (or choose it with one "
     "selected) to snap its outline to the edges near it; Enter accepts, Esc discards"),
    ("smaller_brush", "Brush −", ",", "Smaller brush and eraser (or Ctrl+wheel over the "
     "image)"),
    ("larger_brush", "Brush +", ".", "Larger brush and eraser (or Ctrl+wheel over the image)"),
    ("toggle_certainty", "Certain/uncertain", "U", "Toggle the selected polygon certain (red) / "
     "uncertain (green); with none selected, the colour new polygons get"),
    ("delete", "Delete", "Delete", "Delete the selected polygon"),
    ("finish", "Close polygon / accept", ["Return", "Enter"], "Close the polygon being drawn; "
     "with an assisted tool, accept its outline (one undo step)"),
    ("remove_last", "Remove last vertex", "Backspace", "Remove the last vertex placed (assisted "
     "tools: the last click or stroke)"),
    ("cancel", "Cancel", "Esc", "Cancel the polygon being drawn or the assisted tool's outline, "
     "or deselect"),
    ("less_fill", "Fill −", "[", "Less fill opacity"),
    ("more_fill", "Fill +", "]", "More fill opacity"),
    ("overlay", "Overlay", "O", "Show or hide the polygons"),
    ("outline", "Outline only", "Shift+O", "Draw outlines without fill"),
    ("submit", "Submit", "Ctrl+Return", "Submit this annotation and go to the next image"),
    ("claim_next", "Next image to annotate", "N", "Claim the next image of your batch that "
     "still needs you (a batch handed out by claims)"),
]
ANNOTATE_UNDO = ["Ctrl+Z"]

#: The Review tab's keys (caught by :mod:`slicereview.gui.review.keys` before the main
#: window's View keys while the tab is shown).
REVIEW_KEYS: list[tuple[str, str]] = [
    ("PgDown, PgUp", "next / previous image of the queue"),
    ("Tab, Shift+Tab", "next / previous box, worst α first; zooms to it with a margin"),
    ("A", "accept the selected annotator's annotation"),
    ("R", "reject it (a reason tag or text is required)"),
    ("E", "send it to expert review"),
    ("Ctrl+Return", "accept every undecided annotation of the image and go to the next"),
    ("Shift+P", "pin a comment to the current box"),
    ("P, then click", "pin a comment to a point (Esc cancels)"),
    ("H (hold)", "hide every overlay while held"),
    ("M", "heat map: off → relaxed → strict"),
    ("K", "consensus layer: off → majority vote → STAPLE"),
    ("O", "the model's outline layer on / off (the queue's Model)"),
    ("S", "side by side: one linked pane per annotator"),
    ("Ctrl+Z, Ctrl+Shift+Z", "undo / redo the last decision or pin"),
]
ANNOTATE_REDO = ["Ctrl+Shift+Z", "Ctrl+Y"]


def sequences(keys: Keys) -> list[QKeySequence]:
    """The key sequences of a shortcut (none for ``""``)."""
    if isinstance(keys, list):
        return [QKeySequence(k) for k in keys]
    if isinstance(keys, str):
        return [QKeySequence(keys)] if keys else []
    return [QKeySequence(keys)]


def key_text(keys: Keys) -> str:
    """``"Ctrl+Shift+I"``-style text of one shortcut or a list of them (``""`` for none)."""
    fmt = QKeySequence.SequenceFormat.PortableText
    return ", ".join(k.toString(fmt) for k in sequences(keys))


def _what(text: str, tip: str) -> str:
    text = text.replace("&", "").rstrip("…")
    return tip if tip.lower().startswith(text.lower()) else f"{text} — {tip}"


def shortcut_rows() -> list[tuple[str, str, str]]:
    """``(section, keys, what)`` for every key and gesture, in the order of the F1 list."""
    rows: list[tuple[str, str, str]] = []
    for section in ("View", "File", "Help"):
        rows += [(section, key_text(keys), _what(text, tip))
                 for _name, text, keys, tip in MAIN_ACTIONS[section] if keys]
        if section == "View":
            rows += [("View (mouse)", gesture, what) for gesture, what in VIEW_MOUSE]
    rows += [("Rate", keys, what) for keys, what in RATE_KEYS]
    rows += [("Annotate", key_text(keys), _what(text, tip))
             for _name, text, keys, tip in ANNOTATE_ACTIONS]
    rows += [("Annotate", key_text(ANNOTATE_UNDO), "Undo"),
             ("Annotate", key_text(ANNOTATE_REDO), "Redo")]
    rows += [("Review", keys, what) for keys, what in REVIEW_KEYS]
    return rows
