"""Where a project lives: a project file (``.srproj``) or a PostgreSQL database (a URL).

A *location* is what every command and dialog accepts in place of a project: a path, or a
libpq URL such as ``postgresql://anna@db.example.org:5432/study`` or
``postgresql:///study?host=/var/run/postgresql`` (a Unix socket). A password written into a URL
is used to connect but never shown: :func:`describe` prints the location without it.

Example
-------
>>> is_server("postgresql://anna:secret@db.example.org/study")
True
>>> describe("postgresql://anna:secret@db.example.org/study")
'postgresql://anna@db.example.org/study'
>>> as_location("study.srproj")
PosixPath('study.srproj')
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

#: What a location of a server project starts with (libpq accepts both schemes).
SERVER_SCHEMES = ("postgresql://", "postgres://")

#: A project file's path or a server project's URL.
Location = str | Path


def is_server(location: Location) -> bool:
    """Whether ``location`` names a PostgreSQL database rather than a project file."""
    return isinstance(location, str) and location.strip().lower().startswith(SERVER_SCHEMES)


def as_location(text: Location) -> Location:
    """A command-line argument as a location: a URL stays a string, anything else is a
    :class:`~pathlib.Path` (for ``argparse`` ``type=``; ``Path`` itself would fold the URL's
    ``//``)."""
    if is_server(text):
        return str(text).strip()
    return Path(text)


def describe(location: Location) -> str:
    """``location`` as shown to people: a path as it is, a URL without its password
    (also a ``password=`` query parameter), still a URL when it has no host (a Unix socket).

    >>> describe("postgresql:///study?host=/var/run/postgresql&password=secret")
    'postgresql:///study?host=/var/run/postgresql'
    """
    if not is_server(location):
        return str(location)
    parts = urlsplit(str(location).strip())
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        netloc = f"{userinfo.split(':', 1)[0]}@{host}"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if k.lower() != "password"], safe="/")
    # (urlunsplit drops the "//" of an empty host -- a Unix socket's URL -- for a scheme it
    # does not know, and "postgresql:/study" is then read as a file path)
    return f"{parts.scheme}://{netloc}" + urlunsplit(("", "", parts.path, query,
                                                      parts.fragment))


def with_password(url: str, password: str) -> str:
    """``url`` with ``password`` in it (percent-encoded), for a connection made in memory;
    :func:`describe` takes it out again for people.

    >>> with_password("postgresql://anna@db/study", "p@ss word")
    'postgresql://anna:p%40ss%20word@db/study'
    >>> describe(with_password("postgresql://anna@db/study", "secret"))
    'postgresql://anna@db/study'
    """
    from urllib.parse import quote

    parts = urlsplit(url.strip())
    netloc = parts.netloc
    userinfo, at, host = netloc.rpartition("@")
    user = userinfo.split(":", 1)[0] if at else ""
    netloc = f"{user}:{quote(password, safe='')}@{host if at else netloc}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
