"""Hostile and broken model files: each gets one plain sentence (a typed ModelError), never a
crash of this process or unbounded memory."""

from __future__ import annotations

import resource
import threading
import time

import numpy as np
import pytest

from slicereview.engines.inference import (
    ModelCrashedError,
    ModelError,
    ModelInputError,
    ModelMemoryError,
    ModelOutputError,
    ModelTooLargeError,
    NotOnnxError,
    RunLimits,
    open_model,
    parse_card,
    predict,
)
from slicereview.engines.prediction import Cancelled
from tests import onnx_models as models

IMAGE = np.arange(100 * 80, dtype=np.uint16).reshape(100, 80)


def _sentence(exc: BaseException) -> str:
    message = str(exc)
    assert message and "\n" not in message and "Traceback" not in message
    assert message.rstrip().endswith((".", "…")), message
    return message


def _refusal(model, card=None, limits: RunLimits | None = None) -> ModelError:
    card = parse_card(card or models.card())
    with pytest.raises(ModelError) as err, \
            open_model(model, card, limits=limits or RunLimits()) as m:
        predict(m, IMAGE)
    _sentence(err.value)
    return err.value


def test_random_bytes_are_not_onnx():
    models.need_onnx()
    err = _refusal(np.random.default_rng(1).bytes(5000))
    assert isinstance(err, NotOnnxError) and "not an ONNX model" in str(err)


def test_a_truncated_file_and_another_format_are_not_onnx(tmp_path):
    whole = models.bright()
    path = tmp_path / "cut.onnx"
    path.write_bytes(whole[:len(whole) // 2])
    assert isinstance(_refusal(path), NotOnnxError)
    png = tmp_path / "image.onnx"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    assert isinstance(_refusal(png), NotOnnxError)


def test_empty_and_missing_files(tmp_path):
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    assert isinstance(_refusal(empty), NotOnnxError)
    err = _refusal(tmp_path / "nowhere.onnx")
    assert "cannot be read" in str(err)


def test_a_file_of_several_gigabytes_is_refused_before_reading(tmp_path):
    big = tmp_path / "big.onnx"
    with big.open("wb") as f:  # sparse: takes no disk space, and is never read
        f.truncate(3 * 2**30)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    err = _refusal(big)
    assert isinstance(err, ModelTooLargeError)
    assert "3.0 GiB" in str(err) and "1.0 GiB" in str(err)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # kB
    # The limit is the caller's: a real model over a small limit, as bytes too.
    assert isinstance(_refusal(models.bright(), limits=RunLimits(max_model_bytes=100)),
                      ModelTooLargeError)


def test_the_wrong_input_rank():
    err = _refusal(models.rank3_input())
    assert isinstance(err, ModelInputError) and "rank 3" in str(err) and "rank 4" in str(err)


def test_inputs_that_do_not_fit_the_card():
    err = _refusal(models.identity(channels=3))
    assert isinstance(err, ModelInputError) and "input.channels" in str(err)
    err = _refusal(models.identity(size=32))
    assert isinstance(err, ModelInputError) and "tile" in str(err)


def test_outputs_that_do_not_fit_the_card():
    err = _refusal(models.two_class_logits())  # two channels where the card says probability
    assert isinstance(err, ModelOutputError) and "1 channel" in str(err)
    err = _refusal(models.two_class_logits(),
                   models.card(output={"kind": "classes", "class": 2, "activation": "softmax"}))
    assert isinstance(err, ModelOutputError) and "more than 2 channels" in str(err)


def test_nan_outputs():
    err = _refusal(models.nan_output())
    assert isinstance(err, ModelOutputError) and "NaN" in str(err)


def test_logits_where_the_card_says_probabilities():
    err = _refusal(models.scaled_logits())
    assert isinstance(err, ModelOutputError)
    assert 'set output.activation to "sigmoid"' in str(err)
    err = _refusal(models.two_class_logits(),
                   models.card(output={"kind": "classes", "class": 1}))
    assert 'set output.activation to "softmax"' in str(err)


def test_an_output_far_larger_than_the_tile():
    # Declared: refused before the first tile.
    err = _refusal(models.expand_huge())
    assert isinstance(err, ModelOutputError) and "60000" in str(err)
    # Known only when it runs: refused in the inference process, never sent back.
    err = _refusal(models.tiled_output(repeats=4))
    assert isinstance(err, ModelOutputError) and "(1, 1, 256, 256)" in str(err)


def test_a_graph_that_would_allocate_too_much():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    err = _refusal(models.huge_constant(side=60000))  # 14 GB behind a tile-sized output
    assert isinstance(err, ModelMemoryError) and "more memory" in str(err)
    # It was the inference process's memory, not ours.
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 500_000  # kB


def test_the_model_stays_usable_after_a_refused_tile():
    card = parse_card(models.card())
    with open_model(models.huge_constant(side=60000), card) as model:
        tile = np.zeros((1, 1, 64, 64), np.float32)
        with pytest.raises(ModelMemoryError):
            model.run_tile(tile)
        with pytest.raises(ModelMemoryError):  # the same answer again, no crash
            model.run_tile(tile)


def test_a_dead_inference_process_is_one_sentence():
    card = parse_card(models.card())
    with open_model(models.bright(), card) as model:
        model._child.process.kill()
        with pytest.raises(ModelCrashedError) as err:
            predict(model, IMAGE)
        assert "inference process stopped" in _sentence(err.value)
        with pytest.raises(ModelError, match="closed"):  # and the model is closed
            predict(model, IMAGE)


def test_a_model_that_never_finishes_runs_out_of_time():
    card = parse_card(models.card())
    with open_model(models.endless_loop(), card, limits=RunLimits(timeout_s=1.0)) as model:
        with pytest.raises(ModelCrashedError) as err:
            predict(model, IMAGE)
        assert "longer than 1 s" in _sentence(err.value)
        assert not model._child.process.is_alive()


def test_cancel_stops_a_tile_that_never_finishes():
    card = parse_card(models.card())
    asked = threading.Event()
    with open_model(models.endless_loop(), card) as model:
        process = model._child.process
        timer = threading.Timer(0.5, asked.set)
        timer.start()
        with pytest.raises(Cancelled):
            predict(model, IMAGE, cancelled=asked.is_set)
        timer.join()
        deadline = time.monotonic() + 60
        while process.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not process.is_alive()
