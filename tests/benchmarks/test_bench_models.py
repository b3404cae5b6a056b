"""Benchmarks of the model engines (issues 30 and 32), on the real demo mammograms.

The project model (``engines.learning``), in a child process that does only the work, on 20
mammograms with simulated findings (:mod:`tests.learning_data`: bright spots and thin tubes
drawn into the 8 demo mammograms, flipped and re-drawn to make 20), read lazily from ``.npy``
files as an application reads images one at a time:

* **training on 20 mammograms** (target ≤ 60 s on two cores) against the floor of the same
  run: ``multiscale_basic_features`` over exactly the patches training reads (2 threads) plus
  scikit-learn's ``RandomForestClassifier.fit`` with the same parameters on the same samples
  (``n_jobs=2``) — what any implementation of this model must compute;
* **prediction of one mammogram** (target ≤ 20 s) against one ``multiscale_basic_features``
  call over the whole image (2 threads);
* **peak memory** of the child (``VmHWM``) doing both: asserted ≤ 2 GiB absolutely (memory is
  not wall-clock).

An ONNX model (``engines.inference``): a small CNN (:func:`tests.onnx_models.small_cnn`, four
3 × 3 convolutions of 16 channels) run
tiled (512, overlap 64) over a whole mammogram in its inference process, against the floor of
scaling the image and running the same model on the same tiles in this process with
onnxruntime directly (no blending, no process), best of three interleaved runs.

Absolute times are printed against the targets; ratios are asserted (a shared 2-core machine).
"""

from __future__ import annotations

import json
import multiprocessing
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.benchmark

TRAIN_IMAGES = 20
TRAIN_TARGET_S, PREDICT_TARGET_S, PEAK_TARGET = 60.0, 20.0, 2 * 2**30
TRAIN_RATIO, PREDICT_RATIO, ONNX_RATIO = 1.6, 1.0, 1.5


def _status(key: str) -> int:
    with open("/proc/self/status") as lines:
        return int(next(line for line in lines if line.startswith(key)).split()[1]) * 1024


def _work(folder: str, n: int, out: str) -> None:
    """The child: train on ``n`` lazily read examples, predict one more, report."""
    from slicereview.engines.learning import Example, Settings, fit, predict, sample_examples
    from slicereview.engines.learning.scores import score_image
    from slicereview.engines.learning.tissue import tissue_mask

    def reader(i: int):
        return lambda: (np.load(f"{folder}/image{i}.npy"), np.load(f"{folder}/labels{i}.npy"),
                        None)

    settings = Settings()
    examples = [Example(i, reader(i)) for i in range(n)]
    t0 = time.perf_counter()
    samples = sample_examples(examples, settings, workers=2)
    t1 = time.perf_counter()
    model = fit(samples, settings, workers=2)
    t2 = time.perf_counter()
    image = np.load(f"{folder}/image{n}.npy")
    t3 = time.perf_counter()
    prediction = predict(model, image, workers=2)
    t4 = time.perf_counter()
    labels = np.load(f"{folder}/labels{n}.npy")
    score = score_image(prediction.probability, labels, tissue_mask(image), settings.certain)
    peak = _status("VmHWM:")
    np.savez(f"{folder}/samples.npz", X=np.concatenate([s.X for s in samples]),
             y=np.concatenate([s.y for s in samples]))
    Path(out).write_text(json.dumps({
        "sampling": t1 - t0, "fit": t2 - t1, "predict": t4 - t3, "peak": peak,
        "dice": score.dice, "sensitivity": score.sensitivity,
        "bytes": len(model.to_bytes()), "nodes": int(len(model.forest.left)),
        "samples": int(sum(len(s.y) for s in samples))}))


@pytest.fixture(scope="module")
def examples_on_disk(tmp_path_factory) -> Path:
    from tests.learning_data import mammogram_example

    folder = tmp_path_factory.mktemp("models")
    for i in range(TRAIN_IMAGES + 1):
        image, labels = mammogram_example(i)
        np.save(folder / f"image{i}.npy", image)
        np.save(folder / f"labels{i}.npy", labels)
    return folder


def _floor_training(folder: Path, settings) -> float:
    """Features of the patches training reads, and scikit-learn's forest on its samples."""
    from skimage.feature import multiscale_basic_features
    from sklearn.ensemble import RandomForestClassifier

    from slicereview.engines.learning.features import normalise
    from slicereview.engines.learning.sampling import choose_pixels
    from slicereview.engines.learning.tissue import tissue_mask

    margin, sigmas = settings.margin(), settings.sigmas()
    patches = []
    for i in range(TRAIN_IMAGES):  # (untimed: which patches, on which normalised pixels)
        image, labels = np.load(folder / f"image{i}.npy"), np.load(folder / f"labels{i}.npy")
        tissue = tissue_mask(image)
        x = normalise(image, tissue)
        boxes, _ = choose_pixels(labels, tissue, settings, key=i)
        rows, cols = image.shape
        patches += [np.ascontiguousarray(x[max(r0 - margin, 0):min(r1 + margin, rows),
                                           max(c0 - margin, 0):min(c1 + margin, cols)])
                    for r0, c0, r1, c1 in boxes]

    def features(w):
        return multiscale_basic_features(w, sigma_min=sigmas[0], sigma_max=sigmas[-1],
                                         num_sigma=len(sigmas), workers=1)

    data = np.load(folder / "samples.npz")
    t0 = time.perf_counter()
    with ThreadPoolExecutor(2) as pool:
        for _ in pool.map(features, patches):
            pass
    t1 = time.perf_counter()
    RandomForestClassifier(
        n_estimators=settings.trees, max_depth=settings.max_depth,
        min_samples_leaf=settings.min_samples_leaf, max_features="sqrt", n_jobs=2,
        random_state=settings.seed).fit(data["X"], data["y"])
    t2 = time.perf_counter()
    print(f"\nfloor: features of {len(patches)} patches {t1 - t0:.1f} s, "
          f"RandomForestClassifier.fit {t2 - t1:.1f} s")
    return t2 - t0


@pytest.mark.usefixtures("spawned_children_import_tests")
def test_project_model_training_prediction_and_memory(examples_on_disk, tmp_path):
    from skimage.feature import multiscale_basic_features

    from slicereview.engines.learning import Settings

    out = tmp_path / "result.json"
    ctx = multiprocessing.get_context("spawn")
    child = ctx.Process(target=_work, args=(str(examples_on_disk), TRAIN_IMAGES, str(out)))
    child.start()
    child.join()
    assert child.exitcode == 0
    found = json.loads(out.read_text())
    settings = Settings()
    floor_train = _floor_training(examples_on_disk, settings)
    image = np.load(examples_on_disk / f"image{TRAIN_IMAGES}.npy").astype(np.float32)
    sigmas = settings.sigmas()
    t0 = time.perf_counter()
    multiscale_basic_features(image, sigma_min=sigmas[0], sigma_max=sigmas[-1],
                              num_sigma=len(sigmas), workers=2)
    floor_predict = time.perf_counter() - t0
    train = found["sampling"] + found["fit"]
    print(f"project model, {TRAIN_IMAGES} mammograms, {found['samples']} samples: training "
          f"{train:.1f} s (sampling {found['sampling']:.1f} s, forest {found['fit']:.1f} s; "
          f"target ≤ {TRAIN_TARGET_S:.0f} s), floor {floor_train:.1f} s, ratio "
          f"{train / floor_train:.2f}")
    print(f"prediction of one {image.shape[0]} × {image.shape[1]} mammogram: "
          f"{found['predict']:.1f} s (target ≤ {PREDICT_TARGET_S:.0f} s), one "
          f"multiscale_basic_features call over it {floor_predict:.1f} s, ratio "
          f"{found['predict'] / floor_predict:.2f}; Dice {found['dice']:.3f}, sensitivity "
          f"{found['sensitivity']:.3f}")
    print(f"peak memory of the child {found['peak'] / 2**20:.0f} MiB "
          f"(target ≤ {PEAK_TARGET / 2**20:.0f} MiB); the model: {found['nodes']} nodes, "
          f"{found['bytes'] / 1e6:.2f} MB stored")
    assert found["peak"] <= PEAK_TARGET
    assert train / floor_train <= TRAIN_RATIO
    assert found["predict"] / floor_predict <= PREDICT_RATIO
    assert found["dice"] > 0.5  # it learnt something real


def test_onnx_model_over_a_whole_mammogram():
    import onnxruntime as ort

    from slicereview.engines.inference import (
        RunLimits,
        open_model,
        parse_card,
        predict,
        scale_image,
    )
    from slicereview.engines.prediction import overlapping_tiles
    from tests import onnx_models
    from tests.learning_data import read_mammogram

    image = read_mammogram(0)
    card = parse_card(onnx_models.card(tile={"size": 512, "overlap": 64}))
    data = onnx_models.small_cnn(width=16, layers=4)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    boxes = overlapping_tiles(image.shape, 512, 64)

    def floor() -> None:
        scaled = scale_image(image, "minmax")
        for r0, c0, r1, c1 in boxes:
            session.run(None, {"x": scaled[None, None, r0:r1, c0:c1]})

    ours_runs, floor_runs = [], []
    with open_model(data, card, limits=RunLimits(threads=2)) as model:
        predict(model, image[:600, :600])  # warm up the process
        for _ in range(3):  # interleaved, best of three: load from others hits both alike
            t0 = time.perf_counter()
            prediction = predict(model, image)
            ours_runs.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            floor()
            floor_runs.append(time.perf_counter() - t0)
    ours, base = min(ours_runs), min(floor_runs)
    print(f"\nONNX small CNN (4 convolutions, 16 channels) over a {image.shape[0]} × "
          f"{image.shape[1]} mammogram, {len(boxes)} tiles of 512 (overlap 64): {ours:.2f} s; "
          f"onnxruntime on the same tiles in this process {base:.2f} s; ratio {ours / base:.2f}; "
          f"{(ours - base) / len(boxes) * 1e3:.1f} ms more a tile")
    assert prediction.probability.shape == image.shape
    assert ours / base <= ONNX_RATIO
