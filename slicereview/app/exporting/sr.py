"""Export each DICOM image's review as a DICOM Comprehensive SR (``--format dicom-sr``).

Per image that came from DICOM and has anything to report: the decision in force on each
annotation of the phase and round (accepted, rejected with reason tags and comment, expert
review requested) with its reviewer and annotator, the reviewers' pinned comments with their
image coordinates (SCOORD), the image's α values (the latest computed, strict and relaxed) and,
for rated images, each rating session's grade or rank. Each SR references the source image
and, where the same export wrote one (``--masks`` with ``--reports``), the annotation's SEG.
The tree and why a Comprehensive SR: :mod:`slicereview.engines.dicomout.sr`.

Images not from DICOM are skipped with one line and counted; so are images with nothing to
report. Files: ``{case_id}.sr.dcm`` and ``index.csv``.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from pydicom import Dataset

from slicereview.app.exporting.identity import digest
from slicereview.app.exporting.masks import Progress, _unique, safe_name
from slicereview.app.exporting.seg import DicomReport, Sources, describe
from slicereview.app.images.pacs import Credentials
from slicereview.model import Image, Phase, SessionKind
from slicereview.store import Project


def export_sr(project: Project, out_dir: str | Path, *, phase: Phase | str = Phase.FORMAL,
              round: int = 1, segs: DicomReport | None = None,
              credentials: Credentials | None = None, progress: Progress | None = None,
              sources: Sources | None = None) -> DicomReport:
    """Write one SR per DICOM image with a review, pins, α values or ratings (see the module
    text); ``segs``: the SEG export of the same run, whose objects the decisions reference."""
    from slicereview.engines.dicomout.sr import review_report

    sources = sources or Sources(project, credentials)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    report = DicomReport()
    ratings = _ratings(project)
    annotations = {a.id: a for a in project.annotations.all(phase=phase, round=round)}
    decisions = project.reviews.current_decisions(list(annotations))
    images = project.images.all()
    description = describe(project, str(phase), round)
    rows = []
    for k, image in enumerate(images):
        if progress is not None:
            progress(k, len(images), image.case_id)
        review = _review(project, image, annotations, decisions,
                         tuple(ratings.get(image.id, ())), segs)
        if review is None:
            continue
        source = sources.header(image)
        if isinstance(source, str):
            report.skip(image.case_id, source)
            continue
        evidence = _evidence(review, segs)
        uid = sources.uid("sr", image.id, phase, round, source.SOPInstanceUID,
                          digest(text=repr(review)))
        try:
            sr = review_report(source, review, sources.authoring(
                source, "review", f"{description}, review"), evidence=evidence, sop_uid=uid)
        except Exception as exc:  # one image must not stop the export
            report.skip(image.case_id, " ".join(str(exc).split())[:200])
            continue
        path = _unique(out, safe_name(image.case_id), ".sr.dcm", report.files)
        sr.save_as(path, enforce_file_format=True)
        report.files.append(path)
        report.written += 1
        report.objects[image.id] = sr
        rows.append([path.name, image.case_id, sr.SOPInstanceUID, source.SOPInstanceUID,
                     len(review.decisions), len(review.pins)])
    if progress is not None:
        progress(len(images), len(images), "")
    path = out / "index.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["file", "case_id", "sop_instance_uid", "source_sop_instance_uid",
                         "decisions", "pins"])
        writer.writerows(rows)
    report.files.append(path)
    return report


def _review(project: Project, image: Image, annotations: dict, decisions: dict,
            ratings: tuple, segs: DicomReport | None):
    from slicereview.engines.dicomout.sr import ImageReview, Pin, ReviewDecision, SegReference

    names: dict[int, str] = {}

    def name(rater_id: int) -> str:
        if rater_id not in names:
            names[rater_id] = project.raters.get(rater_id).name
        return names[rater_id]

    found = []
    for annotation_id, decision in decisions.items():
        annotation = annotations[annotation_id]
        if annotation.image_id != image.id or decision.decision is None:
            continue
        seg = (segs.objects.get(annotation_id) if segs is not None else None)
        ref = None if seg is None else SegReference(
            str(seg.SOPClassUID), str(seg.SOPInstanceUID),
            tuple(int(s.SegmentNumber) for s in seg.SegmentSequence))
        found.append(ReviewDecision(name(annotation.rater_id), name(decision.reviewer_id),
                                    str(decision.decision), tuple(decision.tags),
                                    decision.comment, ref))
    pins = tuple(Pin(str(r.pin_kind), tuple(float(v) for v in r.pin_at), r.comment,
                     name(r.reviewer_id), tuple(r.tags))
                 for r in project.reviews.all(image_id=image.id) if r.is_pin)
    features = project.reviews.latest_features(image.id) or {}
    alphas = {key: (math.nan if features.get(key) is None else float(features[key]))
              for key in ("strict_alpha", "relaxed_alpha") if key in features}
    if not (found or pins or alphas or ratings):
        return None
    return ImageReview(tuple(found), pins, alphas, tuple(ratings))


def _evidence(review, segs: DicomReport | None) -> list[Dataset]:
    if segs is None:
        return []
    wanted = {d.seg.sop_instance_uid for d in review.decisions if d.seg is not None}
    return [seg for seg in segs.objects.values() if str(seg.SOPInstanceUID) in wanted]


def _ratings(project: Project) -> dict[int, list]:
    """image id → its grades (classification sessions) and ranks (sort and confidence
    sessions)."""
    from slicereview.app.rating.run import open_run
    from slicereview.engines.dicomout.sr import Rating

    out: dict[int, list] = {}
    for session in project.ratings.sessions():
        if session.kind == SessionKind.CLASSIFY:
            for grade in project.ratings.grades(session.id):
                out.setdefault(grade.image_id, []).append(
                    Rating("grade", session.name, float(grade.grade)))
        elif session.kind in (SessionKind.SORT, SessionKind.CONFIDENCE):
            for row in open_run(project, session.id).rows():
                if row.rank is not None:
                    out.setdefault(row.image_id, []).append(
                        Rating("rank", session.name, float(row.rank)))
    return out
