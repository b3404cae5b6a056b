"""The application layer: one sub-package (or module) per job, combining the store with the
engines.

Every domain rule lives here once (e.g. "an edit reopens a submitted annotation" in
:mod:`.annotating`, "a rating session needs two images" in :mod:`.rating.sessions`); the GUI's
gateway and the CLI call these modules and hold no rules of their own. Undoable intents are
Qt-free command objects (:mod:`.commands`). Nothing here imports Qt.

* :mod:`.rating` — rating sessions and the running rating engine;
* :mod:`.annotating` — editing and finishing annotations;
* :mod:`.review` — the review queue, decisions and pins;
* :mod:`.qa` — the QA workflow: batches, gold, low agreement, repeats, guidelines, work packages;
* :mod:`.report` — the owner's report (HTML and the Overview tab);
* :mod:`.images` — importing and relinking image files, decoding limits;
* :mod:`.exporting` — label and consensus masks;
* :mod:`.commands`, :mod:`.people`, :mod:`.errors`, :mod:`.environment`, :mod:`.resources` —
  shared by several jobs and front ends.
"""
