"""The model card: a valid card parses into a frozen value; every bad one gets one sentence
naming its field."""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest

from slicereview.engines.inference.card import MAX_CARD_BYTES, ModelCard, load_card, parse_card
from slicereview.engines.inference.errors import CardError, ModelError
from tests.onnx_models import card as make_card


def test_a_full_card_parses_and_round_trips():
    values = make_card(input={"channels": 3, "scale": {"mean": 100, "std": 25.5},
                              "size": [256, 320]},
                       output={"kind": "classes", "class": 2, "activation": "softmax"},
                       tile={"size": 512, "overlap": 64},
                       thresholds={"certain": 0.7, "uncertain": 0.4},
                       description="Breast arterial calcifications, a test card.")
    card = parse_card(json.dumps(values))
    assert isinstance(card, ModelCard)
    assert card.label == "test-model@1"
    assert card.input.channels == 3 and card.input.scale == (100.0, 25.5)
    assert card.input.size == (256, 320)
    assert (card.output.kind, card.output.class_index, card.output.activation) == (
        "classes", 2, "softmax")
    assert (card.tile.size, card.tile.overlap) == (512, 64)
    assert (card.certain, card.uncertain) == (0.7, 0.4)
    assert parse_card(card.to_dict()) == card
    assert parse_card(json.loads(json.dumps(card.to_dict()))) == card
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.name = "other"  # type: ignore[misc]


def test_defaults():
    card = parse_card(make_card())
    assert card.input.size is None and card.input.scale == "minmax"
    assert card.output.activation == "none" and card.output.class_index is None
    assert card.description == ""


def _with(path: str, value: object) -> dict:
    """The default card with the field at a dotted ``path`` set (``...`` deletes it)."""
    values = copy.deepcopy(make_card())
    *parents, last = path.split(".")
    obj = values
    for key in parents:
        obj = obj[key]
    if value is ...:
        del obj[last]
    else:
        obj[last] = value
    return values


BAD = [
    ("name", ..., "`name`"),
    ("name", "", "`name`"),
    ("name", "a@b", "`name`"),
    ("version", 1, "`version`"),
    ("licence", ..., "`licence`"),
    ("input", "grey", "`input`"),
    ("input.channels", 0, "`input.channels`"),
    ("input.channels", 5, "`input.channels`"),
    ("input.channels", True, "`input.channels`"),
    ("input.channels", 1.5, "`input.channels`"),
    ("input.scale", "zscore", "`input.scale`"),
    ("input.scale", {"mean": 1}, "`input.scale.std`"),
    ("input.scale", {"mean": 1, "std": 0}, "`input.scale.std`"),
    ("input.scale", {"mean": "a", "std": 1}, "`input.scale.mean`"),
    ("input.scale", {"mean": 1, "std": 1, "max": 3}, "`input.scale.max`"),
    ("input.size", [256], "`input.size`"),
    ("input.size", [256, 8], "`input.size`"),
    ("input.size", "256x256", "`input.size`"),
    ("input.colour", "grey", "`input.colour`"),
    ("output.kind", "mask", "`output.kind`"),
    ("output.kind", ..., "`output.kind`"),
    ("output.activation", "softmax", "`output.activation`"),
    ("output.class", 1, "`output.class`"),
    ("tile.size", 8, "`tile.size`"),
    ("tile.size", 10000, "`tile.size`"),
    ("tile.overlap", 40, "`tile.overlap`"),
    ("tile.overlap", -1, "`tile.overlap`"),
    ("tile", ..., "`tile`"),
    ("thresholds.certain", 1.5, "`thresholds`"),
    ("thresholds.uncertain", 0.8, "`thresholds`"),
    ("thresholds.uncertain", 0, "`thresholds`"),
    ("thresholds.certain", float("nan"), "`thresholds.certain`"),
    ("thresholds.certain", "high", "`thresholds.certain`"),
    ("weights", "model.bin", "`weights`"),
]


@pytest.mark.parametrize(("path", "value", "named"), BAD,
                         ids=[f"{p}={v!r}" for p, v, _ in BAD])
def test_a_bad_field_gets_one_sentence_naming_it(path, value, named):
    with pytest.raises(CardError) as err:
        parse_card(_with(path, value))
    message = str(err.value)
    assert named in message
    assert message.startswith("The model card") and message.endswith(".")
    assert "\n" not in message


def test_classes_need_a_class_and_may_say_softmax():
    with pytest.raises(CardError, match="`output.class`"):
        parse_card(make_card(output={"kind": "classes"}))
    card = parse_card(make_card(output={"kind": "classes", "class": 0}))
    assert card.output.class_index == 0 and card.output.activation == "none"
    with pytest.raises(CardError, match="`output.activation`"):
        parse_card(make_card(output={"kind": "classes", "class": 0, "activation": "sigmoid"}))


@pytest.mark.parametrize("text", ['{"name": "x",', "[1, 2]", "null", "3"])
def test_not_a_json_object(text):
    with pytest.raises(CardError, match="^The model card (is not valid JSON|must be a JSON "
                                        "object)"):
        parse_card(text)


def test_load_card_files(tmp_path):
    good = tmp_path / "card.json"
    good.write_text(json.dumps(make_card()), encoding="utf-8")
    assert load_card(good).name == "test-model"
    with pytest.raises(CardError, match="cannot be read"):
        load_card(tmp_path / "missing.json")
    binary = tmp_path / "card.bin"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(CardError, match="not UTF-8"):
        load_card(binary)
    big = tmp_path / "big.json"
    with big.open("wb") as f:
        f.truncate(MAX_CARD_BYTES + 1)
    with pytest.raises(CardError, match="small JSON"):
        load_card(big)


def test_card_errors_are_model_errors():
    assert issubclass(CardError, ModelError) and issubclass(CardError, ValueError)
