"""The migration that adds de-identified copies and the owner's UID map (docs/privacy.md).

`shared_copies`: per source, its de-identified copy, which everyone but the owner gets (work
packages, the logins of annotators and reviewers on a server, ``--deidentify`` exports): the
copy's SHA-256, its neutral file name, its size, and how to make it from the original --
`header` followed by the original's bytes `keep_start`..`keep_end` (a DICOM file's pixel data,
unchanged), or `header` alone; NULL header: made again from the original when needed.
`warnings` (JSON list) say why the owner should look at the image before sharing it (text
burned into the pixels); `rules` is the version of the de-identification rules.
`shared_parts`: the copy's bytes themselves, in parts of at most 4 MiB, where logins that
cannot read the original need them (a server project).

Only the owner reads the next three (a server's row-level policies, store/postgres_privacy.py;
a work package never holds them): `uid_map` (each original UID and its replacement),
`privacy_keys` (the secret seed that makes the replacements consistent) and `source_origins`
(the path a source was imported from, where `sources.path` holds a neutral name).

`privacy_log`: every change of the project's privacy setting (what others get: de-identified
copies or the originals; how images are named to them: case ids or file names), who made it
and when; the newest row is in force, no row means the default (de-identified, case ids).
"""

_SHARED_COPIES_AND_UID_MAP = """
CREATE TABLE shared_copies (
    source_id  INTEGER PRIMARY KEY REFERENCES sources(id) ON DELETE CASCADE,
    sha256     TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    header     BLOB,
    keep_start INTEGER,
    keep_end   INTEGER,
    warnings   TEXT NOT NULL DEFAULT '[]',
    rules      INTEGER NOT NULL,
    made_at    TEXT NOT NULL
);

CREATE TABLE shared_parts (
    sha256 TEXT NOT NULL REFERENCES shared_copies(sha256) ON DELETE CASCADE,
    part   INTEGER NOT NULL,
    data   BLOB NOT NULL,
    PRIMARY KEY (sha256, part)
);

CREATE TABLE uid_map (
    original    TEXT PRIMARY KEY,
    replacement TEXT NOT NULL
);
CREATE INDEX uid_map_by_replacement ON uid_map (replacement);

CREATE TABLE privacy_keys (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE source_origins (
    source_id INTEGER PRIMARY KEY REFERENCES sources(id) ON DELETE CASCADE,
    path      TEXT NOT NULL
);

CREATE TABLE privacy_log (
    id         INTEGER PRIMARY KEY,
    images     TEXT NOT NULL CHECK (images IN ('deidentified', 'originals')),
    names      TEXT NOT NULL CHECK (names IN ('case_ids', 'file_names')),
    changed_by TEXT NOT NULL,
    changed_at TEXT NOT NULL
);
"""
