"""The application layer: one module per job, combining the store with the engines.

Every domain rule lives here once (e.g. "an edit reopens a submitted annotation" in
:mod:`.annotating`, "a rating session needs two images" in :mod:`.rating`); the GUI's gateway
and the CLI call these modules and hold no rules of their own. Undoable intents are Qt-free
command objects (:mod:`.commands`). Nothing here imports Qt.
"""
