"""Load one image of a project for display: :func:`load_display`.

Dispatches on the image's stored format to the DICOM (:mod:`.dicom`), volume (:mod:`.volume`)
or raster (:mod:`.raster`) readers. Volumes are read once with SimpleITK and kept in a small LRU
cache so that scrolling through slices does not re-read the file.

Example
-------
>>> import tempfile, pathlib
>>> from pydicom.data import get_testdata_file
>>> from slicereview.store import Project
>>> from slicereview.app.images.importing import import_paths
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with Project.create(folder / "p.srproj") as project:
...     _ = import_paths(project, [get_testdata_file("CT_small.dcm")])
...     image = project.images.all()[0]
...     display = load_display(project.images.resolve(image.path), image)
>>> display.data.shape, display.data.dtype.name, display.value_unit
((128, 128), 'int32', 'HU')
"""

from __future__ import annotations

from pathlib import Path

from slicereview.engines.dicomweb.cache import RemoteInstance
from slicereview.engines.imaging import isolated as child
from slicereview.engines.imaging.display import DisplayImage, finite
from slicereview.engines.imaging.errors import UnreadableImageError
from slicereview.engines.imaging.fetched import FetchedFile, localise
from slicereview.engines.imaging.formats import DICOM, RASTER_FORMATS, SITK_FORMATS
from slicereview.engines.imaging.limits import DEFAULT_LIMITS, Limits
from slicereview.model import Image


def load_display(path: str | Path | RemoteInstance | FetchedFile, image: Image, *,
                 limits: Limits = DEFAULT_LIMITS, isolated: bool = False,
                 large_as_pyramid: bool = False) -> DisplayImage:
    """Read ``image`` (one frame or slice) from the file at ``path`` and make its display copy.

    Parameters
    ----------
    path
        The file's absolute path (``project.images.resolve(image.path)``), or the
        :class:`~slicereview.engines.dicomweb.cache.RemoteInstance` of an image on a PACS:
        its cache file is read, and when it is missing the image is fetched again and
        decoded in the decoding child (a PACS's answer is untrusted input); or a
        :class:`~.fetched.FetchedFile` (an image held in a server project), read from its
        local copy (fetched first when needed).
    image
        The project's :class:`~slicereview.model.Image`: its ``format`` picks the reader,
        ``frame`` the DICOM frame, ``axis``/``slice_index`` the volume slice.
    limits
        Size limits checked from the header before decoding (:mod:`.limits`).
    isolated
        Decode in the child process of :mod:`.isolated` (a decoder crash becomes a
        :class:`~.errors.DecoderCrashedError` instead of ending the program). Use it for files
        not yet shown once, e.g. thumbnails when a project opens
        (:func:`.isolated.thumbnail` sends only the thumbnail back).
    large_as_pyramid
        An image of more than :data:`.pyramid.LARGE_PIXELS` pixels (by the project's
        ``rows``/``cols``) is decoded in the child, always, and comes back as a
        :class:`~.pyramid.PyramidDisplay` (the viewer's way: its process never holds the
        whole image).

    Returns
    -------
    DisplayImage
        See :class:`~slicereview.engines.imaging.display.DisplayImage` for dtypes and windows.

    Raises
    ------
    FileNotFoundError
        The file is missing (relink the project).
    MissingCodecError
        A DICOM file is compressed and its decoder is not installed; the message names the
        package to install.
    UnreadableImageError
        The file is damaged or not what the project says it is, or no pixel of the image
        is a finite number (:func:`~.display.finite`; some non-finite pixels are shown with
        a ``warning``).
    DecoderCrashedError
        The file crashed the child process (now or earlier in this process: it is then
        refused at once, never decoded in-process).
    """
    path = localise(path)  # an image held elsewhere (a server's database): its local copy
    if isinstance(path, RemoteInstance):
        if not path.cached():  # fetched again in the child (a PACS's answer is untrusted)
            return child.display(path, image, limits)
        path = path.path
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"image file not found: {path} (moved? use relink)")
    child.refuse_known_crash(path)  # a file that crashed the child never reaches a decoder here
    if large_as_pyramid:
        from slicereview.engines.imaging import pyramid

        if pyramid.is_large(image.rows, image.cols):
            return pyramid.load(path, image, limits)
    if isolated:
        return child.display(path, image, limits)
    return finite(_read(path, image, limits), path.name)


def _read(path: Path, image: Image, limits: Limits) -> DisplayImage:
    # Each reader (pydicom, SimpleITK, scikit-image) loads on first use, not at start-up.
    if image.format == DICOM:
        from slicereview.engines.imaging import dicom

        return dicom.load(path, image.frame, limits)
    if image.format in SITK_FORMATS:
        from slicereview.engines.imaging import volume

        return volume.load(path, image.axis, image.slice_index, limits)
    if image.format in RASTER_FORMATS:
        from slicereview.engines.imaging import raster

        return raster.load(path, limits)
    raise UnreadableImageError(
        f"{path.name} has the unknown image format {image.format!r} in the project; "
        "import the file again.")


def clear_cache() -> None:
    """Forget the cached volumes (e.g. after closing a project)."""
    from slicereview.engines.imaging import volume

    volume.clear_cache()
