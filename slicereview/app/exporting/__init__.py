"""Exporting annotations: label masks, NIfTI and COCO (:mod:`.masks`) and consensus masks
(:mod:`.consensus`)."""
