"""Shape of the source tree: no module grows past a size one can read in one sitting."""

from __future__ import annotations

from pathlib import Path

import slicereview

MAX_LINES = 400


def _source_root() -> Path:
    """The package's source: the installed copy in CI, the work tree otherwise."""
    return Path(slicereview.__file__).parent


def test_no_module_longer_than_400_lines():
    root = _source_root()
    sizes = {path.relative_to(root.parent).as_posix(): len(path.read_text("utf-8").splitlines())
             for path in sorted(root.rglob("*.py"))}
    assert sizes, f"no modules found under {root}"
    offenders = {name: n for name, n in sizes.items() if n > MAX_LINES}
    assert not offenders, (
        f"modules over {MAX_LINES} lines (split them along responsibilities): "
        + ", ".join(f"{name} ({n})" for name, n in sorted(offenders.items(), key=lambda kv: -kv[1]))
    )
