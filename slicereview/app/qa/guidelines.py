"""Living guidelines: versioned Markdown edited by the owner, what changed since an annotator
last looked, and reviewers' findings promoted into entries with an image crop. Rules held here:

* **only the owner edits**; every edit that changes the text is a new version (the old ones
  stay, so every annotation and review can name the version in force — the store records it
  when the annotation or review is created);
* **what changed** — :func:`guideline_changes` gives an annotator the unified diff of the
  Markdown between the version they last looked at and the newest one (the whole text the
  first time) and records that they looked;
* **promoting a finding** — :func:`promote_review` turns a review's comment or reason tags into
  an entry of a new version: a Markdown bullet under ``## Examples`` that names the case and
  points at the stored crop (``![example](entry:ID)``); the crop is the pin's box, else the
  reviewed annotation's extent with a margin, windowed to 8 bits with the annotation's outline
  drawn (certain red, uncertain green), stored as PNG bytes in the entry.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> owner, ann = project.raters.add("owner", "owner"), project.raters.add("ann")
>>> edit_guidelines(project, owner, "# BAC\\nOutline each vessel.\\n")
1
>>> guideline_changes(project, ann).version
1
>>> edit_guidelines(project, owner, "# BAC\\nOutline each calcified vessel.\\n")
2
>>> print(guideline_changes(project, ann).diff)   # doctest: +NORMALIZE_WHITESPACE
--- guidelines v1
+++ guidelines v2
@@ -1,2 +1,2 @@
 # BAC
-Outline each vessel.
+Outline each calcified vessel.
>>> guideline_changes(project, ann).changed
False
>>> project.close()
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import numpy as np

from slicereview.model import Role
from slicereview.store import Project

EXAMPLES_HEADING = "## Examples"
MARGIN = 16


@dataclass(frozen=True)
class GuidelineChanges:
    """What an annotator is told: the newest ``version`` (``None``: no guidelines yet), the
    version they had seen (``None``: never), the ``text`` and the unified ``diff``."""

    version: int | None
    last_seen: int | None
    text: str
    diff: str

    @property
    def changed(self) -> bool:
        return self.version is not None and self.version != self.last_seen


def edit_guidelines(project: Project, owner_id: int, text: str) -> int:
    """The owner saves the guidelines; returns the version in force (a new one when the text
    changed)."""
    if project.raters.get(owner_id).role is not Role.OWNER:
        raise PermissionError("only the task owner edits the guidelines")
    current = project.guidelines.get()
    if current is not None and current[1] == text:
        return current[0]
    return project.guidelines.add(text)


def guideline_changes(project: Project, rater_id: int, *, record: bool = True
                      ) -> GuidelineChanges:
    """What changed since ``rater_id`` last looked; records that they looked now."""
    current = project.guidelines.get()
    last = project.guidelines.last_seen(rater_id)
    if current is None:
        return GuidelineChanges(None, last, "", "")
    version, text = current
    old = project.guidelines.get(last) if last is not None else None
    before, name = (old[1], f"guidelines v{last}") if old else ("", "guidelines (not read)")
    diff = "".join(difflib.unified_diff(
        before.splitlines(keepends=True), text.splitlines(keepends=True), name,
        f"guidelines v{version}")) if last != version else ""
    if record and last != version:
        project.guidelines.mark_seen(rater_id, version)
    return GuidelineChanges(version, last, text, diff)


def _crop_box(project: Project, review_id: int) -> tuple[int, int, int, int]:
    review = project.reviews.get(review_id)
    image = project.images.get(review.image_id)
    if review.pin_kind == "box":
        r0, c0, r1, c1 = (int(round(v)) for v in review.pin_at)
    elif review.pin_kind == "point":
        x, y = review.pin_at
        r0, c0, r1, c1 = int(y) - 2 * MARGIN, int(x) - 2 * MARGIN, int(y) + 2 * MARGIN, int(
            x) + 2 * MARGIN
    elif review.annotation_id is not None and project.polygons.of(review.annotation_id):
        v = np.concatenate([p.vertices for p in project.polygons.of(review.annotation_id)])
        c0, r0 = np.floor(v.min(axis=0)).astype(int) - MARGIN
        c1, r1 = np.ceil(v.max(axis=0)).astype(int) + MARGIN
    else:
        r0, c0, r1, c1 = 0, 0, image.rows, image.cols
    r0, c0 = max(int(r0), 0), max(int(c0), 0)
    r1, c1 = min(int(r1), image.rows), min(int(c1), image.cols)
    if r1 <= r0 or c1 <= c0:
        raise ValueError("the crop lies outside the image")
    return r0, c0, r1, c1


def example_crop(project: Project, review_id: int) -> bytes:
    """PNG bytes of the image region a review is about, outline drawn (see module doc)."""
    from PIL import Image as PILImage
    from scipy import ndimage

    from slicereview.app.images.limits import ImportedFiles, project_limits
    from slicereview.engines.imaging.display import apply_window, auto_window
    from slicereview.engines.imaging.loader import load_display
    from slicereview.engines.masks import rasterize

    review = project.reviews.get(review_id)
    image = project.images.get(review.image_id)
    from slicereview.app.images.pacs import Locator

    path = Locator(project).file_of(image)  # (a PACS image: its cache)
    # The decoding rule of the viewer: checked against the import, in-process only if safe.
    in_process = ImportedFiles(project).check(image, path)
    shown = load_display(path, image, isolated=not in_process, limits=project_limits(project))
    window = shown.presets[0] if shown.presets else auto_window(shown.data)
    gray = apply_window(shown.data, window, invert=shown.invert)
    rgb = gray if gray.ndim == 3 else np.repeat(gray[..., None], 3, axis=2)
    rgb = np.array(rgb, dtype=np.uint8)
    if review.annotation_id is not None:
        labels = rasterize(project.polygons.of(review.annotation_id), (image.rows, image.cols))
        for value, colour in ((2, (0, 220, 0)), (1, (230, 0, 0))):
            region = labels == value
            edge = region & ~ndimage.binary_erosion(region)
            rgb[edge] = colour
    r0, c0, r1, c1 = _crop_box(project, review_id)
    import io

    buf = io.BytesIO()
    PILImage.fromarray(np.ascontiguousarray(rgb[r0:r1, c0:c1])).save(buf, format="PNG")
    return buf.getvalue()


def promote_review(project: Project, owner_id: int, review_id: int, text: str | None = None,
                   *, with_crop: bool = True) -> tuple[int, int]:
    """Promote a review's comment or reason tags into a guideline entry with an image crop;
    returns ``(new version, entry id)``."""
    review = project.reviews.get(review_id)
    said = text if text is not None else "; ".join(
        [*review.tags, *([review.comment.strip()] if review.comment.strip() else [])])
    if not said.strip():
        raise ValueError("this review says nothing to promote: no comment and no reason tag")
    crop = example_crop(project, review_id) if with_crop else None
    case = project.images.get(review.image_id).case_id
    current = project.guidelines.get()
    body = current[1].rstrip("\n") if current else "# Guidelines"
    with project.transaction():
        entry_version = (current[0] if current else 0) + 1
        entry = project.guidelines.add_entry(entry_version, said, review_id=review_id,
                                             crop_png=crop)
        if EXAMPLES_HEADING not in body:
            body += f"\n\n{EXAMPLES_HEADING}\n"
        picture = f" ![example](entry:{entry})" if crop else ""
        version = edit_guidelines(
            project, owner_id, f"{body}\n- {said} (case {case}, review {review_id}){picture}\n")
    assert version == entry_version
    return version, entry
