"""De-identified copies of image files: what every login but the owner's, every work package
and every ``--deidentify`` export gets instead of the original (docs/privacy.md).

Values in, values out: a file's bytes and a secret *seed* in, a :class:`~.copy.SharedCopy` out
(the copy's bytes, or its header and the range of the original that follows unchanged, the
UIDs it replaced, and warnings for the owner). Nothing here reads a project: the application
layer (:mod:`slicereview.app.privacy`) decides who gets which copy and the store keeps the UID
map where only the owner can read it.

* **DICOM** (:mod:`.dicom`): the PS3.15 Basic Application Level Confidentiality Profile with
  an allow-list of the attributes display needs (:mod:`.dicom_rules`), identifying values
  replaced by dicognito seeded with the project's seed (UIDs remapped consistently), private
  tags and everything else removed; the pixel data is the original's, byte for byte.
* **NIfTI, PNG, TIFF, JPEG, MetaImage, NRRD** (:mod:`.headers`, :mod:`.text_headers`): the
  header fields and chunks that can carry a name are cleared; pixels untouched.

:func:`deidentify` picks the rule by format.
"""

from slicereview.engines.deid.copy import RULES_VERSION, NotShareableError, SharedCopy, deidentify

__all__ = ["RULES_VERSION", "NotShareableError", "SharedCopy", "deidentify"]
