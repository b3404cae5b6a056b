"""The model card: what slicereview must know to run an ONNX model, as JSON.

A card is a JSON object with these fields (docs/models.md, "An ONNX model"):

``name``, ``version``
    Strings, not empty, without ``@`` (the command line writes a model as ``NAME@VERSION``).
``input.channels``
    1 to 4: the grey image is copied into every channel (an RGB model gets 3 equal channels).
``input.scale``
    ``"none"`` (the pixel values as they are), ``"minmax"`` (the image's minimum to 0 and maximum
    to 1, over the whole image so tiles agree) or ``{"mean": m, "std": s}`` (``(x - m) / s``,
    ``s > 0``).
``input.size`` (optional)
    ``[rows, cols]``: each tile is resized to this before the model sees it, and the output
    resized back.
``output.kind``
    ``"probability"`` (one channel, the probability of the region) or ``"classes"`` (one channel
    per class; ``output.class`` is the index of the region's class).
``output.activation`` (optional, default ``"none"``)
    What the output is: ``"none"`` — already probabilities in [0, 1] (checked at every tile;
    values outside are refused, with a hint to set this field); ``"sigmoid"`` — logits of a
    probability output; ``"softmax"`` — logits of a classes output, normalised over the class
    axis. slicereview never guesses it.
``tile.size``, ``tile.overlap``
    The square tile in image pixels (16 to 8192) and the overlap of neighbours (0 to half the
    size), blended with raised-cosine weights.
``thresholds.certain``, ``thresholds.uncertain``
    ``0 < uncertain <= certain <= 1``: the label image is certain where ``p >= certain`` and
    uncertain where ``uncertain <= p < certain``.
``licence``
    The model's licence, not empty (shown with the model's results).

``description`` (a string) may be added; any other field is refused, so a misspelt one is
caught. Every refusal is a :class:`~.errors.CardError` naming the field.

Example
-------
>>> card = parse_card('''{"name": "bright", "version": "1", "licence": "CC0-1.0",
...   "input": {"channels": 1, "scale": "minmax"},
...   "output": {"kind": "probability"},
...   "tile": {"size": 256, "overlap": 32},
...   "thresholds": {"certain": 0.5, "uncertain": 0.3}}''')
>>> card.label, card.input.scale, card.tile.overlap
('bright@1', 'minmax', 32)
>>> parse_card('{"name": "x"}')
Traceback (most recent call last):
...
slicereview.engines.inference.errors.CardError: The model card has no field `version`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from slicereview.engines.inference.errors import CardError

Scale = Literal["none", "minmax"] | tuple[float, float]
Kind = Literal["probability", "classes"]
Activation = Literal["none", "sigmoid", "softmax"]

#: Tile sides and resize sizes allowed, in pixels.
MIN_TILE, MAX_TILE = 16, 8192
MAX_CHANNELS = 4
#: The largest card file read, in bytes.
MAX_CARD_BYTES = 1 << 20


@dataclass(frozen=True)
class InputSpec:
    """``channels``; ``scale``: ``"none"``, ``"minmax"`` or ``(mean, std)``; ``size``:
    ``(rows, cols)`` or ``None``."""

    channels: int
    scale: Scale
    size: tuple[int, int] | None = None


@dataclass(frozen=True)
class OutputSpec:
    """``kind``, ``class_index`` (classes only, else ``None``) and ``activation``."""

    kind: Kind
    class_index: int | None = None
    activation: Activation = "none"


@dataclass(frozen=True)
class TileSpec:
    size: int
    overlap: int


@dataclass(frozen=True)
class ModelCard:
    """A parsed, valid model card (see the module text)."""

    name: str
    version: str
    input: InputSpec
    output: OutputSpec
    tile: TileSpec
    certain: float
    uncertain: float
    licence: str
    description: str = ""

    @property
    def label(self) -> str:
        """``NAME@VERSION``."""
        return f"{self.name}@{self.version}"

    def to_dict(self) -> dict[str, Any]:
        """The card as JSON values; ``parse_card(json.dumps(card.to_dict())) == card``."""
        scale: Any = (self.input.scale if isinstance(self.input.scale, str)
                      else {"mean": self.input.scale[0], "std": self.input.scale[1]})
        inp: dict[str, Any] = {"channels": self.input.channels, "scale": scale}
        if self.input.size is not None:
            inp["size"] = list(self.input.size)
        out: dict[str, Any] = {"kind": self.output.kind, "activation": self.output.activation}
        if self.output.class_index is not None:
            out["class"] = self.output.class_index
        d: dict[str, Any] = {
            "name": self.name, "version": self.version, "input": inp, "output": out,
            "tile": {"size": self.tile.size, "overlap": self.tile.overlap},
            "thresholds": {"certain": self.certain, "uncertain": self.uncertain},
            "licence": self.licence}
        if self.description:
            d["description"] = self.description
        return d


def load_card(path: str | Path) -> ModelCard:
    """Read and parse a card file (at most :data:`MAX_CARD_BYTES`)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_CARD_BYTES:
            raise CardError(f"The model card {p.name} is {size} bytes: a card is a small JSON "
                            f"file (at most {MAX_CARD_BYTES} bytes).")
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise CardError(f"The model card {p.name} is not UTF-8 text: give the card's JSON "
                        "file.") from None
    except OSError as exc:
        raise CardError(f"The model card {p.name} cannot be read: {exc.strerror}.") from None
    return parse_card(text)


def parse_card(card: str | dict[str, Any]) -> ModelCard:
    """Parse a card from JSON text or from already decoded JSON values; raise
    :class:`~.errors.CardError` naming the first wrong field."""
    if isinstance(card, str):
        try:
            card = json.loads(card)
        except json.JSONDecodeError as exc:
            raise CardError(f"The model card is not valid JSON (line {exc.lineno}, column "
                            f"{exc.colno}: {exc.msg}).") from None
    top = _object(card, "", {"name", "version", "input", "output", "tile", "thresholds",
                             "licence", "description"})
    name, version = _label(top, "name"), _label(top, "version")
    inp = _object(_field(top, "input"), "input", {"channels", "scale", "size"})
    input_spec = InputSpec(_integer(inp, "input.channels", 1, MAX_CHANNELS), _scale(inp),
                           _size(inp))
    output = _output(_object(_field(top, "output"), "output", {"kind", "class", "activation"}))
    tile = _object(_field(top, "tile"), "tile", {"size", "overlap"})
    size = _integer(tile, "tile.size", MIN_TILE, MAX_TILE)
    tile_spec = TileSpec(size, _integer(tile, "tile.overlap", 0, size // 2))
    thr = _object(_field(top, "thresholds"), "thresholds", {"certain", "uncertain"})
    certain = _number(thr, "thresholds.certain")
    uncertain = _number(thr, "thresholds.uncertain")
    if not 0.0 < uncertain <= certain <= 1.0:
        raise CardError("The model card's `thresholds` must have 0 < uncertain <= certain <= 1, "
                        f"not certain {certain} and uncertain {uncertain}.")
    return ModelCard(name=name, version=version, input=input_spec, output=output,
                     tile=tile_spec, certain=certain, uncertain=uncertain,
                     licence=_text(top, "licence"),
                     description=_text(top, "description") if "description" in top else "")


# -- fields ------------------------------------------------------------------------------------
def _object(value: Any, where: str, allowed: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise CardError("The model card must be a JSON object." if not where else
                        f"The model card's field `{where}` must be a JSON object.")
    for key in value:
        if key not in allowed:
            name = f"{where}.{key}" if where else key
            raise CardError(f"The model card has an unknown field `{name}` (allowed here: "
                            f"{', '.join(sorted(allowed))}).")
    return value


def _field(obj: dict[str, Any], name: str, where: str = "") -> Any:
    key = name.rsplit(".", 1)[-1]
    if key not in obj:
        raise CardError(f"The model card has no field `{where or name}`.")
    return obj[key]


def _text(obj: dict[str, Any], name: str) -> str:
    value = _field(obj, name)
    if not isinstance(value, str) or not value.strip():
        raise CardError(f"The model card's field `{name}` must be a non-empty string.")
    return value.strip()


def _label(obj: dict[str, Any], name: str) -> str:
    value = _text(obj, name)
    if "@" in value or len(value) > 100:
        raise CardError(f"The model card's field `{name}` must have at most 100 characters "
                        "and no `@`.")
    return value


def _integer(obj: dict[str, Any], name: str, low: int, high: int) -> int:
    value = _field(obj, name.rsplit(".", 1)[-1], name)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise CardError(f"The model card's field `{name}` must be a whole number from {low} "
                        f"to {high}, not {json.dumps(value)}.")
    return value


def _number(obj: dict[str, Any], name: str) -> float:
    value = _field(obj, name.rsplit(".", 1)[-1], name)
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not math.isfinite(value)):
        raise CardError(f"The model card's field `{name}` must be a number, not "
                        f"{json.dumps(value)}.")
    return float(value)


def _scale(inp: dict[str, Any]) -> Scale:
    value = _field(inp, "scale", "input.scale")
    if value in ("none", "minmax"):
        return "none" if value == "none" else "minmax"
    if isinstance(value, dict):
        _object(value, "input.scale", {"mean", "std"})
        mean = _number(value, "input.scale.mean")
        std = _number(value, "input.scale.std")
        if std <= 0:
            raise CardError(f"The model card's field `input.scale.std` must be positive, not "
                            f"{std}.")
        return (mean, std)
    raise CardError('The model card\'s field `input.scale` must be "none", "minmax" or '
                    f'{{"mean": m, "std": s}}, not {json.dumps(value)}.')


def _size(inp: dict[str, Any]) -> tuple[int, int] | None:
    if "size" not in inp:
        return None
    value = inp["size"]
    if (not isinstance(value, list) or len(value) != 2
            or any(isinstance(v, bool) or not isinstance(v, int)
                   or not MIN_TILE <= v <= MAX_TILE for v in value)):
        raise CardError(f"The model card's field `input.size` must be [rows, cols], whole "
                        f"numbers from {MIN_TILE} to {MAX_TILE}, not {json.dumps(value)}.")
    return (value[0], value[1])


def _output(out: dict[str, Any]) -> OutputSpec:
    kind = _field(out, "kind", "output.kind")
    if kind not in ("probability", "classes"):
        raise CardError('The model card\'s field `output.kind` must be "probability" or '
                        f'"classes", not {json.dumps(kind)}.')
    activation = out.get("activation", "none")
    allowed = ("none", "sigmoid") if kind == "probability" else ("none", "softmax")
    if activation not in allowed:
        raise CardError(f"The model card's field `output.activation` must be "
                        f"{' or '.join(json.dumps(a) for a in allowed)} for {kind} outputs, "
                        f"not {json.dumps(activation)}.")
    if kind == "probability":
        if "class" in out:
            raise CardError("The model card's field `output.class` applies only to "
                            '"classes" outputs.')
        return OutputSpec("probability", None, activation)
    index = _integer(out, "output.class", 0, 4095)
    return OutputSpec("classes", index, activation)
