"""Run an ONNX model in-process on the CPU: its card, tiled inference, hostile files refused.

The model runs with onnxruntime (MIT) on its CPU execution provider, in a process of its own
under a memory limit (:mod:`.child`), so a hostile or broken model file ends in one sentence
(a :class:`~.errors.ModelError`), never a crash of the program or unbounded memory. Importing
this package imports neither onnxruntime nor onnx; the inference process does.

* :mod:`.card` — the model card (JSON): :func:`parse_card`, :func:`load_card`,
  :class:`ModelCard`;
* :mod:`.session` — :func:`open_model` checks the file and its declared inputs and outputs
  and starts the inference process: :class:`OnnxModel`, :class:`RunLimits`;
* :mod:`.tiled` — :func:`predict`: scaling, tiles, resizing, channels, blending; returns a
  :class:`~slicereview.engines.prediction.Prediction`;
* :mod:`.errors` — one class per kind of refusal.

Example (a model file is needed; the tests build small ones with the ``onnx`` package)::

    card = load_card("bac.card.json")
    with open_model("bac.onnx", card) as model:
        prediction = predict(model, pixels, progress=report, cancelled=asked_to_stop)
    prediction.probability  # float32 (H, W) in [0, 1]
    prediction.labels       # uint8 (H, W): 1 certain, 2 uncertain

>>> parse_card({}).name
Traceback (most recent call last):
...
slicereview.engines.inference.errors.CardError: The model card has no field `name`.
"""

from slicereview.engines.inference.card import ModelCard, load_card, parse_card
from slicereview.engines.inference.errors import (
    CardError,
    ModelCrashedError,
    ModelError,
    ModelInputError,
    ModelMemoryError,
    ModelOutputError,
    ModelTooLargeError,
    NotOnnxError,
)
from slicereview.engines.inference.session import (
    DEFAULT_RUN_LIMITS,
    OnnxModel,
    RunLimits,
    open_model,
)
from slicereview.engines.inference.tiled import predict, scale_image

__all__ = [
    "DEFAULT_RUN_LIMITS",
    "CardError",
    "ModelCard",
    "ModelCrashedError",
    "ModelError",
    "ModelInputError",
    "ModelMemoryError",
    "ModelOutputError",
    "ModelTooLargeError",
    "NotOnnxError",
    "OnnxModel",
    "RunLimits",
    "load_card",
    "open_model",
    "parse_card",
    "predict",
    "scale_image",
]
