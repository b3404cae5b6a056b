"""Models as raters (docs/models.md): a model's rater, its predictions stored as its finished
annotations, predictions imported from files or a PACS, and an ONNX model run on a project's
images. One module per job:

* :mod:`.raters` — the model rater (get or create, find by label), the rule that a model is
  never counted as a person (:func:`~.raters.people`, :func:`~.raters.is_person`) and the
  models' counts;
* :mod:`.predictions` — one image's prediction stored as the model's annotation;
* :mod:`.importing` — ``predictions import``: files read, matched and stored;
* :mod:`.pacs_predictions` — ``--dicomweb``: the SEG objects of the project's studies;
* :mod:`.running` — ``predict``: an ONNX model run over the images;
* :mod:`.training_set` — what the project model learns from: the accepted images and their
  truth (gold, or the consensus of the accepted annotations) as label images;
* :mod:`.pixels` — an image's grey pixels for a model, read as the viewer reads them;
* :mod:`.project_model` — the project model: training a version with its held-out score,
  storing it, its status and the retraining rule;
* :mod:`.project_predict` — a version's predictions of images, stored as its model rater's.
"""
