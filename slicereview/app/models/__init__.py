"""Models as raters (docs/models.md): a model's rater, its predictions stored as its finished
annotations, predictions imported from files or a PACS, and an ONNX model run on a project's
images. One module per job:

* :mod:`.raters` — the model rater (get or create) and the rule that a model is never counted
  as a person (:func:`~.raters.people`, :func:`~.raters.is_person`);
* :mod:`.predictions` — one image's prediction stored as the model's annotation;
"""
