"""CLI messages tell a command-line user what to type, and what was dropped."""

from __future__ import annotations

import json

from slicereview.launcher import main


def test_icc_missing_cells_message_names_the_cli_option(tmp_path, capsys):
    path = tmp_path / "ratings.csv"
    path.write_text("1,2,3\n2,,3\n3,3,4\n4,5,5\n")
    assert main(["stats", "icc", str(path)]) == 2
    err = capsys.readouterr().err
    assert "--omit-missing" in err and "gcoef" in err
    assert "nan_policy" not in err  # a Python keyword means nothing on the command line
    assert main(["stats", "icc", str(path), "--omit-missing"]) == 0
    assert "1 target with missing ratings dropped" in capsys.readouterr().out
    assert main(["stats", "icc", str(path), "--omit-missing", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dropped_incomplete"] == 1


def test_json_is_strict_when_f_is_infinite(tmp_path, capsys):
    path = tmp_path / "perfect.csv"
    path.write_text("1,1,1\n2,2,2\n3,3,3\n")
    assert main(["stats", "icc", str(path), "--json"]) == 0
    text = capsys.readouterr().out
    payload = json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    assert payload["forms"][0]["F"] == "inf" and payload["forms"][0]["p"] == 0.0


def test_import_help_documents_the_range_step(capsys):
    # README: --slices range:START:STOP[:STEP]; the parser accepts a step, so --help says so.
    import pytest

    with pytest.raises(SystemExit):
        main(["import", "--help"])
    assert "range:START:STOP[:STEP]" in " ".join(capsys.readouterr().out.split())
