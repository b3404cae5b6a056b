"""Radiological display orientation of volume slices.

Volumes are stored and indexed as they are in the file (row 0 of a slice is row 0 of the
array); only the *display* is flipped so that a slice looks the way radiologists expect:

* axial: anterior up, patient right on the screen's left;
* coronal: superior up, patient right on the screen's left;
* sagittal: superior up, anterior on the screen's left.

Directions are SimpleITK's, in LPS world coordinates (x to the patient's left, y posterior,
z superior). Pixel coordinates (and so polygons) never change: the viewer flips its axes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: For the world axis (0 x, 1 y, 2 z) that dominates a slice's *row* direction, the direction
#: that should point down the screen: posterior (+y) for axial, inferior (-z) otherwise.
_DOWN = {0: np.array([1.0, 0, 0]), 1: np.array([0, 1.0, 0]), 2: np.array([0, 0, -1.0])}
#: For the axis that dominates the *column* direction, the one that should point right:
#: patient left (+x), posterior (+y, sagittal) or superior (+z, unusual).
_RIGHT = {0: np.array([1.0, 0, 0]), 1: np.array([0, 1.0, 0]), 2: np.array([0, 0, 1.0])}


def display_flips(row_direction: Sequence[float] | None,
                  col_direction: Sequence[float] | None) -> tuple[bool, bool]:
    """``(flip_rows, flip_cols)`` that give radiological orientation for a slice.

    Parameters
    ----------
    row_direction, col_direction
        World (LPS) unit vectors of increasing row / column index of the slice, as stored by
        the importer in ``Image.info``; ``None`` (a plain 2-D image) means no flip.

    Example
    -------
    An axial slice of a NIfTI file in RAS orientation (SimpleITK direction diag(-1, -1, 1)):
    rows run anterior-ward and columns to the patient's right, so both are flipped.

    >>> display_flips([0, -1, 0], [-1, 0, 0])
    (True, True)
    >>> display_flips([0, 1, 0], [1, 0, 0])  # DICOM-style axial: already radiological
    (False, False)
    >>> display_flips(None, None)
    (False, False)
    """
    if row_direction is None or col_direction is None:
        return False, False
    row = np.asarray(row_direction, dtype=float)[:3]
    col = np.asarray(col_direction, dtype=float)[:3]
    flip_rows = float(row @ _DOWN[int(np.argmax(np.abs(row)))]) < 0
    flip_cols = float(col @ _RIGHT[int(np.argmax(np.abs(col)))]) < 0
    return flip_rows, flip_cols
