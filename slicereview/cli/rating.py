"""Rating commands: ``ranking`` (a session's result, CSV export) and ``reliability``.

SESSION arguments are a session id or a unique session name. Both commands only read the project.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path

from slicereview.core.ranking.reliability import format_report, reliability
from slicereview.core.ranking.session import RankingRow, RatingSession
from slicereview.core.store import Project

#: Header of ``slicereview ranking --csv`` (``answers`` and ``active_time_s`` are the session's
#: totals, repeated on every row).
CSV_COLUMNS = ("image_id", "case_id", "file", "rank", "tier", "score", "rater", "session",
               "answers", "active_time_s")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ranking", help="show or export a rating session's ranking")
    p.add_argument("project", type=Path)
    p.add_argument("session", help="session id or name")
    p.add_argument("--csv", type=Path, metavar="OUT",
                   help="write the ranking as CSV (" + ", ".join(CSV_COLUMNS) + ")")
    p.set_defaults(func=cmd_ranking)

    p = sub.add_parser("reliability",
                       help="agreement between finished rating sessions over the same images")
    p.add_argument("project", type=Path)
    p.add_argument("sessions", nargs="+", metavar="SESSION", help="two or more session ids/names")
    p.add_argument("--randomisations", type=int, default=100,
                   help="random tie-breaks to average over (default 100, as in SliceLabeler)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random tie-breaks")
    p.add_argument("--json", type=Path, metavar="OUT", help="also write the report as JSON")
    p.set_defaults(func=cmd_reliability)


def _open(path: Path) -> Project:
    if not path.is_file():
        raise FileNotFoundError(f"no project file {path}")
    return Project.open(path, read_only=True)


def _fmt(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.6g}"


def ranking_table(rows: list[RankingRow]) -> list[tuple]:
    """The CSV cells (:data:`CSV_COLUMNS`) of a session's :meth:`RatingSession.rows`."""
    return [(r.image_id, r.case_id, r.file, "" if r.rank is None else r.rank,
             "" if r.tier is None else r.tier, _fmt(r.score), r.rater, r.session,
             r.session_answers, f"{r.session_active_s:.3f}") for r in rows]


def write_ranking_csv(path: Path, rows: list[RankingRow]) -> int:
    """Write ``rows`` as the ``slicereview ranking --csv`` file (also used by the GUI's
    export); returns the number of images written."""
    table = ranking_table(rows)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_COLUMNS)
        writer.writerows(table)
    return len(table)


def cmd_ranking(args: argparse.Namespace) -> int:
    with _open(args.project) as project:
        rs = RatingSession(project, project.find_session(args.session).id)
        rows = rs.rows()
        done = rs.done
    table = ranking_table(rows)
    state = "finished" if done else "NOT finished (ranking so far)"
    if args.csv:
        write_ranking_csv(args.csv, rows)
        print(f"{len(table)} images written to {args.csv}; session {state}")
        return 0
    print(f"session {rs.session.id} {rs.session.name!r} ({rs.kind}), {rs.answer_count} "
          f"answers, {rs.active_ms / 60000:.1f} min active; {state}")
    print("rank  tier  case     score     file")
    for row in table:
        print(f"{row[3]!s:>4}  {row[4]!s:>4}  {row[1]:<7}  {row[5]:>8}  {row[2]}")
    return 0


def cmd_reliability(args: argparse.Namespace) -> int:
    if len(args.sessions) < 2:
        raise ValueError("give at least two sessions")
    with _open(args.project) as project:
        scores = [RatingSession(project, project.find_session(ref).id).session_scores()
                  for ref in args.sessions]
    report = reliability(scores, randomisations=args.randomisations, seed=args.seed)
    print(format_report(report))
    if args.json:
        args.json.write_text(json.dumps(report.to_dict(), indent=2, default=str),
                             encoding="utf-8")
        print(f"report written to {args.json}", file=sys.stderr)
    return 0
