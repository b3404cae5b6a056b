"""Who may read and change what in a server project, enforced by PostgreSQL itself.

Each person connects as their own PostgreSQL login, named as their rater row (``people add
URL NAME --role ...``, :func:`add_login`). The project's tables then have row-level security
(:func:`enable_blinding`, idempotent):

* an **annotator's** connection reads and writes only their own annotations (and their
  polygons), answers (their own, or in their own session when the answer names no rater),
  grades (of their own sessions) and guideline views, and reads the reviews of their own
  annotations and the pins; it reads every rating session (a shared session has several
  raters) and writes its own; it reads nothing of gold, gold scores, kept merge
  conflicts or the review features; it cannot write a review;
* every other table (images, questions, guidelines, batches, raters, ...) is read by all and
  written by reviewers and owners only, but for claiming work: an annotator takes a free
  claim slot for themselves (and the change counter, which every write moves);
* a **reviewer's** or **owner's** connection reads and writes everything (reviewers decide on
  others' annotations);
* the login that created the project (the tables' owner) and superusers are not subject to
  the policies (PostgreSQL's rule): they administer.

A connection whose login names no rater of the project is treated as an annotator with no
work: it sees no annotation at all. The helpers :data:`RATER_FN` and :data:`SEES_ALL_FN`
(reading ``raters`` by ``current_user``, as the caller) are what the policies ask.
A file has no logins: this module is used on a server only.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

RATER_FN = "slicereview_rater_id"
SEES_ALL_FN = "slicereview_sees_all"

# (each helper in a scalar subquery: PostgreSQL then calls it once per statement, an
# InitPlan, instead of once per row it reads: a claim's scan of 420 slots 3.9 -> 0.24 ms)
_MINE = f"rater_id = (SELECT {RATER_FN}())"
_ALL = f"(SELECT {SEES_ALL_FN}())"
_OWN_SESSION = f"session_id IN (SELECT id FROM sessions WHERE rater_id = (SELECT {RATER_FN}()))"

#: ``table: (who may read, who may write)`` of the tables of people's work; every other
#: table of the project is read by all and written by reviewers and owners only
#: (:data:`OTHERS`), but for the claims of :data:`UPDATES` (and the change counter).
POLICIES: dict[str, tuple[str, str]] = {
    "annotations": (f"{_ALL} OR {_MINE}", f"{_ALL} OR {_MINE}"),
    "polygons": (f"{_ALL} OR annotation_id IN (SELECT id FROM annotations)",
                 f"{_ALL} OR annotation_id IN (SELECT id FROM annotations)"),
    # (a rating session is read by all: a shared "confidence" session is answered by several)
    "sessions": ("true", f"{_ALL} OR {_MINE}"),
    "answers": (f"{_ALL} OR {_MINE} OR (rater_id IS NULL AND {_OWN_SESSION})",
                f"{_ALL} OR {_MINE} OR (rater_id IS NULL AND {_OWN_SESSION})"),
    "grades": (f"{_ALL} OR {_OWN_SESSION}", f"{_ALL} OR {_OWN_SESSION}"),
    "guideline_views": (f"{_ALL} OR {_MINE}", f"{_ALL} OR {_MINE}"),
    "reviews": (f"{_ALL} OR annotation_id IS NULL OR annotation_id IN "
                "(SELECT id FROM annotations)", _ALL),
    "gold": (_ALL, _ALL),
    "gold_scores": (_ALL, _ALL),
    "merge_conflicts": (_ALL, _ALL),
    "review_features": (_ALL, _ALL),
}
OTHERS = ("true", _ALL)
#: ``(rows an UPDATE may pick, what they may become)`` where that differs from who may
#: write: an annotator takes a free claim slot for themselves.
UPDATES = {"slots": (f"{_ALL} OR rater_id IS NULL OR {_MINE}", f"{_ALL} OR {_MINE}")}

#: The helpers' bodies (PL/pgSQL: a function's statements are planned once per connection;
#: a SQL function's on every statement that calls it). Every name in them is qualified, so
#: that no search path decides what they read: a login's own temporary table ``raters``
#: (anyone may make one, and PostgreSQL looks for tables in ``pg_temp`` first unless told
#: otherwise) does not stand in for the project's and make an annotator an owner. (A ``SET
#: search_path`` clause would do that too, at the cost of a change of setting on every call.)
HELPERS = {
    RATER_FN: ("bigint", "BEGIN RETURN (SELECT id FROM public.raters WHERE name "
                         "OPERATOR(pg_catalog.=) current_user); END"),
    SEES_ALL_FN: ("boolean", "BEGIN RETURN EXISTS (SELECT 1 FROM public.raters WHERE name "
                             "OPERATOR(pg_catalog.=) current_user AND role "
                             "OPERATOR(pg_catalog.=) ANY ('{reviewer,owner}')); END"),
}
_FUNCTIONS = tuple(f"CREATE OR REPLACE FUNCTION {name}() RETURNS {returns} LANGUAGE plpgsql "
                   f"STABLE AS $$ {body} $$" for name, (returns, body) in HELPERS.items())


def enable_blinding(conn: Any) -> None:
    """Make the helpers and, on every table of the project but the change counter's, the
    policies of :data:`POLICIES` (else :data:`OTHERS`) -- one per command, so that who may
    delete is who may write --, in the caller's transaction on ``conn`` (a psycopg
    connection of the tables' owner). Again: the policies are made as this version words
    them (a project made before gets the same rules in their faster form)."""
    from slicereview.store.postgres_schema import STATE_TABLE

    for statement in _FUNCTIONS:
        conn.execute(statement)
    have = {(r[0], r[1]) for r in conn.execute(
        "SELECT tablename, policyname FROM pg_policies WHERE schemaname = current_schema()")}
    tables = [r[0] for r in conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1")]
    for table in tables:
        if table == STATE_TABLE:
            continue
        read, write = POLICIES.get(table, OTHERS)
        picks, becomes = UPDATES.get(table, (write, write))
        conn.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        for command, clause in (("select", f"USING ({read})"),
                                ("insert", f"WITH CHECK ({write})"),
                                ("update", f"USING ({picks}) WITH CHECK ({becomes})"),
                                ("delete", f"USING ({write})")):
            if (table, f"slicereview_{command}") not in have:
                conn.execute(f"CREATE POLICY slicereview_{command} ON {table} FOR "
                             f"{command.upper()} {clause}")
            else:  # (as this version words it: a project made before gets the faster form)
                conn.execute(f"ALTER POLICY slicereview_{command} ON {table} {clause}")
    from slicereview.store.postgres_privacy import restrict

    restrict(conn)  # (who reads the originals: restrictive policies of their own)


def renew_helpers(conn: Any) -> bool:
    """Make the helpers again as this version words them when they differ (a project made
    by an earlier version) and ``conn``'s login owns them (the project's owner, or a
    superuser); returns whether it did. Other logins cannot, and leave them."""
    rows = conn.execute(
        "SELECT p.proname, p.prosrc, p.proconfig, pg_has_role(p.proowner, 'USAGE') FROM "
        "pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = "
        "current_schema() AND p.proname IN (%s, %s)", tuple(HELPERS)).fetchall()
    if not rows or not all(r[3] for r in rows) or all(
            r[1].strip() == HELPERS[r[0]][1] and r[2] is None for r in rows):
        return False
    from slicereview.store.postgres import WRITE_LOCK

    with conn.transaction():  # (not beside another writer: two windows opening at once;
        # while another's write holds the lock, the next opening renews them)
        if not conn.execute("SELECT pg_try_advisory_xact_lock(%s)",
                            (WRITE_LOCK,)).fetchone()[0]:
            return False
        for statement in _FUNCTIONS:
            conn.execute(statement)
    return True


def blinding_enabled(conn: Any) -> bool:
    """Whether :func:`enable_blinding` ran on this database (a migration runs it again, so
    that a table a new format adds is covered too)."""
    return conn.execute("SELECT 1 FROM pg_policies WHERE schemaname = current_schema() AND "
                        "policyname LIKE 'slicereview%' LIMIT 1").fetchone() is not None


def add_login(conn: Any, name: str) -> str | None:
    """Give the login ``name`` the use of this project's tables (in the caller's
    transaction); a new login is made with a random password, which is returned (shown once,
    never stored); an existing login keeps its password (``None``)."""
    from psycopg import sql

    if len(name.encode()) > 63:  # (PostgreSQL would cut it: the login would name no rater)
        raise ValueError(f"{name!r} is too long for a login name (at most 63 bytes)")
    exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).fetchone()
    password = None
    if exists is None:
        password = secrets.token_urlsafe(18)
        # only its SCRAM verifier goes to the server: a statement the server logs (a failed
        # one, or all DDL under log_statement) never shows the password
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
            sql.Identifier(name), sql.Literal(scram_verifier(password))))
    role = sql.Identifier(name)
    database = conn.execute("SELECT current_database()").fetchone()[0]
    for statement in (
            "GRANT CONNECT ON DATABASE {} TO {}",
            "GRANT USAGE ON SCHEMA public TO {role}",
            "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}",
            "GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}",
            # (tables and sequences a later format adds, made by this login's migration)
            "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE "
            "ON TABLES TO {role}",
            "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES "
            "TO {role}"):
        if statement.startswith("GRANT CONNECT"):
            conn.execute(sql.SQL(statement).format(sql.Identifier(database), role))
        else:
            conn.execute(sql.SQL(statement).format(role=role))
    return password


def scram_verifier(password: str, salt: bytes | None = None, iterations: int = 4096) -> str:
    """What PostgreSQL stores of a password for SCRAM-SHA-256 authentication (RFC 5802 and
    RFC 7677: the salted password's StoredKey and ServerKey), as ``CREATE ROLE ... PASSWORD``
    accepts it in place of the password itself -- the server cannot tell the password from
    it, and stores it as it is. ``password`` is used as its UTF-8 bytes (the random
    passwords made here are ASCII, which SASLprep leaves unchanged).

    >>> v = scram_verifier("pencil", bytes(16))
    >>> v.split("$")[0], v.split("$")[1]
    ('SCRAM-SHA-256', '4096:AAAAAAAAAAAAAAAAAAAAAA==')
    """
    import base64
    import hashlib
    import hmac

    salt = secrets.token_bytes(16) if salt is None else salt
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    client_key = hmac.digest(salted, b"Client Key", "sha256")
    stored_key = hashlib.sha256(client_key).digest()
    server_key = hmac.digest(salted, b"Server Key", "sha256")

    def b64(raw: bytes) -> str:
        return base64.b64encode(raw).decode("ascii")

    return f"SCRAM-SHA-256${iterations}:{b64(salt)}${b64(stored_key)}:{b64(server_key)}"


def grant_login(conn: Any, name: str) -> str | None:
    """:func:`enable_blinding` and :func:`add_login` in a savepoint of the caller's
    transaction (an error leaves it usable); a login that may not do it, or a name that
    cannot be a login, gets a ``ValueError``."""
    import psycopg

    try:
        with conn.transaction():
            enable_blinding(conn)
            return add_login(conn, name)
    except psycopg.errors.InsufficientPrivilege as exc:
        raise ValueError(
            "Only the project's owner login, allowed to create logins (CREATEROLE), can add "
            f"people with their own login: {str(exc).strip().splitlines()[0]}") from exc
    except (psycopg.errors.InvalidName, psycopg.errors.ReservedName,
            psycopg.errors.NameTooLong) as exc:
        raise ValueError(f"{name!r} cannot be a login name: "
                         f"{str(exc).strip().splitlines()[0]}") from exc


def login_states(conn: Any, names: Sequence[str]) -> dict[str, bool]:
    """Whether each of ``names`` is a login that can connect (``LOGIN``) and use this
    project's tables (a superuser can use them all)."""
    rows = conn.execute(
        "SELECT rolname FROM pg_roles WHERE rolname = ANY(%s) AND rolcanlogin AND "
        "has_table_privilege(oid, 'raters', 'SELECT')", (list(names),)).fetchall()
    have = {r[0] for r in rows}
    return {name: name in have for name in names}


def remove_login(conn: Any, name: str) -> str:
    """Take the login ``name`` off this project, in the caller's transaction: its grants on
    the project's tables, sequences, schema and database are revoked (and the default
    privileges for tables made later), then the login itself is dropped -- ``"dropped"``,
    it can no longer connect to the server -- unless another database of the server still
    grants it something (another project): then it is kept for that one, with no access to
    this project (``"kept"``). ``"none"``: there is no such login. Nothing of the person's
    rows is touched. ``ValueError`` for the login of this connection, the tables' owner or a
    superuser (they administer), and when this connection may not drop logins."""
    import psycopg
    from psycopg import sql

    role = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", (name,)).fetchone()
    if role is None:
        return "none"
    me, owner, database = conn.execute(
        "SELECT current_user, (SELECT tableowner FROM pg_tables WHERE tablename = 'raters' "
        "AND schemaname = current_schema()), current_database()").fetchone()
    if name in (me, owner) or role[0]:
        raise ValueError(f"{name!r} administers this project (it is this connection's login, "
                         "the owner of its tables or a superuser): its login is not removed.")
    ident = sql.Identifier(name)
    try:
        with conn.transaction():
            for statement in (
                    "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {role}",
                    "REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {role}",
                    "REVOKE ALL ON SCHEMA public FROM {role}",
                    "REVOKE ALL ON DATABASE {database} FROM {role}",
                    "ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM {role}",
                    "ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON SEQUENCES "
                    "FROM {role}"):
                conn.execute(sql.SQL(statement).format(role=ident,
                                                       database=sql.Identifier(database)))
    except psycopg.errors.InsufficientPrivilege as exc:
        raise ValueError("Only the project's owner login can remove people's logins: "
                         f"{str(exc).strip().splitlines()[0]}") from exc
    if login_states(conn, [name])[name]:  # (grants another login made: not this one's to take)
        raise ValueError(f"{name!r} still has grants on this project that another login made; "
                         "ask the server's administrator to remove them (REVOKE).")
    try:
        with conn.transaction():
            conn.execute(sql.SQL("DROP ROLE {}").format(ident))
    except psycopg.errors.DependentObjectsStillExist:
        return "kept"  # another database of the server grants it something
    except psycopg.errors.InsufficientPrivilege as exc:
        raise ValueError("This connection may not drop logins (it needs CREATEROLE): "
                         f"{str(exc).strip().splitlines()[0]}") from exc
    return "dropped"
