"""What the server's own enforcement costs a person who waits: an annotator's submit and a
save of 150 polygons on their own login, with the data rules (constraint triggers), the
change counter run as the tables' owner and this version's privileges, against the same
project on the same server without them (the triggers dropped, the counter an ``UPDATE`` the
login may make itself, as before), taking turns in one run.

A submit meets one deferred check (it has polygons) and one held-back check; a save of 150
polygons meets the held-back check on each of its 151 statements and 150 deferred checks at
its ``COMMIT`` (about 2.5 ms of the server's time in all, ``EXPLAIN ANALYZE``; each statement
is a round trip anyway). Goals, asserted: a submit's p95 at most 1.25 ×, a save's at most
1.5 × the project without them; the figures are in docs/performance.md, "Team server".
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from slicereview.model import Polygon
from slicereview.store import Project
from slicereview.store.postgres_rules import COUNT_FN, TRIGGERS
from tests.benchmarks.test_bench_server import _build, _on_server, _p95, cluster  # noqa: F401

pytestmark = pytest.mark.benchmark

ROUNDS, SAVES, POLYGONS = 160, 24, 150


def _without_rules(url: str, login: str) -> None:
    """Take this version's enforcement off a server project (as an earlier version had it)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        for name, table in TRIGGERS:
            conn.execute(f"DROP TRIGGER {name} ON {table}")
        conn.execute(f"CREATE OR REPLACE FUNCTION {COUNT_FN}() RETURNS text LANGUAGE plpgsql "
                     "AS $$ BEGIN UPDATE slicereview_project SET data_version = data_version "
                     "+ 1; PERFORM pg_notify('slicereview', 'change'); RETURN "
                     "CAST(pg_current_xact_id() AS text); END $$")
        conn.execute(f'GRANT UPDATE ON slicereview_project TO "{login}"')


def _square(x: float) -> Polygon:
    return Polygon(np.array([[x, 2.0], [x + 5, 2.0], [x + 5, 7.0], [x, 7.0]]))


def test_the_rules_cost_a_submit_and_a_save_little(cluster, tmp_path):  # noqa: F811
    from slicereview.app import annotating

    path = tmp_path / "bench.srproj"
    made = _build(path, tmp_path / "images")
    urls, logins = {}, {}
    for kind in ("rules", "bare"):
        urls[kind], (logins[kind],) = _on_server(cluster, path, ["bench0"])
    _without_rules(urls["bare"], "bench0")
    projects = {k: Project.open(login) for k, login in logins.items()}
    me, ids = made["annotators"][0], made["ids"]
    times: dict[str, dict[str, list[float]]] = {"submit": {"rules": [], "bare": []},
                                                "save of 150": {"rules": [], "bare": []}}
    try:
        anns = {k: (annotating.start(p, me, ids[10]).id, annotating.start(p, me, ids[11]).id)
                for k, p in projects.items()}
        many = [_square(float(x % 20)) for x in range(POLYGONS)]
        for k in range(ROUNDS):
            for kind in (("rules", "bare") if k % 2 else ("bare", "rules")):
                project, (ann, big) = projects[kind], anns[kind]
                annotating.replace_polygons(project, ann, [_square(2.0)])  # (reopens it)
                t0 = time.perf_counter()
                annotating.finish(project, ann, "submitted")
                times["submit"][kind].append(time.perf_counter() - t0)
                if k < SAVES:
                    t0 = time.perf_counter()
                    annotating.replace_polygons(project, big, many)
                    times["save of 150"][kind].append(time.perf_counter() - t0)
    finally:
        for project in projects.values():
            project.close()
        for url in urls.values():
            cluster.drop_database(url)
    ratios = {}
    for what, by in times.items():
        rules, bare = _p95(by["rules"]), _p95(by["bare"])
        ratios[what] = rules / bare
        print(f"\n{what}: p95 with the rules {rules:.1f} ms, without {bare:.1f} ms "
              f"({rules / bare:.2f}x; median {np.median(by['rules']) * 1000:.1f} / "
              f"{np.median(by['bare']) * 1000:.1f} ms)")
    assert ratios["submit"] <= 1.25, "goal 1.25x"
    assert ratios["save of 150"] <= 1.5, "goal 1.5x"
