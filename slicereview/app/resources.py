"""Find the data files shipped in the package ``slicereview.resources`` (Qt-free).

The top-level ``resources/`` folder of the source tree is installed as the package
``slicereview.resources`` (see ``pyproject.toml``), so the same code finds the files in a
source checkout, an editable install, a wheel and a PyInstaller bundle.

Files: ``slicereview.svg`` (the icon), ``slicereview-{16,32,64,256}.png`` (rendered from it by
``packaging/render_icons.py``) and ``slicereview.qss`` (the Qt stylesheet).

Example
-------
>>> from slicereview.app.resources import read_text, resource_path
>>> resource_path("slicereview.svg").name
'slicereview.svg'
>>> "QWidget" in read_text("slicereview.qss")
True
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

_PACKAGE = "slicereview.resources"

#: The icon sizes, in pixels, of the shipped PNGs.
ICON_SIZES = (16, 32, 64, 256)


def resource_path(name: str) -> Path:
    """The path of the shipped resource file ``name`` (e.g. ``"slicereview.qss"``).

    Parameters
    ----------
    name
        A plain file name inside ``slicereview.resources``; no folders.

    Raises
    ------
    ValueError
        ``name`` contains a path separator or is ``..``.
    FileNotFoundError
        No such resource is installed (a broken installation).
    """
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        raise ValueError(f"resource names are plain file names, not {name!r}")
    traversable = _folder().joinpath(name)
    if not traversable.is_file():
        raise FileNotFoundError(
            f"resource {name!r} is missing from {_PACKAGE}; the installation is incomplete "
            "(reinstall slicereview)."
        )
    # Every supported installation (wheel, editable, PyInstaller one-folder) keeps the package
    # as a folder on disk, so the traversable is a real path that Qt can open by name. A zip
    # import would need a temporary copy whose lifetime a returned path cannot express.
    if not isinstance(traversable, Path):
        raise RuntimeError(f"{_PACKAGE} is not a folder on disk ({traversable!r})")
    return traversable


def _folder():
    """The resources folder: the installed package, or ``resources/`` of a source checkout.

    The fallback serves a source tree that shadows the installed package (``python -m
    slicereview`` or ``python -c`` run from the repository root puts the checkout first on
    ``sys.path``, and there ``resources/`` is not below ``slicereview/``).
    """
    try:
        return resources.files(_PACKAGE)
    except ModuleNotFoundError:
        checkout = Path(__file__).resolve().parents[2] / "resources"
        if (checkout / "__init__.py").is_file():
            return checkout
        raise


def read_text(name: str, encoding: str = "utf-8") -> str:
    """The text of the shipped resource ``name`` (e.g. the stylesheet).

    Example
    -------
    >>> read_text("slicereview.svg").lstrip().startswith("<?xml")
    True
    """
    return resource_path(name).read_text(encoding=encoding)


def icon_paths() -> dict[int, Path]:
    """``{size: path}`` of the application icon's PNGs, smallest first (for a QIcon)."""
    return {size: resource_path(f"slicereview-{size}.png") for size in ICON_SIZES}
