"""Which model made a DICOM SEG: the rule ``predictions import --dicomweb`` keeps a SEG by.

A PACS holds the SEG objects of several algorithms and of people in the same studies, so a
pull for the model ``NAME[@VERSION]`` keeps only the SEGs that model made
(:func:`made_by`, :func:`matches`), read from the SEG's header:

* each item of the Segment Sequence says how its segment was made: Segment Algorithm Type
  ``MANUAL`` (a person), or ``AUTOMATIC`` / ``SEMIAUTOMATIC`` with the Segment Algorithm Name
  (else the Algorithm Name of its Segmentation Algorithm Identification Sequence, else the
  SEG's Series Description);
* the version a segment states is the Algorithm Version of its Segmentation Algorithm
  Identification Sequence; a segment without that sequence states the SEG's Software
  Versions (its equipment's) instead. ``unversioned`` (what slicereview's own SEG export
  writes for a model without a version) and an empty value state none;
* a SEG is the model's when it has segments and **every** segment was made by an algorithm
  whose name equals ``NAME`` (case and surrounding spaces ignored) and whose stated version
  equals ``VERSION`` exactly, a SEG stating no version being the model's only when no
  version was asked for (and one stating a version only when one was). A model rater is one
  name and version, so SEGs of two versions never become one rater's work.

slicereview's own SEG export writes a model's unedited predictions as ``AUTOMATIC`` segments
with the model's name and version (:func:`slicereview.app.exporting.seg.segment_algorithm`),
so its SEGs pulled back match the model they came from.

Example
-------
>>> from pydicom import Dataset
>>> seg, item = Dataset(), Dataset()
>>> item.SegmentAlgorithmType, item.SegmentAlgorithmName = "AUTOMATIC", "Lung-Net"
>>> seg.SegmentSequence, seg.SoftwareVersions = [item], "2.1"
>>> made_by(seg)
[('Lung-Net', '2.1')]
>>> matches(seg, "lung-net", "2.1"), matches(seg, "lung-net", None)
(True, False)
>>> maker_text(seg)
'"Lung-Net 2.1"'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydicom import Dataset

#: What slicereview's SEG export writes as the version of a model without one.
NO_VERSION = "unversioned"


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    try:  # (a multi-valued element: Software Versions may have several)
        return "/".join(str(v).strip() for v in value)  # type: ignore[attr-defined]
    except TypeError:
        return str(value).strip()


def made_by(seg: Dataset) -> list[tuple[str, str] | None]:
    """One entry per segment of ``seg``: ``None`` for a segment drawn by hand (MANUAL, or no
    algorithm type), else ``(name, version)`` of the algorithm that made it (``version``
    ``""``: none stated); see the module text."""
    out: list[tuple[str, str] | None] = []
    for item in seg.get("SegmentSequence", None) or []:
        kind = _text(item.get("SegmentAlgorithmType", "")).upper()
        if kind not in ("AUTOMATIC", "SEMIAUTOMATIC"):
            out.append(None)
            continue
        ident = (item.get("SegmentationAlgorithmIdentificationSequence", None) or [None])[0]
        name = (_text(item.get("SegmentAlgorithmName", ""))
                or (_text(ident.get("AlgorithmName", "")) if ident is not None else "")
                or _text(seg.get("SeriesDescription", "")))
        version = (_text(ident.get("AlgorithmVersion", "")) if ident is not None
                   else _text(seg.get("SoftwareVersions", "")))
        out.append((name, "" if version.lower() == NO_VERSION else version))
    return out


def matches(seg: Dataset, name: str, version: str | None) -> bool:
    """Whether the model ``name`` (``version``: ``None`` or ``""`` for none) made every
    segment of ``seg`` (see the module text)."""
    makers = made_by(seg)
    want = (name.strip().casefold(), (version or "").strip())
    return bool(makers) and all(m is not None and (m[0].casefold(), m[1]) == want
                                for m in makers)


def maker_text(seg: Dataset) -> str:
    """Who made ``seg``'s segments, for a report line: ``"net 2"``, ``"a", "b 1"``, ``a
    person (MANUAL segments)`` or ``no segments``."""
    makers = made_by(seg)
    if not makers:
        return "no segments"
    names = list(dict.fromkeys(
        "a person (MANUAL segments)" if m is None else f'"{" ".join(p for p in m if p)}"'
        for m in makers))
    return ", ".join(names)
