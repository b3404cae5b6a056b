"""``project.raters``: the people (and simulated raters) of a project, with their role and
group, and the models that are raters (kind ``model``, with a version and what their card
said; docs/models.md).

A model rater's ``name`` column holds its label, ``NAME@VERSION`` (names are unique, so two
versions of a model are two raters); :class:`~slicereview.model.Rater` gets the name without
the version.
"""

from __future__ import annotations

import json

from slicereview.model import Rater, RaterKind, Role
from slicereview.store._base import Part


class Raters(Part):
    def add(
        self, name: str, role: Role | str = Role.ANNOTATOR, group: str | None = None,
        *, simulated: bool = False,
    ) -> int:
        """A new rater; returns its id (names are unique: ``IntegrityError`` for a taken one)."""
        with self.transaction():
            new_id = self.db.insert(
                "INSERT INTO raters (name, role, group_name, simulated) VALUES (?, ?, ?, ?)",
                (name, str(Role(role)), group, int(simulated)),
            )
        return new_id

    def add_model(self, name: str, version: str | None = None, card: dict | None = None,
                  *, simulated: bool = False) -> int:
        """A new model rater (role ``annotator``, no group); returns its id. ``name`` and
        ``version`` have no ``@`` (``ValueError``); the label ``NAME@VERSION`` is unique
        (``IntegrityError`` for a taken one)."""
        if "@" in name or (version is not None and "@" in version) or not name or version == "":
            raise ValueError(f"a model's name and version are text without '@' "
                             f"(not {name!r}, {version!r})")
        label = f"{name}@{version}" if version else name
        with self.transaction():
            return self.db.insert(
                "INSERT INTO raters (name, role, group_name, simulated, kind, model_version, "
                "model_card) VALUES (?, ?, NULL, ?, ?, ?, ?)",
                (label, str(Role.ANNOTATOR), int(simulated), str(RaterKind.MODEL), version,
                 json.dumps(card or {}, sort_keys=True)))

    def grant_login(self, name: str) -> str | None:
        """Let the server login ``name`` (the rater's name) use the project
        (:meth:`~.database.Database.grant_login`): its one-time password, or ``None``."""
        with self.transaction():
            return self.db.grant_login(name)

    def logins(self, names: list[str]) -> dict[str, bool] | None:
        """On a server, whether each name is a login that can use the project; ``None`` on a
        file (:meth:`~.database.Database.logins`)."""
        return self.db.logins(names)

    def remove_login(self, name: str) -> str:
        """Take the server login ``name`` off the project (:meth:`~.database.Database.
        remove_login`): ``"dropped"``, ``"kept"`` (for another project) or ``"none"``."""
        with self.transaction():
            return self.db.remove_login(name)

    def get(self, rater_id: int) -> Rater:
        row = self.db.execute("SELECT * FROM raters WHERE id = ?", (rater_id,)).fetchone()
        if row is None:
            raise KeyError(f"no rater {rater_id} in this project")
        return _rater(row)

    def all(self) -> list[Rater]:
        # (one query: the workflow's rules read every rater on each write, and a query per
        # rater cost a server project a round trip each, 16 per annotator's edit)
        return [_rater(row) for row in self.db.execute("SELECT * FROM raters ORDER BY id")]

    def set_group(self, rater_id: int, group: str | None) -> None:
        """Put a rater in ``group`` (``None``: in no group)."""
        with self.transaction():
            if self.db.execute("UPDATE raters SET group_name = ? WHERE id = ?",
                               (group, rater_id)).rowcount == 0:
                raise KeyError(f"no rater {rater_id} in this project")

    def by_name(self, name: str) -> Rater | None:
        """The rater named ``name`` (a model by its label, ``NAME@VERSION``), or ``None``."""
        row = self.db.execute("SELECT id FROM raters WHERE name = ?", (name,)).fetchone()
        return None if row is None else self.get(row[0])

    def own(self) -> Rater | None:
        """The rater named as the server login of this connection (who "you" are on a
        server), ``None`` on a file or when the login names no rater of the project."""
        login = self.db.login()
        found = None if login is None else self.by_name(login)
        return None if found is None or found.is_model else found  # (a model has no login)

    def ensure(self, name: str, role: Role | str = Role.ANNOTATOR,
               group: str | None = None, *, simulated: bool = False) -> int:
        """The id of rater ``name``, added with ``role`` and ``group`` when missing."""
        existing = self.by_name(name)
        return existing.id if existing else self.add(name, role, group, simulated=simulated)


def _rater(row) -> Rater:
    kind, version, name = RaterKind(row["kind"]), row["model_version"], row["name"]
    if version and name.endswith("@" + version):
        name = name[: -len(version) - 1]
    card = json.loads(row["model_card"]) if kind is RaterKind.MODEL else {}
    return Rater(row["id"], name, Role(row["role"]), row["group_name"], bool(row["simulated"]),
                 kind, version, card)

