"""What the viewer shows: a display copy of one image, its window presets, thumbnails.

A :class:`DisplayImage` holds pixel values in a fast display dtype (integers kept as integers:
``uint8``/``uint16`` when they fit, ``int32`` for signed data, ``float32`` only when the values are
not integers) and the *linear* windows a viewer applies through its levels. Non-linear VOI LUTs
are already applied to ``data`` by the loader. MONOCHROME1 images keep their stored polarity and
set ``invert``: the viewer inverts *after* windowing (flip its LUT), as DICOM requires.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from slicereview.engines.imaging.errors import UnreadableImageError

#: Percentiles of the automatic window (lower, upper).
AUTO_PERCENTILES = (1.0, 99.5)
#: At most this many pixels are looked at for the automatic window (a regular subsample).
AUTO_SAMPLE = 250_000


@dataclass(frozen=True)
class WindowPreset:
    """A linear window: ``center`` and ``width`` in the units of ``DisplayImage.data``.

    Example
    -------
    >>> WindowPreset("lung", -600.0, 1500.0).levels()
    (-1350.0, 150.0)
    """

    name: str
    center: float
    width: float

    def levels(self) -> tuple[float, float]:
        """``(low, high)`` display levels: values <= low are black, >= high white.

        Uses the simple ``center ± width / 2`` form (what pyqtgraph's ``setLevels`` expects);
        it differs from DICOM's ``c - 0.5 ± (w - 1) / 2`` by at most one unit.
        """
        half = self.width / 2.0
        return (float(self.center - half), float(self.center + half))

    @classmethod
    def custom(cls, center: float, width: float) -> WindowPreset:
        """A window set by hand (no name)."""
        return cls("", float(center), float(width))

    def close_to(self, other: WindowPreset | None, tolerance: float = 1e-6) -> bool:
        """Same centre and width within ``tolerance`` of the larger width (names ignored).

        >>> WindowPreset.custom(40, 400).close_to(WindowPreset("soft tissue", 40, 400))
        True
        """
        if other is None:
            return False
        scale = max(abs(self.width), abs(other.width), 1e-12)
        return (abs(self.center - other.center) <= tolerance * scale
                and abs(self.width - other.width) <= tolerance * scale)

    @classmethod
    def from_levels(cls, name: str, low: float, high: float) -> WindowPreset:
        """The preset whose :meth:`levels` are ``(low, high)``."""
        return cls(name, (float(low) + float(high)) / 2.0, float(high) - float(low))


@dataclass(frozen=True, eq=False)
class DisplayImage:
    """One image ready to show.

    Attributes
    ----------
    data
        ``(H, W)`` numeric array (``uint8``, ``uint16``, ``int32`` or ``float32``), or
        ``(H, W, 3)`` ``uint8`` RGB. Row-major: ``data[r, c]`` is row ``r``, column ``c``.
        Read-only.
    presets
        Windows from the file (several DICOM windows give several presets); may be empty.
    invert
        Show inverted after windowing (DICOM MONOCHROME1).
    spacing
        ``(row, col)`` pixel spacing in mm (1.0 when unknown; see ``spacing_source``).
    spacing_source
        ``"PixelSpacing"``, ``"ImagerPixelSpacing"``, ``"SimpleITK"`` or ``"fallback 1.0"``.
    value_unit
        Unit of the values for the pixel readout (``"HU"`` for CT, ``""`` when unknown).
    description
        One line for the status bar, e.g. ``"MG 2864×4432 uint16 MONOCHROME2"`` (width × height).
    flips
        ``(flip_rows, flip_cols)``: how a viewer flips its *display* for radiological
        orientation (see :mod:`.orientation`); pixel coordinates are never changed.
    warning
        A remark the viewer shows with the image, e.g. that some pixels were not finite
        (:func:`finite`); ``""`` when there is none.
    """

    data: np.ndarray
    presets: list[WindowPreset] = field(default_factory=list)
    invert: bool = False
    spacing: tuple[float, float] = (1.0, 1.0)
    spacing_source: str = "fallback 1.0"
    value_unit: str = ""
    description: str = ""
    flips: tuple[bool, bool] = (False, False)
    warning: str = ""

    def __post_init__(self) -> None:
        data = np.asarray(self.data)
        if data.ndim == 3 and (data.shape[2] != 3 or data.dtype != np.uint8):
            raise ValueError(f"colour display data must be (H, W, 3) uint8, got {data.shape} "
                             f"{data.dtype}")
        if data.ndim not in (2, 3):
            raise ValueError(f"display data must be (H, W) or (H, W, 3), got {data.shape}")
        if data.flags.writeable:
            data = data.view()
            data.setflags(write=False)
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "presets", list(self.presets))

    @property
    def is_rgb(self) -> bool:
        return self.data.ndim == 3

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)``."""
        return (int(self.data.shape[0]), int(self.data.shape[1]))

    def auto_window(self) -> WindowPreset:
        """The 1–99.5 % percentile window, computed on a subsample (see :func:`auto_window`)."""
        return auto_window(self.data)

    def default_window(self) -> WindowPreset:
        """The first preset from the file, else the automatic window."""
        return self.presets[0] if self.presets else self.auto_window()


def finite(display: DisplayImage, name: str) -> DisplayImage:
    """``display`` with no pixel that is infinite or NaN (float data only).

    The rule (docs/reliability.md): an image with no finite pixel at all (every pixel
    +inf, e.g. from a rescale slope of 1e39 or a NIfTI ``scl_slope`` of 1e38) has nothing to
    show and is refused with :class:`~.errors.UnreadableImageError`, naming ``name``. An
    image with *some* such pixels (a NaN background of a statistical map) is shown: NaN and
    -inf as the lowest finite value, +inf as the highest, with a :attr:`~DisplayImage.warning`
    that says how many pixels that is; the import stores the warning and lists it.

    Example
    -------
    >>> d = DisplayImage(np.array([[1.0, np.nan], [np.inf, 3.0]], np.float32))
    >>> shown = finite(d, "map.nii")
    >>> shown.data.tolist(), shown.warning
    ([[1.0, 1.0], [3.0, 3.0]], '2 of 4 pixels (50 %) are not finite numbers (infinite or NaN); they are shown as the lowest or highest finite value.')
    >>> finite(DisplayImage(np.full((2, 2), np.inf, np.float32)), "slope.dcm")
    Traceback (most recent call last):
    ...
    slicereview.engines.imaging.errors.UnreadableImageError: slope.dcm has no finite pixel value: every pixel is infinite or not a number (e.g. from a huge rescale slope or scl_slope), so there is nothing to show; correct the file's scaling or leave it out.
    """  # noqa: E501
    data = display.data
    if data.dtype.kind != "f":
        return display
    ok = np.isfinite(data)
    bad = int(ok.size - np.count_nonzero(ok))
    if not bad:
        return display
    if bad == ok.size:
        from slicereview.engines.imaging.errors import UnreadableImageError

        raise UnreadableImageError(
            f"{name} has no finite pixel value: every pixel is infinite or not a number "
            "(e.g. from a huge rescale slope or scl_slope), so there is nothing to show; "
            "correct the file's scaling or leave it out.")
    values = data[ok]
    low, high = values.min(), values.max()
    fixed = np.where(ok, data, low).astype(data.dtype, copy=False)
    fixed[data == np.inf] = high
    from slicereview.shares import percent

    warning = (f"{bad} of {ok.size} pixels ({percent(bad / ok.size)}) are not finite numbers "
               "(infinite or NaN); they are shown as the lowest or highest finite value.")
    return replace(display, data=fixed, warning=warning,
                   description=f"{display.description} ({bad} pixel{'' if bad == 1 else 's'} "
                   "not finite)".strip())


def complex_refusal(name: str) -> UnreadableImageError:
    """The refusal of a file ``name`` whose pixels are complex numbers (see
    :func:`real_valued`)."""
    from slicereview.engines.imaging.errors import UnreadableImageError

    return UnreadableImageError(
        f"{name} holds complex-valued pixels (a real and an imaginary part each, as MRI raw "
        "data does), which slicereview does not show: a grey image would have to pick their "
        "magnitude, phase, real or imaginary part; save the one you mean to annotate as a "
        "real-valued image and import that.")


def real_valued(data: np.ndarray, name: str) -> np.ndarray:
    """``data`` if its values are real numbers; complex data (a TIFF, NIfTI or NRRD of complex
    numbers) is refused with :func:`complex_refusal`, never shown as its real part.

    The rule (docs/reliability.md): every reader calls this on the array its decoder gave,
    before any cast to a display dtype (where numpy would drop the imaginary part).

    Example
    -------
    >>> real_valued(np.ones((2, 2), np.float32), "a.tif").dtype.name
    'float32'
    >>> real_valued(np.ones((2, 2), np.complex64), "k-space.tif")
    Traceback (most recent call last):
    ...
    slicereview.engines.imaging.errors.UnreadableImageError: k-space.tif holds complex-valued pixels (a real and an imaginary part each, as MRI raw data does), which slicereview does not show: a grey image would have to pick their magnitude, phase, real or imaginary part; save the one you mean to annotate as a real-valued image and import that.
    """  # noqa: E501
    if np.asarray(data).dtype.kind == "c":
        raise complex_refusal(name)
    return data


def _subsample(data: np.ndarray, limit: int = AUTO_SAMPLE) -> np.ndarray:
    """A regular grid subsample of at most about ``limit`` pixels (no copy of the full image)."""
    h, w = data.shape[:2]
    step = max(1, int(np.ceil(np.sqrt(h * w / limit))))
    return data[::step, ::step]


def auto_window(data: np.ndarray, percentiles: tuple[float, float] = AUTO_PERCENTILES
                ) -> WindowPreset:
    """The window spanning the ``percentiles`` of ``data``'s values, named ``"auto"``.

    Looks at a regular subsample of at most :data:`AUTO_SAMPLE` pixels, so it takes about a
    millisecond even on a 4.5k × 2.9k mammogram. NaNs are ignored. Degenerate cases: a constant
    image (or all-NaN) gives width 1 around its value (0 for all-NaN), never width 0. RGB data
    gives the fixed window 0–255.

    Example
    -------
    >>> import numpy as np
    >>> auto_window(np.arange(1001, dtype=np.uint16).reshape(7, 143))
    WindowPreset(name='auto', center=502.5, width=985.0)
    """
    data = np.asarray(data)
    if data.ndim == 3:
        return WindowPreset("auto", 127.5, 255.0)
    sample = _subsample(data)
    if sample.dtype.kind == "f":
        sample = sample[np.isfinite(sample)]
    if sample.size == 0:
        return WindowPreset("auto", 0.0, 1.0)
    low, high = _percentiles(sample, percentiles)
    if not high > low:
        return WindowPreset("auto", float(low), 1.0)
    return WindowPreset.from_levels("auto", round(float(low), 6), round(float(high), 6))


def _percentiles(values: np.ndarray, qs: tuple[float, float]) -> tuple[float, float]:
    """``np.percentile(values, qs)`` (its default linear method) from one sort: numpy's own
    imports ``numpy.ma`` on first use, ~60 ms of the window's start-up.

    >>> v = np.array([5, 1, 9, 3, 7], np.uint16)
    >>> _percentiles(v, (1, 99.5)) == tuple(np.percentile(v, (1, 99.5)))
    True
    """
    ordered = np.sort(values, axis=None).astype(np.float64)
    out = []
    for q in qs:
        position = q / 100.0 * (ordered.size - 1)
        below = int(np.floor(position))
        above = min(below + 1, ordered.size - 1)
        out.append(float(ordered[below] + (position - below) * (ordered[above] - ordered[below])))
    return out[0], out[1]


def apply_window(data: np.ndarray, window: WindowPreset, *, invert: bool = False) -> np.ndarray:
    """Linear windowing to ``uint8``: ``(H, W)`` -> ``(H, W)`` uint8, inverted afterwards if asked.

    RGB ``(H, W, 3)`` uint8 data is returned unchanged (inverted if asked).

    Example
    -------
    >>> import numpy as np
    >>> apply_window(np.array([[0, 50, 100]]), WindowPreset("w", 50, 100)).tolist()
    [[0, 127, 255]]
    """
    data = np.asarray(data)
    if data.ndim == 3:
        return (255 - data) if invert else data
    low, high = window.levels()
    scale = 255.0 / max(high - low, 1e-12)
    out = np.clip((data.astype(np.float32) - np.float32(low)) * np.float32(scale), 0, 255)
    out = out.astype(np.uint8)
    return (255 - out) if invert else out


def thumbnail(display: DisplayImage, size: int = 128) -> np.ndarray:
    """A small ``uint8`` picture of ``display`` for the project browser.

    The longer side becomes ``size`` pixels (images smaller than that are not enlarged); the
    image is windowed with its first preset or the automatic window and inverted when
    ``display.invert`` is set. Returns ``(h, w)`` uint8, or ``(h, w, 3)`` uint8 for RGB.

    Example
    -------
    >>> import numpy as np
    >>> d = DisplayImage(np.arange(512 * 256, dtype=np.uint16).reshape(512, 256))
    >>> thumbnail(d, 64).shape
    (64, 32)
    """
    from PIL import Image as PILImage

    data = display.data
    h, w = data.shape[:2]
    factor = min(1.0, size / max(h, w))
    out_shape = (max(1, round(h * factor)), max(1, round(w * factor)))
    # Decimate first so that resizing a 27 MB mammogram stays cheap; the anti-aliased resize
    # of the decimated image still looks smooth at thumbnail size. Pillow's Lanczos filter
    # (widened by the reduction factor, so it anti-aliases) rather than skimage's resize:
    # importing skimage.transform took ~0.5 s of the first thumbnail in the decoding child.
    step = max(1, int(min(h / out_shape[0], w / out_shape[1]) // 2))
    small = data[::step, ::step]
    windowed = apply_window(small, display.default_window(), invert=display.invert)
    if windowed.shape[:2] != out_shape:
        resized = PILImage.fromarray(np.ascontiguousarray(windowed)).resize(
            (out_shape[1], out_shape[0]), PILImage.Resampling.LANCZOS)
        windowed = np.asarray(resized)
    return np.ascontiguousarray(windowed)


def to_rgb8(rgb: np.ndarray, maximum: float | None = None) -> np.ndarray:
    """Colour data ``(H, W, C >= 3)`` as ``(H, W, 3)`` uint8 (alpha dropped).

    Values are scaled by ``255 / maximum``: ``maximum`` given (e.g. ``2**BitsStored - 1``), else
    the integer type's maximum, else 1.0 for float data in 0..1, else the data's own maximum.
    NaN becomes 0. Scaled in float32, so a 16-bit RGB image needs no float64 copy.

    Example
    -------
    >>> to_rgb8(np.array([[[0, 32768, 65535, 7]]], np.uint16)).tolist()
    [[[0, 128, 255]]]
    """
    rgb = rgb[..., :3]
    if rgb.dtype == np.uint8 and maximum is None:
        return np.ascontiguousarray(rgb)
    if maximum is None:
        if rgb.dtype.kind in "iu":
            maximum = float(np.iinfo(rgb.dtype).max)
        else:
            top = float(np.nanmax(rgb)) if rgb.size else 1.0
            maximum = 1.0 if top <= 1.0 else top
    scaled = np.nan_to_num(rgb.astype(np.float32) * np.float32(255.0 / maximum))
    return np.clip(np.rint(scaled), 0, 255).astype(np.uint8)
