"""Pure engines: geometry and masks, imaging, agreement, ranking, review.

Values in, values out: no project file, no database, no Qt. Usable from scripts and tests with
no project and no ``QApplication``; the application layer (:mod:`slicereview.app`) combines
them with the store.
"""
