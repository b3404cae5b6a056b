"""Where and within which limits the project's images are decoded.

Two rules, kept here once for the GUI, the CLI and the import:

* **the project's size limits** (:func:`project_limits`): the defaults of
  :class:`~slicereview.engines.imaging.limits.Limits`, with the values a user raised or
  lowered (``slicereview import --max-frame-pixels ...``), so that the viewer reads what the
  import admitted;
* **which images may be decoded in the viewer's own process** (:func:`decodes_in_process`):
  the one frame or slice of each file that the import already decoded without harm in the
  decoding child (:data:`DECODED_AT_IMPORT`). Every other image goes to the child, where a
  decoder that aborts on a damaged file cannot end the program.

This module imports no decoder: the main window imports it before its first paint.

Example
-------
>>> from slicereview.model import Image
>>> first = Image(1, 1, "case", "a.dcm", "dicom", info={DECODED_AT_IMPORT: True})
>>> second = Image(2, 1, "case", "a.dcm", "dicom", frame=1)
>>> decodes_in_process(first), decodes_in_process(second)
(True, False)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from slicereview.engines.imaging.limits import Limits

if TYPE_CHECKING:
    from slicereview.model import Image
    from slicereview.store import Project

#: Image info key: this frame or slice was decoded without harm in the decoding child when it
#: was imported, so the viewer may decode it in its own process (no child start-up on the first
#: image shown). Every other image (other frames of the file, images of older projects) is
#: decoded in the child.
DECODED_AT_IMPORT = "decoded_at_import"

_LIMITS_KEY = "limits"


def decodes_in_process(image: Image) -> bool:
    """True if the viewer may decode ``image`` in its own process (see the module's text)."""
    return bool((image.info or {}).get(DECODED_AT_IMPORT))


def project_limits(project: Project) -> Limits:
    """The project's size limits (:class:`~slicereview.engines.imaging.limits.Limits`): the
    defaults, with the values a user raised or lowered (``slicereview import
    --max-frame-pixels ...``) stored in the project, so that the viewer reads what the import
    admitted."""
    import json

    stored = json.loads(project.meta(_LIMITS_KEY) or "{}")
    known = Limits.__dataclass_fields__
    return Limits(**{k: v for k, v in stored.items() if k in known})


def set_project_limits(project: Project, **changes: float) -> Limits:
    """Store changed limits in the project (one transaction) and return the new limits."""
    import dataclasses
    import json

    limits = dataclasses.replace(project_limits(project), **changes)  # type: ignore[arg-type]
    default = Limits()
    changed = {f.name: getattr(limits, f.name) for f in dataclasses.fields(limits)
               if getattr(limits, f.name) != getattr(default, f.name)}
    project.set_meta(_LIMITS_KEY, json.dumps(changed, sort_keys=True))
    return limits
