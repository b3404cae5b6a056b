"""Small ONNX models the tests build with the ``onnx`` package (no downloads), and the rule
that a test needing onnx or onnxruntime fails when they are missing and ``CI`` is set (both
are installed there: onnxruntime is a dependency, onnx is in the ``test`` extra), and is
skipped on a developer's machine without them.

Each builder returns the model's bytes. Inputs are ``(1, C, rows, cols)`` float32 with
symbolic rows and columns unless said otherwise.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

OPSET = 17


def need_onnx() -> Any:
    """The ``onnx`` module (and onnxruntime importable); a failure in CI, a skip elsewhere."""
    try:
        import onnx
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        message = f"{exc.name} is missing: pip install -e '.[test]'"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return onnx


def _model(nodes: list, inputs: list, outputs: list, initializers: list = ()) -> bytes:
    onnx = need_onnx()
    from onnx import helper

    graph = helper.make_graph(nodes, "test", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def _io(name: str, shape: list, dtype: int | None = None) -> Any:
    from onnx import TensorProto, helper

    return helper.make_tensor_value_info(name, dtype or TensorProto.FLOAT, shape)


def _const(name: str, value: np.ndarray) -> Any:
    from onnx import numpy_helper

    return numpy_helper.from_array(np.asarray(value), name)


def image_input(channels: int | None = 1, rows: int | str = "rows",
                cols: int | str = "cols") -> Any:
    return _io("x", [1, channels if channels else "c", rows, cols])


def identity(channels: int = 1, size: int | None = None) -> bytes:
    """``y = mean over channels of x``: the probability is the scaled input itself."""
    from onnx import helper

    rows = cols = size if size else None
    shape_in = [1, channels, rows or "rows", cols or "cols"]
    node = helper.make_node("ReduceMean", ["x"], ["y"], axes=[1], keepdims=1)
    return _model([node], [_io("x", shape_in)], [_io("y", [1, 1, rows or "rows",
                                                           cols or "cols"])])


def bright(level: float = 0.5, steepness: float = 40.0) -> bytes:
    """A 3 × 3 mean filter and a steep sigmoid: ``p ≈ 1`` where the local mean of the scaled
    image is above ``level`` (a bright region), ``≈ 0`` elsewhere."""
    from onnx import helper

    w = np.full((1, 1, 3, 3), steepness / 9.0, np.float32)
    b = np.array([-steepness * level], np.float32)
    conv = helper.make_node("Conv", ["x", "w", "b"], ["z"], pads=[1, 1, 1, 1])
    sig = helper.make_node("Sigmoid", ["z"], ["y"])
    return _model([conv, sig], [image_input()], [_io("y", [1, 1, "rows", "cols"])],
                  [_const("w", w), _const("b", b)])


def small_cnn(width: int = 8, layers: int = 3, seed: int = 0) -> bytes:
    """A small convolutional network of seeded random weights (3 × 3 convolutions, ``width``
    channels, ReLU between, a sigmoid at the end): as much work per pixel as a light
    segmentation model, for benchmarks."""
    from onnx import helper

    rng = np.random.default_rng(seed)
    nodes, inits, name, channels = [], [], "x", 1
    for k in range(layers):
        out = 1 if k == layers - 1 else width
        w = (rng.standard_normal((out, channels, 3, 3)) / (3 * np.sqrt(channels))).astype(
            np.float32)
        inits += [_const(f"w{k}", w), _const(f"b{k}", np.zeros(out, np.float32))]
        nodes.append(helper.make_node("Conv", [name, f"w{k}", f"b{k}"], [f"c{k}"],
                                      pads=[1, 1, 1, 1]))
        name, channels = f"c{k}", out
        if k < layers - 1:
            nodes.append(helper.make_node("Relu", [name], [f"r{k}"]))
            name = f"r{k}"
    nodes.append(helper.make_node("Sigmoid", [name], ["y"]))
    return _model(nodes, [image_input()], [_io("y", [1, 1, "rows", "cols"])], inits)


def two_class_logits(steepness: float = 10.0) -> bytes:
    """Logits of two classes: ``[-k (x - 0.5), k (x - 0.5)]``; class 1's softmax is
    ``sigmoid(2 k (x - 0.5))``."""
    from onnx import helper

    nodes = [helper.make_node("Sub", ["x", "half"], ["d"]),
             helper.make_node("Mul", ["d", "k"], ["pos"]),
             helper.make_node("Neg", ["pos"], ["neg"]),
             helper.make_node("Concat", ["neg", "pos"], ["y"], axis=1)]
    return _model(nodes, [image_input()], [_io("y", [1, 2, "rows", "cols"])],
                  [_const("half", np.float32(0.5)), _const("k", np.float32(steepness))])


def scaled_logits(factor: float = 10.0) -> bytes:
    """``y = factor × (x - 0.5)``: logits of a probability (needs ``activation: sigmoid``)."""
    from onnx import helper

    nodes = [helper.make_node("Sub", ["x", "half"], ["d"]),
             helper.make_node("Mul", ["d", "k"], ["y"])]
    return _model(nodes, [image_input()], [_io("y", [1, 1, "rows", "cols"])],
                  [_const("half", np.float32(0.5)), _const("k", np.float32(factor))])


def nan_output() -> bytes:
    """``y = sqrt(-1 - x)``: NaN for every input ≥ 0."""
    from onnx import helper

    nodes = [helper.make_node("Neg", ["x"], ["n"]),
             helper.make_node("Sub", ["n", "one"], ["m"]),
             helper.make_node("Sqrt", ["m"], ["y"])]
    return _model(nodes, [image_input()], [_io("y", [1, 1, "rows", "cols"])],
                  [_const("one", np.float32(1.0))])


def rank3_input() -> bytes:
    """An input ``(1, rows, cols)``: the wrong rank."""
    from onnx import helper

    node = helper.make_node("Sigmoid", ["x"], ["y"])
    return _model([node], [_io("x", [1, "rows", "cols"])], [_io("y", [1, "rows", "cols"])])


def huge_constant(side: int = 60000) -> bytes:
    """``y = x + mean(ConstantOfShape([1, 1, side, side]))``: an intermediate of ``4 side²``
    bytes (14 GB for 60000) behind an output of the input's shape."""
    from onnx import helper

    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["big"],
                              value=_const("v", np.array([0.0], np.float32))),
             helper.make_node("ReduceMean", ["big"], ["m"], keepdims=0),
             helper.make_node("Add", ["x", "m"], ["y"])]
    return _model(nodes, [image_input()], [_io("y", [1, 1, "rows", "cols"])],
                  [_const("shape", np.array([1, 1, side, side], np.int64))])


def expand_huge(side: int = 60000) -> bytes:
    """``y = Expand(x, [1, 1, side, side])`` of a 1 × 1 slice of the input: an output far
    larger than the tile (declared with symbolic dimensions)."""
    from onnx import helper

    nodes = [helper.make_node("Slice", ["x", "starts", "ends"], ["corner"]),
             helper.make_node("Expand", ["corner", "shape"], ["y"])]
    return _model(nodes, [image_input()], [_io("y", [1, 1, None, None])],
                  [_const("starts", np.array([0, 0, 0, 0], np.int64)),
                   _const("ends", np.array([1, 1, 1, 1], np.int64)),
                   _const("shape", np.array([1, 1, side, side], np.int64))])


def tiled_output(repeats: int = 4) -> bytes:
    """``y = Tile(x, [1, 1, r, r])``: an output ``r`` times the tile's rows and columns."""
    from onnx import helper

    node = helper.make_node("Tile", ["x", "repeats"], ["y"])
    return _model([node], [image_input()], [_io("y", [1, 1, None, None])],
                  [_const("repeats", np.array([1, 1, repeats, repeats], np.int64))])


def endless_loop() -> bytes:
    """A ``Loop`` of 2⁶² iterations adding 1 to a scalar: runs until it is stopped; the output
    is ``sigmoid(x)`` plus that scalar (never reached)."""
    from onnx import TensorProto, helper

    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Add", ["acc_in", "one"], ["acc_out"])],
        "body",
        [_io("i", [], TensorProto.INT64), _io("cond_in", [], TensorProto.BOOL),
         _io("acc_in", [])],
        [_io("cond_out", [], TensorProto.BOOL), _io("acc_out", [])],
        [_const("one", np.float32(1.0))])
    nodes = [helper.make_node("Loop", ["trips", "cond", "zero"], ["acc"], body=body),
             helper.make_node("Sigmoid", ["x"], ["s"]),
             helper.make_node("Add", ["s", "acc"], ["y"])]
    return _model(nodes, [image_input()], [_io("y", [1, 1, "rows", "cols"])],
                  [_const("trips", np.array(2**62, np.int64)), _const("cond", np.array(True)),
                   _const("zero", np.float32(0.0))])


def card(**changes: Any) -> dict[str, Any]:
    """A valid card (JSON values) for these models, with top-level sections replaced by
    ``changes`` (``input=..., output=..., tile=..., thresholds=...``)."""
    base: dict[str, Any] = {
        "name": "test-model", "version": "1", "licence": "CC0-1.0",
        "input": {"channels": 1, "scale": "minmax"},
        "output": {"kind": "probability"},
        "tile": {"size": 64, "overlap": 16},
        "thresholds": {"certain": 0.5, "uncertain": 0.3}}
    base.update(changes)
    return base
