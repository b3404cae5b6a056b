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

from slicereview.app import statistics
from slicereview.cli._tables import Table, is_missing, read_table
from slicereview.shares import percent


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
    table = _table(args)
    r = statistics.krippendorff_table(table.numbers(allow_text=args.level == "nominal"),
                                      args.level, units_in_rows=args.units_in_rows)
    lines = [f"Krippendorff's alpha ({args.level}): {_fmt(r['alpha'])}  [{r['band']}]",
             f"{r['raters']} raters, {r['units']} units, {r['pairable_values']} pairable values"]
    return _emit(args, r, lines)


def cmd_icc(args: argparse.Namespace) -> int:
    table = _table(args)
    r = statistics.icc_table(table.numbers(), args.omit_missing, source=table.path.name)
    incomplete = r["dropped_incomplete"]
    dropped = (f" ({incomplete} target{'s' if incomplete != 1 else ''} with missing ratings "
               "dropped)" if incomplete else "")
    lines = [f"Intraclass correlations (Shrout & Fleiss), {r['targets']} targets x "
             f"{r['raters']} raters{dropped}",
             f"{'form':9} {'ICC':>7} {'F':>9} {'df1':>5} {'df2':>7} {'p':>9}  95% CI"]
    for f in r["forms"]:
        lines.append(f"{f['form']:9} {_fmt(f['icc']):>7} {_fmt(f['F'], 3):>9} {f['df1']:5.0f} "
                     f"{f['df2']:7.0f} {f['p']:9.2g}  [{_fmt(f['ci95'][0], 3)}, "
                     f"{_fmt(f['ci95'][1], 3)}]  {f['description']}")
    return _emit(args, r, lines)


def cmd_gcoef(args: argparse.Namespace) -> int:
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
    g = statistics.generalizability_long(rows, args.target)
    lines = [f"Generalizability coefficient ICC(2,1), random annotators: {_fmt(g['icc21'])}",
             f"{g['items']} items, {g['annotators']} annotators, {g['scores']} scores",
             "target  annotators needed"]
    lines += [f"{t:6.2f}  {'unreachable' if n is None else n}"
              for t, n in g["annotators_needed"].items()]
    return _emit(args, g, lines)


# -- masks -------------------------------------------------------------------------------------


def _level_lines(title: str, level: dict[str, Any]) -> list[str]:
    counts = ", ".join(f"{k} {v}" for k, v in level["band_counts"].items())
    lines = [f"{title}: image alpha {_fmt(level['alpha'])}; {len(level['boxes'])} boxes "
             f"({counts}); Wbbox {level['wbbox']:.1f}"]
    lines += [f"  box rows {b['box'][0]}:{b['box'][2]} cols {b['box'][1]}:{b['box'][3]}  "
              f"area {b['area']:>7}  alpha {_fmt(b['alpha']):>7}  {b['band']}"
              for b in level["boxes"]]
    return lines


def cmd_masks(args: argparse.Namespace) -> int:
    stack = statistics.read_masks(args.images)
    if args.labels:
        r = statistics.label_agreement(stack, connectivity=args.connectivity)
        lines = (_level_lines("alpha (nominal, strict)", r["strict"])
                 + _level_lines("alpha (nominal, relaxed)", r["relaxed"])
                 + [f"uncertain pixels {r['uncertain_pixels']} "
                    f"({percent(r['uncertain_share'])}), relaxed area mean "
                    f"{r['area_mean']:.1f} std {r['area_std']:.1f}"])
        return _emit(args, r, lines)
    level = statistics.mask_agreement(stack, connectivity=args.connectivity)
    return _emit(args, level, _level_lines("alpha (nominal)", level))


def cmd_dice(args: argparse.Namespace) -> int:
    a, b = statistics.read_masks(args.images)
    r = statistics.overlap(a, b)
    return _emit(args, r, [f"Dice {_fmt(r['dice'])}  IoU {_fmt(r['iou'])}"])


# -- rankings ----------------------------------------------------------------------------------


def cmd_ndcg(args: argparse.Namespace) -> int:
    table = _table(args, names=True)
    if not table.cells or len(table.cells[0]) < 1:
        raise ValueError(f"{table.path.name}: need the columns item, grade")
    grades = [float(row[0]) for row in table.numbers()]  # (numbers only: no allow_text)
    if any(math.isnan(g) for g in grades):
        raise ValueError(f"{table.path.name}: every ranked item needs a grade")
    ranked = table.rows
    r = statistics.ranking_evaluation(ranked, dict(zip(ranked, grades, strict=True)), args.k,
                                      args.min_grade, source=table.path.name)
    lines = [f"{len(ranked)} ranked items; NDCG with linear gain and log2 discount",
             f"{'k':>4} {'P@k':>7} {'R@k':>7} {'NDCG@k':>7}"]
    lines += [f"{row['k']:>4} {_fmt(row['precision']):>7} {_fmt(row['recall']):>7} "
              f"{_fmt(row['ndcg']):>7}" for row in r["at_k"]]
    return _emit(args, r, lines)


def cmd_rank(args: argparse.Namespace) -> int:
    table = _table(args)
    data = np.array(table.numbers(), dtype=float)
    if data.shape[1] != 2:
        raise ValueError(f"{table.path.name}: need two score columns (plus an optional item "
                         f"column: use --names if item ids are numbers), got {data.shape[1]}")
    r = statistics.score_agreement(data, args.n)
    del r["kept"]
    lines = [f"{r['items']} items ({r['dropped_incomplete']} incomplete rows dropped)",
             f"Pearson {_fmt(r['pearson'])}  Spearman {_fmt(r['spearman'])}  "
             f"Kendall tau-b {_fmt(r['kendall_tau_b'])}  ICC(2,k) {_fmt(r['icc2k'])}",
             "top-N intersection: " + ", ".join(f"{n}:{v}" for n, v in r["top_n"].items())]
    return _emit(args, r, lines)
