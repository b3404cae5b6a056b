"""The project's privacy setting: what everyone but the owner gets of the images, and how they
are named to them (docs/privacy.md). Rules held here:

* **the default shares de-identified copies named by case id** -- work packages, the logins
  of annotators and reviewers on a server and ``--deidentify`` exports get each image's
  *shared copy* (:mod:`.sharing`); the owner's own login keeps the originals;
* **only the owner changes it, deliberately** -- :func:`change` needs the owner's login (on
  a file, whoever holds it) and records the new setting with who made it and when; the front
  ends show :func:`describe_change` and ask for a confirmation first;
* **who reads originals** (:func:`reads_originals`): a project file's user, the owner's
  login on a server, and every login while the project shares originals (or while the
  database keeps them from nobody: logins given all rights by hand, no ``people add``);
* **names on a server follow the setting** -- with case ids, every source with a shared copy
  is named by it (its path kept as the owner's origin); with file names, they get their
  original paths back.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> with Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj") as project:
...     first = setting(project).images
...     _ = change(project, images=SharedImages.ORIGINALS, by="anna")
...     str(first), str(setting(project).images), setting(project).changed_by
('deidentified', 'originals', 'anna')
"""

from __future__ import annotations

from slicereview.model import PrivacySetting, SharedImages, SharedNames
from slicereview.store import Project


class NotOwnerError(PermissionError):
    """Only the project's owner may change its privacy setting."""


def setting(project: Project) -> PrivacySetting:
    """The setting in force (the default until the owner changes it)."""
    return project.privacy.setting()


def is_owner_login(project: Project) -> bool:
    """Whether this connection is the owner's: always on a project file (whoever holds it);
    on a server, a login whose rater is an owner, the tables' owner or a superuser."""
    return project.privacy.is_owner_login()


def reads_originals(project: Project) -> bool:
    """Whether this connection is given the original image files (see the module text): also
    every login of a server whose database does not keep the originals from anyone (no
    ``people add`` yet: logins given all rights by hand)."""
    return (is_owner_login(project) or setting(project).images is SharedImages.ORIGINALS
            or not project.privacy.enforced())


def describe_change(old: PrivacySetting, images: SharedImages, names: SharedNames) -> str:
    """What changes when the setting becomes ``images``/``names``: the confirmation text.

    >>> print(describe_change(PrivacySetting(), SharedImages.ORIGINALS, SharedNames.CASE_IDS))
    Work packages, and the logins of annotators and reviewers on a server, will get the ORIGINAL image files, with the patient names, IDs, dates and every other header value they hold. Only do this for a team allowed to see patient data.
    """  # noqa: E501
    said = []
    if images is not old.images:
        said.append(
            "Work packages, and the logins of annotators and reviewers on a server, will get "
            "the ORIGINAL image files, with the patient names, IDs, dates and every other "
            "header value they hold. Only do this for a team allowed to see patient data."
            if images is SharedImages.ORIGINALS else
            "Work packages, and the logins of annotators and reviewers on a server, will get "
            "de-identified copies of the images (patient data removed, UIDs replaced); "
            "packages already handed out keep what they hold.")
    if names is not old.names:
        said.append(
            "Annotators will see each image's file name, which can carry a patient's name."
            if names is SharedNames.FILE_NAMES else
            "Annotators will see images by case id only.")
    return " ".join(said) or "Nothing changes."


def change(project: Project, *, images: SharedImages | None = None,
           names: SharedNames | None = None, by: str) -> PrivacySetting:
    """Record a new setting made by ``by`` (the owner's name); returns it. ``NotOwnerError``
    for another login; a change to what is in force already records nothing."""
    if not is_owner_login(project):
        raise NotOwnerError("Only the project's owner can change what others get of the "
                            "images; nothing was changed.")
    old = setting(project)
    new_images = old.images if images is None else images
    new_names = old.names if names is None else names
    if (new_images, new_names) != (old.images, old.names):
        with project.transaction():
            project.privacy.set_setting(new_images, new_names, by)
            if project.is_server and new_names is not old.names:  # (what the logins read)
                project.privacy.name_sources(new_names is SharedNames.CASE_IDS)
    return setting(project)
