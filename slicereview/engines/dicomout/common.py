"""What SEG and SR objects share: the device that made them, person names, text values.

Example
-------
>>> person_name("Dr. Ann Smith")
'Dr. Ann Smith^'
>>> long_string("a\\\\b\\n" + "x" * 70) == "a b " + "x" * 60
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydicom import Dataset
from pydicom.sr.coding import Code

#: The private coding scheme of concepts no standard code names (a review decision,
#: Krippendorff's α, a grade): [DICOM-PS3.16, Section 8] reserves designators starting "99" for
#: private schemes.
SCHEME = "99SLRV"
SCHEME_NAME = "slicereview review concepts"

MANUFACTURER = "slicereview"
MODEL = "slicereview"
#: Device Serial Number is Type 1 in the Enhanced General Equipment module; software has none.
DEVICE_SERIAL = "none"


def private_code(value: str, meaning: str) -> Code:
    """A concept of the private scheme :data:`SCHEME`.

    >>> private_code("accept", "Accepted").scheme_designator
    '99SLRV'
    """
    return Code(value, SCHEME, meaning)


@dataclass(frozen=True)
class Authoring:
    """Who and what wrote an object, and where it goes in the series list.

    ``series_description`` names the project, phase and round; ``software_version`` is the
    writing program's version; ``series_number``/``instance_number`` place it in its series.
    """

    series_description: str
    software_version: str
    series_uid: str
    series_number: int = 1
    instance_number: int = 1


_PN_BAD = re.compile(r"[\^=\\\x00-\x1f\x7f]+")
_LO_BAD = re.compile(r"[\\\x00-\x1f\x7f]+")


def person_name(display_name: str) -> str:
    """A display name as a DICOM person name: the whole name as the family-name component
    (a trailing caret says "one component on purpose"), at most 64 characters, without the
    component separators ``^`` and ``=`` or a backslash.

    >>> person_name("Simulated A"), person_name("a^b=c")
    ('Simulated A^', 'a b c^')
    """
    text = " ".join(_PN_BAD.sub(" ", display_name).split())[:64].strip() or "unnamed"
    return text + "^"


def long_string(text: str, limit: int = 64) -> str:
    """``text`` as an LO value: control characters and backslashes replaced by spaces,
    whitespace collapsed, at most ``limit`` characters."""
    return " ".join(_LO_BAD.sub(" ", text).split())[:limit]


def declare_scheme(ds: Dataset) -> None:
    """Name the private coding scheme in the Coding Scheme Identification Sequence."""
    item = Dataset()
    item.CodingSchemeDesignator = SCHEME
    item.CodingSchemeName = SCHEME_NAME
    item.CodingSchemeResponsibleOrganization = MANUFACTURER
    ds.CodingSchemeIdentificationSequence = [item]


def set_utf8(ds: Dataset) -> None:
    """Declare UTF-8 (``ISO_IR 192``): names and comments may use any script, and values
    copied from the source (in its own character set) are decoded already."""
    ds.SpecificCharacterSet = "ISO_IR 192"
