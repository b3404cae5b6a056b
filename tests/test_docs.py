"""What the code and the docs cite exists in the repository, and nothing cites what is not in it.

* every ``docs/NAME.md`` the code, the tests, the README and the docs name is a file, and every
  heading cited with it — ``docs/design.md, "Conventions"`` (a heading that starts with the quoted
  words) or ``docs/design.md#conventions`` — is a heading of that file; Markdown links between the
  docs (``[text](design.md#glossary)``) land on a file and heading too;
* every citation key — ``[Jang2022]``, ``[CrowdSegQA, Table 1]`` — is an entry of
  ``docs/references.md``, and every ``§``, ``Table N``, ``Fig. N``, ``Eq. N`` and ``Algorithm N``
  sits inside such a citation (a ``§`` is always a section of a cited work, never of ours);
* nothing cites ``../shared``, ``DESIGN.md``, "the paper", "seed 000" or a background document's
  file name.

These read the source tree, so they run from a clone (as CI does), not from an installed wheel.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
REFERENCES = DOCS / "references.md"

pytestmark = pytest.mark.skipif(not (DOCS.is_dir() and (REPO / "slicereview").is_dir()),
                                reason="needs the source tree (docs/ beside slicereview/)")

#: A docs file named in text: ``docs/design.md``, optionally ``#anchor`` or ``, "Heading"``.
DOC_CITE = re.compile(r'(?<![\w/.-])docs/([\w-]+\.md)(?:#([\w-]+)|,\s+"([^"\n]+)")?')
#: A relative Markdown link inside docs/ or the README: ``](design.md#glossary)``.
MD_LINK = re.compile(r"\]\(((?:docs/)?[\w-]+\.md)(?:#([\w-]+))?\)")
#: A bracketed group, at most over one line break, not a Markdown link's text.
BRACKETS = re.compile(r"\[([^\[\]\n]*(?:\n[^\[\]\n]*)?)\](?!\()")
#: What a citation key looks like: a capital, then letters, digits, dots or hyphens.
KEY = re.compile(r"[A-Z][A-Za-z0-9.-]*")
#: A key that is clearly meant as a citation even when unknown: it ends in a year.
YEAR_KEY = re.compile(r"[A-Z][A-Za-z-]*(?:19|20)\d\d[a-z]?")
#: Places in a work, which need a citation around them.
LOCATOR = re.compile(r"§|\bTable \d|\bFig\. ?\d|\bEq\. ?\d|\bAlgorithm \d")
#: Citations of what is not in the repository.
FORBIDDEN = {
    "a path under ../shared": re.compile(r"\.\./shared|\bshared/(?:sources|reference)\b"),
    "DESIGN.md": re.compile(r"\bDESIGN(?:\.md|\s+§)"),
    '"the paper"': re.compile(r"\b(?:the|this|that|our)\s+(?:[\w-]+\s+){0,3}paper\b", re.I),
    '"seed 00N"': re.compile(r"\bseed 00\d\b"),
    "a background document's file name": re.compile(r"\b\d{3}_[0-9a-f]{16}\b"),
}


def _sources() -> list[Path]:
    """Every text file that may cite: the package, the tests, the docs, the README, the
    packaging and CI files."""
    files = [*sorted((REPO / "slicereview").rglob("*.py")),
             *sorted((REPO / "slicereview").rglob("*.pyi")),
             *sorted(p for p in (REPO / "tests").rglob("*.py") if p != Path(__file__).resolve()),
             *sorted((REPO / "tests").rglob("*.md")),
             *sorted(DOCS.glob("*.md")), REPO / "README.md", REPO / "pyproject.toml",
             *sorted(p for p in (REPO / "packaging").rglob("*") if p.is_file()),
             *sorted(p for p in (REPO / ".ci").glob("*") if p.is_file())]
    return [p for p in files if p.is_file() and "__pycache__" not in p.parts]


@cache
def _text(path: Path) -> str:
    try:
        return path.read_text("utf-8")
    except UnicodeDecodeError:  # a binary file in packaging/ (an icon)
        return ""


def _where(path: Path, text: str, pos: int) -> str:
    return f"{path.relative_to(REPO)}:{text.count(chr(10), 0, pos) + 1}"


def _heading_text(line: str) -> str:
    """A Markdown heading's words without ``#``, emphasis and code marks."""
    return re.sub(r"[*_`]", "", line.lstrip("#")).strip()


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens.

    >>> slug("Data paths: from a key press to the store and back")
    'data-paths-from-a-key-press-to-the-store-and-back'
    >>> slug("The store's transactions")
    'the-stores-transactions'
    """
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


@cache
def _headings(name: str) -> tuple[str, ...]:
    text = _text(DOCS / name)
    in_code = False
    found = []
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and re.match(r"#{1,6} ", line):
            found.append(_heading_text(line))
    return tuple(found)


@cache
def reference_keys() -> frozenset[str]:
    """The keys of ``docs/references.md``: each entry starts ``**[Key]**``."""
    return frozenset(re.findall(r"^\*\*\[([^\]]+)\]\*\*", _text(REFERENCES), re.M))


def _citation_key(inside: str) -> str | None:
    """The key of a bracketed group if it is a citation (``Key`` or ``Key, place``), else None
    (``list[Image]``, ``[0, 1]``, ``dict[str, Any]``...)."""
    head, _, place = inside.partition(",")
    head = head.strip()
    if not KEY.fullmatch(head):
        return None
    place = re.sub(r"\s*\n\s*(?:#:?\s*)?", " ", place).strip()
    if head in reference_keys() or YEAR_KEY.fullmatch(head) or LOCATOR.match(place):
        return head
    return None


def test_references_lists_keys_once_with_a_link_or_an_isbn() -> None:
    """Each key once; each entry with a DOI/URL or ISBN, or saying plainly that it has none."""
    text = _text(REFERENCES)
    keys = re.findall(r"^\*\*\[([^\]]+)\]\*\*", text, re.M)
    assert len(keys) >= 20 and len(keys) == len(set(keys)), keys
    entries = re.split(r"^\*\*\[", text, flags=re.M)[1:]
    for entry in entries:
        key = entry.split("]", 1)[0]
        assert KEY.fullmatch(key), f"{key}: a key starts with a capital (letters, digits, . -)"
        assert ("<http" in entry or "ISBN" in entry or "**Not yet identified:**" in entry), (
            f"[{key}] has no DOI/URL or ISBN (or says it is not yet identified)")


def test_every_cited_docs_file_and_heading_exists() -> None:
    missing = []
    for path in _sources():
        text = _text(path)
        for m in DOC_CITE.finditer(text):
            name, anchor, heading = m.groups()
            if not (DOCS / name).is_file():
                missing.append(f"{_where(path, text, m.start())}: docs/{name} does not exist")
            elif anchor and anchor not in {slug(h) for h in _headings(name)}:
                missing.append(f"{_where(path, text, m.start())}: no heading #{anchor} "
                               f"in docs/{name}")
            elif heading and not any(h.lower().startswith(heading.lower())
                                     for h in _headings(name)):
                missing.append(f'{_where(path, text, m.start())}: no heading "{heading}" '
                               f"in docs/{name}")
    assert not missing, "\n".join(missing)


def test_markdown_links_between_docs_land() -> None:
    missing = []
    for path in [REPO / "README.md", *sorted(DOCS.glob("*.md"))]:
        text = _text(path)
        for m in MD_LINK.finditer(text):
            target, anchor = m.groups()
            file = (path.parent / target).resolve()
            if not file.is_file():
                missing.append(f"{_where(path, text, m.start())}: {target} does not exist")
            elif anchor and file.parent == DOCS and anchor not in {
                    slug(h) for h in _headings(file.name)}:
                missing.append(f"{_where(path, text, m.start())}: no heading #{anchor} in "
                               f"{target}")
        if path.parent == DOCS:  # links within the page: [Glossary](#glossary)
            for m in re.finditer(r"\]\(#([\w-]+)\)", text):
                if m.group(1) not in {slug(h) for h in _headings(path.name)}:
                    missing.append(f"{_where(path, text, m.start())}: no heading "
                                   f"#{m.group(1)} in {path.name}")
    assert not missing, "\n".join(missing)


def test_every_citation_key_is_in_the_references() -> None:
    unknown = []
    for path in _sources():
        text = _text(path)
        for m in BRACKETS.finditer(text):
            key = _citation_key(m.group(1))
            if key is not None and key not in reference_keys():
                unknown.append(f"{_where(path, text, m.start())}: [{key}] is not in "
                               "docs/references.md")
    assert not unknown, "\n".join(unknown)


def test_places_in_a_work_are_cited_with_its_key() -> None:
    """``§``, ``Table N``, ``Fig. N``, ``Eq. N``, ``Algorithm N`` only inside ``[Key, …]``."""
    bare = []
    for path in _sources():
        if path == REFERENCES:  # the entries say what each work holds
            continue
        text = _text(path)
        cited = [(m.start(), m.end()) for m in BRACKETS.finditer(text)
                 if _citation_key(m.group(1)) in reference_keys()]
        for m in LOCATOR.finditer(text):
            if not any(a < m.start() < b for a, b in cited):
                line = text[text.rfind("\n", 0, m.start()) + 1:text.find("\n", m.start())]
                bare.append(f"{_where(path, text, m.start())}: {line.strip()}")
    assert not bare, ("cite the work: [Key, Table 1] (keys in docs/references.md)\n"
                      + "\n".join(bare))


def test_nothing_cites_what_is_not_in_the_repository() -> None:
    found = []
    for path in _sources():
        if path == REFERENCES:
            continue
        text = _text(path)
        for what, pattern in FORBIDDEN.items():
            for m in pattern.finditer(text):
                found.append(f"{_where(path, text, m.start())}: {what} ({m.group(0)!r})")
    assert not found, ("cite published works by key (docs/references.md) and this repository's "
                       'docs by path and heading (docs/design.md, "Conventions")\n'
                       + "\n".join(found))


@pytest.mark.parametrize("text, key", [
    ("[Jang2022]", "Jang2022"), ("[CrowdSegQA, Table 1]", "CrowdSegQA"),
    ("[Nobody1999, p. 3]", "Nobody1999"), ("[Unknown, §2]", "Unknown"),
    ("list[Image]", None), ("dict[str, Any]", None), ("[0, 1]", None),
    ("Mapping[Item, Item]", None), ("[c, c+1)", None),
])
def test_what_counts_as_a_citation(text: str, key: str | None) -> None:
    m = BRACKETS.search(text)
    assert (None if m is None else _citation_key(m.group(1))) == key


@pytest.mark.parametrize("text", [
    "see ../shared/sources/000_aa5d211e5568193b.txt", "DESIGN.md §6", "DESIGN §9",
    "as in the paper", "the SliceLabeler paper's", "(seed 003)",
])
def test_forbidden_citations_are_caught(text: str) -> None:
    assert any(p.search(text) for p in FORBIDDEN.values())


def test_every_reference_is_cited() -> None:
    """The list holds what the project builds on: each entry is cited by the code or a doc."""
    cited: set[str] = set()
    for path in _sources():
        if path != REFERENCES:
            text = _text(path)
            cited.update(k for m in BRACKETS.finditer(text)
                         if (k := _citation_key(m.group(1))) is not None)
    assert not reference_keys() - cited, sorted(reference_keys() - cited)
