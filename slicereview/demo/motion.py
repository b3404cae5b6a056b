"""Simulated MRI motion artifacts (k-space phase errors) of known severity, for the demo.

A patient who moves during a 2-D acquisition shifts the object between phase-encoding lines.
A translation by ``d`` pixels along the phase-encoding axis multiplies those k-space lines by
``exp(-2πi·k·d / N)``; the mixed lines give the familiar ghosting and blurring. We corrupt a
random fraction of the lines with random shifts; ``strength`` in ``[0, 1]`` scales both the
fraction of moved lines and the size of the shifts, so a larger strength is a more severe
artifact (the demo's ground truth for simulated raters).
"""

from __future__ import annotations

import numpy as np


def simulate_motion(image: np.ndarray, strength: float, seed: int = 0,
                    *, axis: int = 0) -> np.ndarray:
    """Return ``image`` with a motion artifact of the given ``strength``.

    Parameters
    ----------
    image
        ``(H, W)`` real-valued slice.
    strength
        0 leaves the image unchanged (up to float rounding); 1 moves up to 40 % of the
        phase-encoding lines by up to 6 pixels.
    seed
        Seeds which lines move and by how much (deterministic).
    axis
        The phase-encoding axis (0: rows of k-space are phase-encoding lines).

    Returns
    -------
    ``(H, W)`` float64 magnitude image.

    Example
    -------
    >>> img = np.zeros((32, 32)); img[8:24, 8:24] = 100.0
    >>> bool(np.allclose(simulate_motion(img, 0.0), img))
    True
    >>> float(np.abs(simulate_motion(img, 1.0, seed=1) - img).mean()) > 1.0
    True
    """
    img = np.asarray(image, dtype=np.float64)
    if strength <= 0:
        return img.copy()
    rng = np.random.default_rng(seed)
    work = img if axis == 0 else img.T
    rows, cols = work.shape
    k = np.fft.fftshift(np.fft.fft2(work))
    moved = np.asarray(rng.random(rows) < 0.4 * strength)
    moved[rows // 2 - 2: rows // 2 + 3] = False  # the centre of k-space is acquired at rest
    # Each moved phase-encoding line k was acquired with the object translated by (dy_k, dx_k);
    # a translation multiplies k-space by exp(-2πi (f_y·dy + f_x·dx)).
    dy = rng.normal(0.0, 3.0 * strength, size=rows) * moved
    dx = rng.normal(0.0, 3.0 * strength, size=rows) * moved
    fy = np.fft.fftshift(np.fft.fftfreq(rows))
    fx = np.fft.fftshift(np.fft.fftfreq(cols))
    phase = np.exp(-2j * np.pi * ((fy * dy)[:, None] + np.outer(dx, fx)))
    out = np.abs(np.fft.ifft2(np.fft.ifftshift(k * phase)))
    return out if axis == 0 else out.T
