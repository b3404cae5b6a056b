"""An image's grey pixels for a model, read by the viewer's rule, prepared where the project is.

A project's connection stays in the thread that opened it, while the project model reads
images in worker threads. So :func:`pixel_reader` looks up, in the caller's thread, where an
image is read from and whether its file may be decoded in this process (the viewer's rule,
:class:`~slicereview.app.images.limits.ImportedFiles`: an image whose file changed since its
import is never decoded, any other not known safe is decoded in the decoding child), and
returns a reader that touches no project.

Pixels are the image's stored values as a 2-D array: an RGB image becomes the mean of its
channels; a MONOCHROME1 image (shown inverted) is inverted (``max - value``), so that bright
always means dense, as the tissue mask expects.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from slicereview.model import Image
from slicereview.store import Project

Reader = Callable[[], np.ndarray]


def pixel_reader(project: Project, image: Image, *, locator: object | None = None,
                 files: object | None = None) -> Reader:
    """A reader of ``image``'s grey pixels ``(rows, cols)`` that touches no project (see the
    module text); ``locator``, ``files``: a :class:`~slicereview.app.images.pacs.Locator` and
    :class:`~slicereview.app.images.limits.ImportedFiles` to share between images."""
    from slicereview.app.images.limits import ImportedFiles, project_limits
    from slicereview.app.images.pacs import Locator

    where = (locator if isinstance(locator, Locator) else Locator(project)).file_of(image)
    checker = files if isinstance(files, ImportedFiles) else ImportedFiles(project)
    limits = project_limits(project)

    def read() -> np.ndarray:
        from slicereview.engines.imaging.loader import load_display

        in_process = checker.check(image, where)
        shown = load_display(where, image, isolated=not in_process, limits=limits)
        return grey(shown.data, shown.invert)

    return read


def grey(data: np.ndarray, invert: bool = False) -> np.ndarray:
    """A displayed image's values as a grey 2-D array (see the module text).

    >>> grey(np.array([[[0, 3, 6]]], np.uint8))
    array([[3.]], dtype=float32)
    >>> grey(np.array([[0, 10]], np.uint16), invert=True)
    array([[10,  0]], dtype=uint16)
    """
    x = np.asarray(data)
    if x.ndim == 3:
        x = x.astype(np.float32).mean(axis=2)
    if invert:
        top = x.max() if x.size else 0
        x = (top - x).astype(x.dtype, copy=False)
    return x
