"""Who may read and change what in a server project, enforced by PostgreSQL itself.

Each person connects as their own PostgreSQL login, named as their rater row (``people add
URL NAME --role ...``, :func:`add_login`). What a login may do is decided in three places,
each made by :func:`enable_blinding` (idempotent) and renewed on the owner's opening
(:func:`renew_access`):

* **privileges** (:func:`grant_privileges`, by the rater's role): every login reads every
  table; an annotator's login writes only the tables of people's own work (those of
  :data:`POLICIES` whose rows it may write); a reviewer's or owner's the rest too. No login
  writes the state row (``slicereview_project``: the tables' owner's alone; the change
  counter is moved through :data:`~.postgres_rules.COUNT_FN`), deletes a rater or changes a
  rater's role (``raters``: ``UPDATE`` of ``group_name`` only), or changes what a claim slot
  is (``slots``: ``UPDATE`` of ``rater_id`` and ``claimed_at`` only);
* **row-level security** (:data:`POLICIES`), on every table but the state table:

  * an **annotator's** connection reads and writes only their own annotations (and their
    polygons), answers (their own, or in their own session when the answer names no rater),
    grades (of their own sessions) and guideline views; it reads the model's annotations (and
    polygons) of the images pre-annotation shows it (:data:`PREANNOTATED_FN`), the decisions
    on their own annotations, the pins on their own returned work (an annotation whose
    decision in force is a rejection, :data:`RETURNED_FN`) and the image pins marked for
    everyone; it reads every rating session (a shared session has several raters) and writes
    its own; it reads nothing of gold, gold scores, kept merge conflicts, the review
    features or the project model's versions; it cannot write a review;
  * every other table (images, questions, guidelines, batches, raters, ...) is read by all
    and written by reviewers and owners only, but for claiming work: an annotator takes a
    free claim slot for themselves;
  * a **reviewer's** or **owner's** connection reads and writes everything, but only an
    owner's marks a pin for everyone (reviewers decide on others' annotations);
* **data rules** as triggers (:mod:`.postgres_rules`): a submitted annotation has polygons,
  an annotator held back after onboarding writes no pilot or formal work, an annotator of a
  batch handed out by claims annotates only the images they hold a place of, a batch's
  places are made once.

The login that created the project (the tables' owner) and superusers are not subject to
the policies and rules (PostgreSQL's rule): they administer. A connection whose login names
no rater of the project is treated as an annotator with no work: it sees no annotation at
all. The helpers :data:`RATER_FN`, :data:`SEES_ALL_FN` and :data:`OWNER_FN` (reading
``raters`` by ``current_user``, as the caller) are what the policies ask. A file has no
logins: this module is used on a server only.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

RATER_FN = "slicereview_rater_id"
SEES_ALL_FN = "slicereview_sees_all"
OWNER_FN = "slicereview_is_owner"
#: The ids of the caller's annotations whose decision in force is a rejection (their returned
#: work), read as the tables' owner: the reviews' own policy cannot read reviews again.
RETURNED_FN = "slicereview_returned"
#: The ids of the model's annotations pre-annotation shows the caller, read as tables' owner.
PREANNOTATED_FN = "slicereview_preannotated"
#: What :func:`renew_access` compares (a comment of :data:`RATER_FN`): a project whose
#: privileges, policies and rules an earlier version made gets this version's.
ACCESS = "slicereview access 4"

# (each helper in a scalar subquery: PostgreSQL then calls it once per statement, an
# InitPlan, instead of once per row it reads: a claim's scan of 420 slots 3.9 -> 0.24 ms)
_MINE = f"rater_id = (SELECT {RATER_FN}())"
_ALL = f"(SELECT {SEES_ALL_FN}())"
_OWN_SESSION = f"session_id IN (SELECT id FROM sessions WHERE rater_id = (SELECT {RATER_FN}()))"
_OWNER = f"(SELECT {OWNER_FN}())"

#: ``table: (who may read, who may write)`` of the tables of people's work; every other
#: table of the project is read by all and written by reviewers and owners only
#: (:data:`OTHERS`), but for the claims of :data:`UPDATES` (and the change counter).
POLICIES: dict[str, tuple[str, str]] = {
    "annotations": (f"{_ALL} OR {_MINE} OR id = ANY (CAST((SELECT {PREANNOTATED_FN}()) AS "
                    f"bigint[]))", f"{_ALL} OR {_MINE}"),
    "polygons": (f"{_ALL} OR annotation_id IN (SELECT id FROM annotations)",
                 f"{_ALL} OR annotation_id IN (SELECT id FROM annotations WHERE {_MINE})"),
    # (a rating session is read by all: a shared "confidence" session is answered by several)
    "sessions": ("true", f"{_ALL} OR {_MINE}"),
    "answers": (f"{_ALL} OR {_MINE} OR (rater_id IS NULL AND {_OWN_SESSION})",
                f"{_ALL} OR {_MINE} OR (rater_id IS NULL AND {_OWN_SESSION})"),
    "grades": (f"{_ALL} OR {_OWN_SESSION}", f"{_ALL} OR {_OWN_SESSION}"),
    "guideline_views": (f"{_ALL} OR {_MINE}", f"{_ALL} OR {_MINE}"),
    # (decisions on one's own work, pins on one's own returned work, pins for everyone; only
    # an owner marks a pin for everyone)
    "reviews": (f"{_ALL} OR (pin_kind IS NULL AND annotation_id IN (SELECT id FROM "
                f"annotations WHERE {_MINE})) OR (annotation_id IS NULL AND for_everyone = 1) OR "
                f"annotation_id = ANY (CAST((SELECT {RETURNED_FN}()) AS bigint[]))",
                f"{_ALL} AND (for_everyone = 0 OR {_OWNER})"),
    # (reviewers' and owners' alone)
    **{table: (_ALL, _ALL) for table in ("gold", "gold_scores", "merge_conflicts",
                                          "review_features", "project_models")},
}
OTHERS = ("true", _ALL)
#: The tables an annotator's login may write (rows of their own work, as :data:`POLICIES`
#: says); every other table it only reads, but for the claims of :data:`UPDATES`.
OWN_WORK = ("annotations", "polygons", "sessions", "answers", "grades", "guideline_views")
#: ``(rows an UPDATE may pick, what they may become)`` where that differs from who may
#: write: an annotator takes a free claim slot for themselves.
UPDATES = {"slots": (f"{_ALL} OR rater_id IS NULL OR {_MINE}", f"{_ALL} OR {_MINE}")}

#: The helpers' bodies (PL/pgSQL: a function's statements are planned once per connection;
#: a SQL function's on every statement that calls it). Every name in them is qualified, so
#: that no search path decides what they read: a login's own temporary table ``raters``
#: (anyone may make one, and PostgreSQL looks for tables in ``pg_temp`` first unless told
#: otherwise) does not stand in for the project's and make an annotator an owner. (A ``SET
#: search_path`` clause would do that too, at the cost of a change of setting on every call;
#: :data:`RETURNED_FN`, run as the tables' owner, has one, called once per statement.)
HELPERS = {
    RATER_FN: ("bigint", "BEGIN RETURN (SELECT id FROM public.raters WHERE name "
                         "OPERATOR(pg_catalog.=) current_user); END"),
    SEES_ALL_FN: ("boolean", "BEGIN RETURN EXISTS (SELECT 1 FROM public.raters WHERE name "
                             "OPERATOR(pg_catalog.=) current_user AND role "
                             "OPERATOR(pg_catalog.=) ANY ('{reviewer,owner}')); END"),
    OWNER_FN: ("boolean", "BEGIN RETURN EXISTS (SELECT 1 FROM public.raters WHERE name "
                          "OPERATOR(pg_catalog.=) current_user AND role "
                          "OPERATOR(pg_catalog.=) 'owner'); END"),
    # (the session's login: inside a function run as its owner, current_user is the owner)
    RETURNED_FN: ("bigint[]", "BEGIN RETURN (SELECT coalesce(array_agg(a.id), '{}') FROM "
                              "annotations a JOIN raters me ON me.id = a.rater_id AND "
                              "me.name = CAST(session_user AS text) WHERE (SELECT d.decision "
                              "FROM reviews d WHERE d.annotation_id = a.id AND d.decision IS "
                              "NOT NULL ORDER BY d.id DESC LIMIT 1) = 'reject'); END"),
    PREANNOTATED_FN: ("bigint[]", "BEGIN RETURN (SELECT coalesce(array_agg(a.id), '{}') FROM "
                      "annotations a JOIN preannotation p ON p.model_id = a.rater_id JOIN "
                      "preannotation_shown s ON s.batch_id = p.batch_id AND s.image_id = "
                      "a.image_id AND s.shown = 1 JOIN raters me ON me.id = s.rater_id AND "
                      "me.name = CAST(session_user AS text)); END"),
}
_DEFINER = {name: "SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp"
            for name in (RETURNED_FN, PREANNOTATED_FN)}  #: run as the owner, own search path
_FUNCTIONS = tuple(f"CREATE OR REPLACE FUNCTION {name}() RETURNS {returns} LANGUAGE plpgsql "
                   f"STABLE {_DEFINER.get(name, '')} AS $$ {body} $$"
                   for name, (returns, body) in HELPERS.items())
#: Columns a login may ``UPDATE`` where it may not update the whole row: the group of a
#: rater (never the role), who holds a claim slot and since when (never its image or batch).
COLUMNS = {"raters": "group_name", "slots": "rater_id, claimed_at"}


def enable_blinding(conn: Any, *, regrant: bool = True) -> None:
    """Make the helpers, on every table of the project but the state table the policies of
    :data:`POLICIES` (else :data:`OTHERS`) -- one per command, so that who may delete is who
    may write --, the data rules (:func:`.postgres_rules.install_rules`) and, with
    ``regrant``, every login's privileges again (:func:`grant_privileges`), in the caller's
    transaction on ``conn`` (a psycopg connection of the tables' owner). Again: everything
    is made as this version words it (a project made before gets it in this form)."""
    from slicereview.store.postgres_rules import install_counter, install_rules
    from slicereview.store.postgres_schema import STATE_TABLE

    for statement in _FUNCTIONS:
        conn.execute(statement)
    conn.execute(f"COMMENT ON FUNCTION {RATER_FN}() IS '{ACCESS}'")
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
    install_counter(conn)
    install_rules(conn)
    from slicereview.store.postgres_privacy import restrict

    restrict(conn)  # (who reads the originals: restrictive policies of their own)
    if regrant:
        for name, role in conn.execute(
                "SELECT r.name, r.role FROM raters r JOIN pg_roles g ON g.rolname = r.name "
                "WHERE NOT g.rolsuper AND g.rolname <> (SELECT tableowner FROM pg_tables "
                "WHERE tablename = 'raters' AND schemaname = current_schema()) AND "
                "has_table_privilege(g.oid, 'raters', 'SELECT') ORDER BY r.id").fetchall():
            grant_privileges(conn, name, role)


def grant_privileges(conn: Any, name: str, role: str) -> None:
    """Give the login ``name`` exactly the privileges of a rater with ``role`` on this
    project's tables and sequences (see the module docstring), taking back whatever it had
    (an earlier version granted every login every table), in the caller's transaction."""
    from psycopg import sql

    from slicereview.store.postgres_schema import STATE_TABLE

    login = sql.Identifier(name)
    tables = [r[0] for r in conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1")]
    if role == "annotator":  # the tables whose rows it may write: its own work
        writes = [t for t in tables if t in OWN_WORK]
        extra: tuple[str, ...] = ()
    else:
        writes = [t for t in tables if t not in (STATE_TABLE, *COLUMNS)]
        extra = ("GRANT INSERT ON raters TO {login}", "GRANT INSERT, DELETE ON slots TO {login}")
    statements = [
        "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {login}",
        "GRANT SELECT ON ALL TABLES IN SCHEMA public TO {login}",
        "GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {login}",
        *(f"GRANT INSERT, UPDATE, DELETE ON {t} TO {{login}}" for t in writes),
        *(f"GRANT UPDATE ({columns}) ON {t} TO {{login}}" for t, columns in COLUMNS.items()
          if t in tables and (role != "annotator" or t in UPDATES)),
        *extra,
        # (an earlier version granted tables a later format adds in advance: a migration
        # now grants them, by role, when it adds them)
        "ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM {login}",
        "ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON SEQUENCES FROM {login}"]
    for statement in statements:
        conn.execute(sql.SQL(statement).format(login=login))


def _current(conn: Any) -> bool:
    """Whether this database has the change counter, and, where people have logins, the
    helpers, rules and privileges, as this version makes them."""
    from slicereview.store.postgres_rules import rules_in_place

    helpers = {r[0]: (r[1].strip(), r[2], r[3]) for r in conn.execute(
        "SELECT p.proname, p.prosrc, p.proconfig, obj_description(p.oid, 'pg_proc') FROM "
        "pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = "
        "current_schema() AND p.proname = ANY(%s)", (list(HELPERS),))}
    if not helpers:  # no logins yet: the counter only
        return rules_in_place(conn, counter_only=True)
    configs = {name: ["search_path=pg_catalog, public, pg_temp"] if name in _DEFINER else None
               for name in HELPERS}
    return (helpers.get(RATER_FN, ("", None, None))[2] == ACCESS
            and all(helpers.get(name, ("", None, None))[:2] == (body.strip(), configs[name])
                    for name, (_, body) in HELPERS.items())
            and rules_in_place(conn))


def renew_access(conn: Any) -> bool:
    """Make the helpers, policies, rules and every login's privileges again as this version
    makes them when they differ (a project made by an earlier version, a trigger dropped),
    when ``conn``'s login owns the tables (the project's owner, or a superuser); returns
    whether it did. Other logins cannot, and leave them (one query)."""
    owns = conn.execute("SELECT pg_has_role(relowner, 'USAGE') FROM pg_class WHERE oid = "
                        "to_regclass('raters')").fetchone()
    if owns is None or not owns[0] or _current(conn):
        return False
    from slicereview.store.postgres import WRITE_LOCK
    from slicereview.store.postgres_rules import install_counter

    with conn.transaction():  # (not beside another writer: two windows opening at once;
        # while another's write holds the lock, the next opening renews them)
        if not conn.execute("SELECT pg_try_advisory_xact_lock(%s)",
                            (WRITE_LOCK,)).fetchone()[0]:
            return False
        install_counter(conn)
        if blinding_enabled(conn):
            enable_blinding(conn)
    return True


def blinding_enabled(conn: Any) -> bool:
    """Whether :func:`enable_blinding` ran on this database (a migration runs it again, so
    that a table a new format adds is covered too)."""
    return conn.execute("SELECT 1 FROM pg_policies WHERE schemaname = current_schema() AND "
                        "policyname LIKE 'slicereview%' LIMIT 1").fetchone() is not None


def add_login(conn: Any, name: str) -> str | None:
    """Give the login ``name`` the use of this project's tables, with the privileges of its
    rater's role (:func:`grant_privileges`; in the caller's transaction); a new login is made
    with a random password, which is returned (shown once, never stored); an existing login
    keeps its password (``None``)."""
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
    conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(
        sql.Identifier(database), role))
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(role))
    rater = conn.execute("SELECT role FROM raters WHERE name = %s", (name,)).fetchone()
    grant_privileges(conn, name, "annotator" if rater is None else rater[0])
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
            enable_blinding(conn, regrant=False)
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
