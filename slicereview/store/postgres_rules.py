"""The data rules of a server project held by PostgreSQL itself, for a login that types SQL.

The application layer holds every rule once and checks it before it writes; on a server a
person may also connect with ``psql`` as their own login, so the rules whose breach would
damage the project or another person's work are also *constraint triggers* of the database,
one place per rule (docs/server.md, "What the database enforces"):

=========================================  ====================================================
rule (the app's place)                     trigger (its function)
=========================================  ====================================================
a submitted annotation has polygons        ``slicereview_submitted_has_polygons`` on
(:func:`slicereview.app.annotating.        ``annotations`` and ``slicereview_submitted_keeps_
finish`)                                   polygons`` on ``polygons``, deferred to the
                                           ``COMMIT`` (the app writes the polygons and the
                                           status in one transaction, in either order)
an annotator whom the owner's decision     ``slicereview_held_back`` on ``annotations`` and on
after onboarding holds back writes no      ``polygons``
pilot or formal work (:func:`slicereview.
app.qa.workflow.why_not_start`)
an annotator assigned to a batch handed    ``slicereview_needs_place`` on ``annotations``
out by claims annotates one of its images
only in one of its K places
(:func:`slicereview.app.qa.claiming.
take_place`)
a batch's K places per image are made      ``slicereview_places_made_once`` on ``slots``
once, when it is opened (:meth:`slicereview.
store.slots.Slots.open`)
=========================================  ====================================================

Each trigger acts where row-level security acts (its ``WHEN`` asks
``row_security_active``): on every login's statement but those of the tables' owner and
superusers, who administer the project (they could drop the trigger anyway) -- and who copy
and upgrade projects whose history the rules did not always hold for. The functions run as
the tables' owner (``SECURITY DEFINER``: they read the rows the login may not, e.g. another
annotator's claims) with a fixed search path (``pg_catalog, public, pg_temp``), so nothing a
login makes for itself (a temporary table, an operator) changes what they read. A broken
rule is refused with one sentence (``check_violation`` or ``insufficient_privilege``) and the
transaction rolls back: nothing of it is saved.

:func:`install_rules` makes them (idempotent: ``CREATE OR REPLACE``, and a trigger made again
only when missing); :data:`TRIGGERS` is what the opening check accepts beside the schema's
own (:mod:`.postgres_opening`).
"""

from __future__ import annotations

from typing import Any

#: A definer function's settings: nothing of a login's search path reaches it.
_SAFE = "SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp"

def _held(r: str = "r", ph: str = "ph") -> str:
    """Is rater ``r`` held back from work in phase ``ph``? (SQL; the rule of
    :func:`slicereview.app.qa.workflow.why_not_start`: an annotator assigned, directly or
    through their group, to an onboarding batch, whose owner's newest decision for them among
    those batches is missing or says stop.)"""
    return f"""({ph} <> 'onboarding' AND EXISTS (
      WITH onboarding AS (
        SELECT b.id FROM batches b JOIN raters me ON me.id = {r} AND me.role = 'annotator'
        WHERE b.phase = 'onboarding' AND EXISTS (
          SELECT 1 FROM batch_assignments x WHERE x.batch_id = b.id
          AND (x.rater_id = {r} OR x.group_name = me.group_name)))
      SELECT 1 WHERE EXISTS (SELECT 1 FROM onboarding) AND coalesce((
        SELECT q.go_on FROM qualifications q WHERE q.rater_id = {r}
        AND q.batch_id IN (SELECT id FROM onboarding) ORDER BY q.id DESC LIMIT 1), 0) = 0))"""


_HELD = _held()

#: The held-back rule's sentence (``format`` arguments; ``who`` the rater, ``ph`` the phase).
_SAYS = ("'%s is held back by the owner''s decision after onboarding, so %s writes no %s work "
         "until an owner decides otherwise.', who, who, ph")

#: ``name: body`` of the rules' trigger functions (PL/pgSQL).
FUNCTIONS: dict[str, str] = {
    "slicereview_rule_submitted": """
DECLARE a bigint;
BEGIN
  IF TG_TABLE_NAME = 'annotations' THEN a := NEW.id; ELSE a := OLD.annotation_id; END IF;
  IF EXISTS (SELECT 1 FROM annotations x WHERE x.id = a AND x.status = 'submitted')
     AND NOT EXISTS (SELECT 1 FROM polygons p WHERE p.annotation_id = a) THEN
    RAISE EXCEPTION USING ERRCODE = 'check_violation', MESSAGE = format(
      'Annotation %s would be submitted without polygons: a submitted annotation has '
      'polygons (draw some, or mark the image nothing to annotate).', a);
  END IF;
  RETURN NULL;
END""",
    # (one function per table, with no loop: a save of 150 polygons runs it 300 times, and
    # a general form cost 0.5 ms a row where this one costs next to nothing)
    "slicereview_rule_held_back": f"""
DECLARE r bigint; ph text; who text;
BEGIN
  IF TG_OP <> 'DELETE' THEN r := NEW.rater_id; ph := NEW.phase; END IF;
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND (OLD.rater_id <> NEW.rater_id
                                                OR OLD.phase <> NEW.phase)) THEN
    IF r IS NOT NULL AND {_HELD} THEN
      SELECT name INTO who FROM raters WHERE id = r;
      RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = format({_SAYS});
    END IF;
    r := OLD.rater_id; ph := OLD.phase;  -- (the row as it was, too)
  END IF;
  IF r IS NOT NULL AND {_HELD} THEN
    SELECT name INTO who FROM raters WHERE id = r;
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = format({_SAYS});
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END""",
    "slicereview_rule_held_back_polygon": f"""
DECLARE r bigint; ph text; held boolean; who text;
BEGIN
  IF TG_OP <> 'DELETE' THEN  -- (the annotation and the rule in one query: one per row)
    SELECT a.rater_id, a.phase, {_held("a.rater_id", "a.phase")} INTO r, ph, held
    FROM annotations a WHERE a.id = NEW.annotation_id;
  END IF;
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD.annotation_id <> NEW.annotation_id) THEN
    IF held THEN
      SELECT name INTO who FROM raters WHERE id = r;
      RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = format({_SAYS});
    END IF;
    SELECT a.rater_id, a.phase, {_held("a.rater_id", "a.phase")} INTO r, ph, held
    FROM annotations a WHERE a.id = OLD.annotation_id;
  END IF;
  IF held THEN
    SELECT name INTO who FROM raters WHERE id = r;
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = format({_SAYS});
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END""",
    "slicereview_rule_place": """
DECLARE missing text; k bigint; who text;
BEGIN
  SELECT b.name, (SELECT count(*) FROM slots s WHERE s.batch_id = b.id
                  AND s.image_id = NEW.image_id) INTO missing, k
  FROM batches b JOIN raters me ON me.id = NEW.rater_id AND me.role = 'annotator'
  WHERE b.phase = NEW.phase
    AND EXISTS (SELECT 1 FROM slots s WHERE s.batch_id = b.id AND s.image_id = NEW.image_id)
    AND EXISTS (SELECT 1 FROM batch_assignments x WHERE x.batch_id = b.id
                AND (x.rater_id = NEW.rater_id OR x.group_name = me.group_name))
    AND NOT EXISTS (SELECT 1 FROM slots s WHERE s.batch_id = b.id
                    AND s.image_id = NEW.image_id AND s.rater_id = NEW.rater_id)
    AND NOT EXISTS (SELECT 1 FROM image_flags f WHERE f.kind = 'assign'
                    AND f.batch_id = b.id AND f.image_id = NEW.image_id
                    AND f.rater_id = NEW.rater_id)
  ORDER BY b.id LIMIT 1;
  IF missing IS NOT NULL THEN
    SELECT name INTO who FROM raters WHERE id = NEW.rater_id;
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = format(
      '%s holds none of the %s places of image %s in batch %s, which hands its images out '
      'by claims: claim it first (it is refused when all its places are taken).',
      who, k, NEW.image_id, missing);
  END IF;
  RETURN NEW;
END""",
    "slicereview_rule_places_once": """
BEGIN
  IF EXISTS (SELECT 1 FROM slots s WHERE s.batch_id = NEW.batch_id
             AND s.xmin <> xid(pg_current_xact_id())) THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = format(
      'Batch %s already hands its images out by claims: its places per image are made once, '
      'when it is opened, so no image gets more annotators than it was opened with.',
      NEW.batch_id);
  END IF;
  RETURN NEW;
END""",
}


def _when(table: str, extra: str = "") -> str:
    """A trigger's ``WHEN``: where row-level security acts on ``table`` (not for the tables'
    owner or a superuser), evaluated as the login that wrote the row."""
    return f"WHEN ({extra}pg_catalog.row_security_active(CAST('public.{table}' AS regclass)))"


#: ``(name, table): CREATE TRIGGER ...`` of every rule.
TRIGGERS: dict[tuple[str, str], str] = {
    ("slicereview_submitted_has_polygons", "annotations"): (
        "CREATE CONSTRAINT TRIGGER slicereview_submitted_has_polygons AFTER INSERT OR UPDATE "
        "OF status ON annotations DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
        + _when("annotations", "NEW.status = 'submitted' AND ")
        + " EXECUTE FUNCTION slicereview_rule_submitted()"),
    ("slicereview_submitted_keeps_polygons", "polygons"): (
        "CREATE CONSTRAINT TRIGGER slicereview_submitted_keeps_polygons AFTER DELETE OR UPDATE "
        "OF annotation_id ON polygons DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
        + _when("polygons") + " EXECUTE FUNCTION slicereview_rule_submitted()"),
    ("slicereview_held_back", "annotations"): (
        "CREATE TRIGGER slicereview_held_back BEFORE INSERT OR UPDATE OR DELETE ON annotations "
        "FOR EACH ROW " + _when("annotations")
        + " EXECUTE FUNCTION slicereview_rule_held_back()"),
    ("slicereview_held_back", "polygons"): (
        "CREATE TRIGGER slicereview_held_back BEFORE INSERT OR UPDATE OR DELETE ON polygons "
        "FOR EACH ROW " + _when("polygons")
        + " EXECUTE FUNCTION slicereview_rule_held_back_polygon()"),
    ("slicereview_needs_place", "annotations"): (
        "CREATE TRIGGER slicereview_needs_place BEFORE INSERT OR UPDATE OF rater_id, image_id, "
        "phase ON annotations FOR EACH ROW " + _when("annotations")
        + " EXECUTE FUNCTION slicereview_rule_place()"),
    ("slicereview_places_made_once", "slots"): (
        "CREATE TRIGGER slicereview_places_made_once BEFORE INSERT ON slots FOR EACH ROW "
        + _when("slots") + " EXECUTE FUNCTION slicereview_rule_places_once()"),
}

#: The change counter, run by every write transaction of every login (:mod:`.postgres`): the
#: one write any login makes to the state table, whose row is otherwise the tables' owner's
#: alone (no login may ``UPDATE`` or ``DELETE`` it). It returns the transaction's id and sends
#: the change notice.
COUNT_FN = "slicereview_count_change"
#: The channel of the change notices and what every committed write sends on it.
CHANNEL, CHANGED = "slicereview", "change"
_COUNT_BODY = f"""
BEGIN
  UPDATE slicereview_project SET data_version = data_version + 1;
  PERFORM pg_notify('{CHANNEL}', '{CHANGED}');
  RETURN CAST(pg_current_xact_id() AS text);
END"""


def statements() -> list[str]:
    """Every statement :func:`install_rules` runs to make the functions (triggers apart)."""
    made = [f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql {_SAFE} "
            f"AS $${body}$$" for name, body in FUNCTIONS.items()]
    return [*made, *(f"REVOKE ALL ON FUNCTION {name}() FROM PUBLIC" for name in FUNCTIONS)]


def install_counter(conn: Any) -> None:
    """Make the change counter's function (every server project has it: :mod:`.postgres`
    calls it), in the caller's transaction on ``conn`` (the tables' owner's)."""
    conn.execute(f"CREATE OR REPLACE FUNCTION {COUNT_FN}() RETURNS text LANGUAGE plpgsql "
                 f"VOLATILE {_SAFE} AS $${_COUNT_BODY}$$")


def install_rules(conn: Any) -> None:
    """Make the rules' functions and triggers (those missing), in the caller's transaction
    on ``conn`` (a connection of the tables' owner)."""
    for statement in statements():
        conn.execute(statement)
    have = {(r[0], r[1]) for r in conn.execute(
        "SELECT t.tgname, c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT t.tgisinternal AND "
        "n.nspname = current_schema()")}
    for key, statement in TRIGGERS.items():
        if key not in have:
            conn.execute(statement)


def rules_in_place(conn: Any, *, counter_only: bool = False) -> bool:
    """Whether the change counter's function and (unless ``counter_only``) every rule's
    function and trigger is there as this version words it."""
    names = [COUNT_FN] if counter_only else [*FUNCTIONS, COUNT_FN]
    bodies = {r[0]: r[1] for r in conn.execute(
        "SELECT p.proname, p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = "
        "p.pronamespace WHERE n.nspname = current_schema() AND p.proname = ANY(%s)",
        (names,))}
    if bodies.get(COUNT_FN) != _COUNT_BODY or any(
            bodies.get(name) != FUNCTIONS[name] for name in names if name != COUNT_FN):
        return False
    if counter_only:
        return True
    have = {(r[0], r[1]) for r in conn.execute(
        "SELECT t.tgname, c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT t.tgisinternal AND "
        "n.nspname = current_schema()")}
    return set(TRIGGERS) <= have
