"""Models in the project: the project model that learns from accepted work (docs/models.md).

* :mod:`.training_set` — the accepted images and their truth (gold, or the consensus of the
  accepted annotations) as label images;
* :mod:`.pixels` — an image's grey pixels, read as the viewer reads them;
* :mod:`.project_model` — training a version (with its held-out score), storing it, status;
* :mod:`.project_predict` — a version's predictions of images.
"""
