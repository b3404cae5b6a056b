"""The errors of running an ONNX model: each says in one sentence what happened and what to do.

Every one is a :class:`ModelError` (a ``ValueError``), so a caller that only shows the message
catches that one class. Cancelling is not an error: it raises
:class:`slicereview.engines.prediction.Cancelled`.

>>> issubclass(NotOnnxError, ModelError) and issubclass(ModelError, ValueError)
True
"""

from __future__ import annotations


class ModelError(ValueError):
    """A model file, its card or its run cannot be used; the message says why."""


class CardError(ModelError):
    """The model card is not valid JSON or a field of it is wrong (the message names it)."""


class NotOnnxError(ModelError):
    """The file is not an ONNX model onnxruntime can read (random bytes, truncated, another
    format)."""


class ModelTooLargeError(ModelError):
    """The file is larger than the limit; it was refused before being read."""


class ModelInputError(ModelError):
    """The model's input is not what the card and the tiling can give it (rank, channels,
    size, type)."""


class ModelOutputError(ModelError):
    """The model's output is unusable: the wrong shape or rank, NaN or infinite values, or
    values outside [0, 1] where the card says probabilities."""


class ModelMemoryError(ModelError):
    """The model needed more memory than the inference process may use."""


class ModelCrashedError(ModelError):
    """The inference process died (a native crash or the memory limit) or ran out of time."""
