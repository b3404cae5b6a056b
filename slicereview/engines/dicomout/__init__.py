"""DICOM objects written from project values: Segmentations (:mod:`.seg`) and review reports as
Comprehensive SR (:mod:`.sr`).

Values in, values out: a source image's data set (its header is enough, no pixel data) and
numpy masks or plain review values in, a :class:`pydicom.Dataset` out. Nothing here reads a
project; :mod:`slicereview.app.exporting.seg` gathers the values. Design choices (codes, the
overlap rule, why a Comprehensive SR) are in docs/dicom.md.
"""
