"""``slicereview stats``: agreement statistics from your own CSV files and mask images.

Sub-commands (``slicereview stats COMMAND --help`` for options; every one has ``--json``):

``alpha FILE.csv [--level nominal|ordinal|interval|ratio] [--units-in-rows]``
    Krippendorff's α. One row per rater, one column per unit (``--units-in-rows`` for the
    transpose). Nominal data may be text categories.
``icc FILE.csv [--omit-missing]``
    The six Shrout & Fleiss ICCs. One row per target (image), one column per rater.
``gcoef FILE.csv [--target 0.7 ...]``
    Generalizability coefficient ICC(2,1) for random annotators and annotators needed. Long
    format: columns ``item, annotator, score`` (one row per score) under a header row
    (``--no-header`` if there is none).
``masks A.png B.png ... [--labels] [--connectivity 1|2]``
    Image- and box-level α of annotators' mask images (non-zero = ROI); with ``--labels`` the
    images are label images (0 background, 1 certain, 2 uncertain) and strict and relaxed
    agreement are reported.
``dice A.png B.png``
    Dice and IoU of two masks.
``ndcg FILE.csv [--k 5 10 ...] [--min-grade G]``
    P@k, R@k and NDCG@k of a ranking. Columns ``item, grade`` listed in ranked order (first =
    top); ``grade`` is the ground-truth relevance (0 = not relevant).
``rank FILE.csv [--n 2..25]``
    Pearson, Spearman, Kendall τ-b, ICC(2,k) and top-N intersection of two raters. Columns
    ``item, score_a, score_b`` (item column optional); higher score = top.

CSV files: comma, semicolon or tab separated; an optional header row and an optional first
column of names are detected (force with ``--header/--no-header``, ``--names/--no-names``);
empty cells and NA, NaN, ``.``, ``*``, ``?`` are missing values.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from slicereview.cli._tables import Table, is_missing, read_table


def register(sub: argparse._SubParsersAction) -> None:
    stats = sub.add_parser(
        "stats", help="agreement statistics from CSV files and mask images",
        description=__doc__.split("\n\n", 1)[1].replace("``", "") if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cmds = stats.add_subparsers(dest="stats_command", metavar="STAT", required=True)

    p = _table_command(cmds, "alpha", "Krippendorff's alpha (rows = raters, columns = units)")
    p.add_argument("--level", default="nominal",
                   choices=("nominal", "ordinal", "interval", "ratio"),
                   help="level of measurement (default: nominal)")
    p.add_argument("--units-in-rows", action="store_true",
                   help="rows are units and columns raters")
    p.set_defaults(func=cmd_alpha)

    p = _table_command(cmds, "icc", "intraclass correlations (rows = targets, columns = raters)")
    p.add_argument("--omit-missing", action="store_true",
                   help="drop targets with a missing rating (default: refuse)")
    p.set_defaults(func=cmd_icc)

    p = _table_command(cmds, "gcoef", "generalizability coefficient (item, annotator, score)")
    p.add_argument("--target", type=float, nargs="+", default=[0.7, 0.8, 0.9],
                   help="target coefficients for the annotators-needed table")
    p.set_defaults(func=cmd_gcoef)

    p = cmds.add_parser("masks", help="image- and box-level alpha of mask images")
    p.add_argument("images", nargs="+", type=Path, help="one mask image per annotator")
    p.add_argument("--labels", action="store_true",
                   help="images are label images: 0 background, 1 certain, 2 uncertain")
    p.add_argument("--connectivity", type=int, default=2, choices=(1, 2),
                   help="1: 4-connected boxes, 2: 8-connected (default)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_masks)

    p = cmds.add_parser("dice", help="Dice and IoU of two mask images")
    p.add_argument("images", nargs=2, type=Path, help="two mask images of the same size")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_dice)

    p = _table_command(cmds, "ndcg", "P@k, R@k, NDCG@k of a ranking (item, grade; ranked order)")
    p.add_argument("--k", type=int, nargs="+", default=[5, 10, 20],
                   help="cut-offs k of P@k, R@k and NDCG@k (default 5 10 20)")
    p.add_argument("--min-grade", type=float, default=None,
                   help="grade that counts as relevant for P@k and R@k (default: > 0)")
    p.set_defaults(func=cmd_ndcg)

    p = _table_command(cmds, "rank", "rank agreement of two raters (item, score_a, score_b)")
    p.add_argument("--n", type=int, nargs="+", default=list(range(2, 26)),
                   help="N values of the top-N intersection (default 2..25)")
    p.set_defaults(func=cmd_rank)


def _table_command(cmds: argparse._SubParsersAction, name: str, help: str):
    p = cmds.add_parser(name, help=help, description=help)
    p.add_argument("csv", type=Path, help="CSV file")
    p.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                   help="first row is a header (default: detected)")
    p.add_argument("--names", action=argparse.BooleanOptionalAction, default=None,
                   help="first column holds names (default: detected)")
    p.add_argument("--json", action="store_true", help="print JSON")
    return p


def _table(args: argparse.Namespace, names: bool | None = None) -> Table:
    return read_table(args.csv, header=args.header,
                      names=args.names if args.names is not None else names)


def _emit(args: argparse.Namespace, payload: dict[str, Any], lines: list[str]) -> int:
    if args.json:
        json.dump(_jsonable(payload), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float | np.floating):
        if math.isinf(value):  # strict JSON has no Infinity (e.g. F with a zero error MS)
            return "inf" if value > 0 else "-inf"
        return None if math.isnan(value) else float(value)
    if isinstance(value, np.integer):
        return int(value)
    return value


def _fmt(value: float, digits: int = 4) -> str:
    return "NaN" if math.isnan(value) else f"{value:.{digits}f}"


# -- α, ICC, generalizability ------------------------------------------------------------------


def cmd_alpha(args: argparse.Namespace) -> int:
    from slicereview.engines.agreement import band, krippendorff_alpha

    table = _table(args)
    values = table.numbers(allow_text=args.level == "nominal")
    flat = [v for row in values for v in row]
    if any(isinstance(v, str) for v in flat):
        # Nominal text categories: code every distinct value (numbers by value, text by text).
        codes: dict[Any, int] = {}
        values = [[math.nan if isinstance(v, float) and math.isnan(v)
                   else codes.setdefault(v, len(codes)) for v in row] for row in values]
    data = np.array(values, dtype=float)
    if args.units_in_rows:
        data = data.T
    alpha = krippendorff_alpha(data, args.level)
    raters, units = data.shape
    pairable = int(np.sum((~np.isnan(data)) & (np.sum(~np.isnan(data), axis=0) >= 2)))
    payload = {"statistic": "krippendorff_alpha", "level": args.level, "alpha": alpha,
               "band": band(alpha), "raters": raters, "units": units,
               "pairable_values": pairable}
    lines = [f"Krippendorff's alpha ({args.level}): {_fmt(alpha)}  [{band(alpha)}]",
             f"{raters} raters, {units} units, {pairable} pairable values"]
    return _emit(args, payload, lines)


def cmd_icc(args: argparse.Namespace) -> int:
    from slicereview.engines.agreement import intraclass_correlation

    table = _table(args)
    data = np.array(table.numbers(), dtype=float)
    incomplete = int(np.isnan(data).any(axis=1).sum()) if data.ndim == 2 else 0
    if incomplete and not args.omit_missing:
        raise ValueError(f"{table.path.name}: {incomplete} target(s) have missing ratings; "
                         "add --omit-missing to drop them, or use `slicereview stats gcoef` "
                         "(long format) when targets have different raters")
    result = intraclass_correlation(data, nan_policy="omit" if args.omit_missing else "raise")
    forms = [{"form": f.name, "description": f.description, "icc": f.value, "F": f.f,
              "df1": f.df1, "df2": f.df2, "p": f.p, "ci95": list(f.ci95)} for f in result]
    payload = {"statistic": "ICC", "targets": result.n_targets, "raters": result.n_raters,
               "forms": forms, "BMS": result.bms, "WMS": result.wms, "JMS": result.jms,
               "EMS": result.ems, "dropped_incomplete": incomplete}
    dropped = (f" ({incomplete} target{'s' if incomplete != 1 else ''} with missing ratings "
               "dropped)" if incomplete else "")
    lines = [f"Intraclass correlations (Shrout & Fleiss), {result.n_targets} targets x "
             f"{result.n_raters} raters{dropped}",
             f"{'form':9} {'ICC':>7} {'F':>9} {'df1':>5} {'df2':>7} {'p':>9}  95% CI"]
    for f in result:
        lines.append(f"{f.name:9} {_fmt(f.value):>7} {_fmt(f.f, 3):>9} {f.df1:5.0f} "
                     f"{f.df2:7.0f} {f.p:9.2g}  [{_fmt(f.ci95[0], 3)}, {_fmt(f.ci95[1], 3)}]"
                     f"  {f.description}")
    return _emit(args, payload, lines)


def cmd_gcoef(args: argparse.Namespace) -> int:
    from slicereview.engines.agreement import generalizability, raters_needed

    # Long tables have text ids in every row, so a header cannot be detected: assume one.
    header = True if args.header is None else args.header
    table = read_table(args.csv, header=header, names=False)
    if len(table.cells[0]) < 3:
        raise ValueError(f"{table.path.name}: need the columns item, annotator, score")
    rows = []
    for r, row in enumerate(table.cells):
        if is_missing(row[2]):
            continue
        try:
            score = float(row[2])
        except ValueError:
            raise ValueError(f"{table.path.name}: line {table.first_data_line + r}: score "
                             f"{row[2]!r} is not a number") from None
        rows.append((row[0], row[1], score))
    g = generalizability(rows)
    needed: dict[float, int | None] = {}
    for target in args.target:
        try:
            needed[target] = raters_needed(g.icc21, target)
        except ValueError:
            needed[target] = None
    payload = {"statistic": "generalizability", "icc21": g.icc21, "items": g.n_items,
               "annotators": g.n_annotators, "scores": g.n_scores,
               "items_ms": g.items_ms, "annotators_ms": g.annotators_ms,
               "error_ms": g.error_ms, "items_df": g.items_df,
               "annotators_df": g.annotators_df, "error_df": g.error_df,
               "annotators_needed": needed}
    lines = [f"Generalizability coefficient ICC(2,1), random annotators: {_fmt(g.icc21)}",
             f"{g.n_items} items, {g.n_annotators} annotators, {g.n_scores} scores",
             "target  annotators needed"]
    lines += [f"{t:6.2f}  {'unreachable' if n is None else n}" for t, n in needed.items()]
    return _emit(args, payload, lines)


# -- masks -------------------------------------------------------------------------------------


def _read_mask(path: Path) -> np.ndarray:
    import skimage.io

    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder; give mask image files (PNG, TIFF)")
    try:
        arr = np.asarray(skimage.io.imread(path))
    except Exception as exc:  # imageio/PIL raise OSError, ValueError, struct.error, ...
        raise ValueError(f"{path} is not an image file that can be read as a mask "
                         "(PNG, TIFF)") from exc
    if arr.ndim == 3 and arr.shape[-1] in (3, 4):
        rgb = arr[..., :3]
        if not (np.array_equal(rgb[..., 0], rgb[..., 1])
                and np.array_equal(rgb[..., 0], rgb[..., 2])):
            raise ValueError(f"{path.name}: a mask must be a grey image, not colour")
        arr = rgb[..., 0]
    if arr.ndim != 2:
        raise ValueError(f"{path.name}: a mask must be a 2-D image, got shape {arr.shape}")
    return arr


def _stack(paths: list[Path]) -> np.ndarray:
    arrays = [_read_mask(p) for p in paths]
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError(f"mask images differ in size: {sorted(shapes)}")
    return np.stack(arrays)


def _level_payload(level) -> dict[str, Any]:
    return {"alpha": level.alpha, "boxes": [
        {"box": list(b.box), "area": b.area, "pixels": b.pixels, "alpha": b.alpha,
         "band": b.band} for b in level.boxes],
        "band_counts": level.band_counts, "wbbox": level.wbbox,
        "roi_pixels": list(level.roi_pixels)}


def _level_lines(title: str, level) -> list[str]:
    counts = ", ".join(f"{k} {v}" for k, v in level.band_counts.items())
    lines = [f"{title}: image alpha {_fmt(level.alpha)}; {level.n_boxes} boxes ({counts}); "
             f"Wbbox {level.wbbox:.1f}"]
    lines += [f"  box rows {b.box[0]}:{b.box[2]} cols {b.box[1]}:{b.box[3]}  area {b.area:>7}"
              f"  alpha {_fmt(b.alpha):>7}  {b.band}" for b in level.boxes]
    return lines


def cmd_masks(args: argparse.Namespace) -> int:
    from slicereview.engines.agreement import level_agreement, segmentation_agreement

    stack = _stack(args.images)
    if args.labels:
        r = segmentation_agreement(stack, connectivity=args.connectivity)
        payload = {"statistic": "segmentation_agreement", "annotators": len(args.images),
                   "strict": _level_payload(r.strict), "relaxed": _level_payload(r.relaxed),
                   "uncertain_pixels": r.uncertain_pixels,
                   "uncertain_share": r.uncertain_share, "area_mean": r.area_mean,
                   "area_std": r.area_std}
        lines = (_level_lines("alpha (nominal, strict)", r.strict)
                 + _level_lines("alpha (nominal, relaxed)", r.relaxed)
                 + [f"uncertain pixels {r.uncertain_pixels} ({100 * r.uncertain_share:.1f}%),"
                    f" relaxed area mean {r.area_mean:.1f} std {r.area_std:.1f}"])
        return _emit(args, payload, lines)
    level = level_agreement(stack != 0, connectivity=args.connectivity)
    payload = {"statistic": "mask_alpha", "annotators": len(args.images),
               **_level_payload(level)}
    return _emit(args, payload, _level_lines("alpha (nominal)", level))


def cmd_dice(args: argparse.Namespace) -> int:
    from slicereview.engines.agreement import dice, iou

    a, b = (m != 0 for m in _stack(args.images))
    d, j = dice(a, b), iou(a, b)
    return _emit(args, {"statistic": "overlap", "dice": d, "iou": j},
                 [f"Dice {_fmt(d)}  IoU {_fmt(j)}"])


# -- rankings ----------------------------------------------------------------------------------


def cmd_ndcg(args: argparse.Namespace) -> int:
    from slicereview.engines.review import ndcg_at_k, precision_at_k, recall_at_k

    table = _table(args, names=True)
    if not table.cells or len(table.cells[0]) < 1:
        raise ValueError(f"{table.path.name}: need the columns item, grade")
    grades = [float(row[0]) for row in table.numbers()]  # (numbers only: no allow_text)
    if any(math.isnan(g) for g in grades):
        raise ValueError(f"{table.path.name}: every ranked item needs a grade")
    ranked = table.rows
    if len(set(ranked)) != len(ranked):
        raise ValueError(f"{table.path.name}: an item is listed twice")
    relevance = dict(zip(ranked, grades, strict=True))
    rows = [{"k": k, "precision": precision_at_k(ranked, relevance, k, args.min_grade),
             "recall": recall_at_k(ranked, relevance, k, args.min_grade),
             "ndcg": ndcg_at_k(ranked, relevance, k)} for k in args.k]
    payload = {"statistic": "ranking_evaluation", "items": len(ranked), "at_k": rows,
               "gain": "linear", "discount": "log2"}
    lines = [f"{len(ranked)} ranked items; NDCG with linear gain and log2 discount",
             f"{'k':>4} {'P@k':>7} {'R@k':>7} {'NDCG@k':>7}"]
    lines += [f"{r['k']:>4} {_fmt(r['precision']):>7} {_fmt(r['recall']):>7} "
              f"{_fmt(r['ndcg']):>7}" for r in rows]
    return _emit(args, payload, lines)


def cmd_rank(args: argparse.Namespace) -> int:
    from slicereview.engines.review import rank_agreement

    table = _table(args)
    data = np.array(table.numbers(), dtype=float)
    if data.shape[1] != 2:
        raise ValueError(f"{table.path.name}: need two score columns (plus an optional item "
                         f"column: use --names if item ids are numbers), got {data.shape[1]}")
    keep = ~np.isnan(data).any(axis=1)
    result = rank_agreement(data[keep, 0], data[keep, 1], ns=args.n)
    c = result.correlations
    items = [table.rows[i] for i in np.flatnonzero(keep)]
    payload = {"statistic": "rank_agreement", "items": len(items),
               "dropped_incomplete": int((~keep).sum()), "pearson": c.pearson,
               "spearman": c.spearman, "kendall_tau_b": c.kendall_tau_b,
               "pearson_p": c.pearson_p, "spearman_p": c.spearman_p, "kendall_p": c.kendall_p,
               "icc2k": result.icc2k, "top_n": result.top_n}
    lines = [f"{len(items)} items ({int((~keep).sum())} incomplete rows dropped)",
             f"Pearson {_fmt(c.pearson)}  Spearman {_fmt(c.spearman)}  "
             f"Kendall tau-b {_fmt(c.kendall_tau_b)}  ICC(2,k) {_fmt(result.icc2k)}",
             "top-N intersection: " + ", ".join(f"{n}:{v}" for n, v in result.top_n.items())]
    return _emit(args, payload, lines)
