"""Who may read the originals in a server project: row-level policies of their own, laid over
those of :mod:`.postgres_access` (docs/privacy.md, "On a server").

PostgreSQL combines *restrictive* policies with AND: whatever the blinding policies allow, a
row is read or written only when these allow it too. They are made (and made again, worded as
this version words them) whenever the blinding policies are (:func:`restrict`, called from
:func:`.postgres_access.enable_blinding`):

* ``uid_map``, ``privacy_keys``, ``source_origins`` -- the UID map, the seed, the original
  paths: read and written by the owner's login alone;
* ``blobs`` and ``dicomweb_sources`` -- the original bytes and the PACS's UIDs: read by the
  owner's login, and by others only while the project shares originals (the newest row of
  ``privacy_log``);
* ``privacy_log``, ``shared_copies``, ``shared_parts`` -- read by all; written by the owner.

*The owner's login* is a login whose rater has the role ``owner``; the tables' owner (the
login that made the project) and superusers are not subject to policies at all (PostgreSQL's
rule), so they read everything as well.
"""

from __future__ import annotations

from typing import Any

from slicereview.store.postgres_access import OWNER_FN as IS_OWNER_FN

READS_ORIGINALS_FN = "slicereview_reads_originals"

#: (The owner helper, :data:`IS_OWNER_FN`, is made with the blinding helpers, before these.)
HELPERS = {
    READS_ORIGINALS_FN: (f"BEGIN RETURN public.{IS_OWNER_FN}() OR coalesce((SELECT images "
                         "OPERATOR(pg_catalog.=) 'originals' FROM public.privacy_log ORDER BY "
                         "id DESC LIMIT 1), false); END"),
}

_OWNER = f"(SELECT {IS_OWNER_FN}())"
_ORIGINALS = f"(SELECT {READS_ORIGINALS_FN}())"
#: ``table: (who may read, who may write)``, restrictive.
RESTRICTIONS: dict[str, tuple[str, str]] = {
    "uid_map": (_OWNER, _OWNER),
    "privacy_keys": (_OWNER, _OWNER),
    "source_origins": (_OWNER, _OWNER),
    "blobs": (_ORIGINALS, _OWNER),
    "dicomweb_sources": (_ORIGINALS, _OWNER),
    "privacy_log": ("true", _OWNER),
    "shared_copies": ("true", _OWNER),
    "shared_parts": ("true", _OWNER),
}


def restrict(conn: Any) -> None:
    """Make the helpers and the restrictive policies of :data:`RESTRICTIONS` in the caller's
    transaction on ``conn`` (the tables' owner); again: as this version words them."""
    for name, body in HELPERS.items():
        conn.execute(f"CREATE OR REPLACE FUNCTION {name}() RETURNS boolean LANGUAGE plpgsql "
                     f"STABLE AS $$ {body} $$")
    have = {(r[0], r[1]) for r in conn.execute(
        "SELECT tablename, policyname FROM pg_policies WHERE schemaname = current_schema()")}
    for table, (read, write) in RESTRICTIONS.items():
        for command, clause in (("select", f"USING ({read})"),
                                ("insert", f"WITH CHECK ({write})"),
                                ("update", f"USING ({write}) WITH CHECK ({write})"),
                                ("delete", f"USING ({write})")):
            name = f"slicereview_privacy_{command}"
            if (table, name) in have:
                conn.execute(f"DROP POLICY {name} ON {table}")
            conn.execute(f"CREATE POLICY {name} ON {table} AS RESTRICTIVE FOR "
                         f"{command.upper()} {clause}")
