"""Are the system libraries of Qt's X11 platform plugin installed? Asked before Qt starts.

Qt's X11 (``xcb``) platform plugin links some twenty system libraries. When any one of them is
missing, Qt prints "xcb-cursor0 or libxcb-cursor0 is needed to load the Qt xcb platform
plugin" and aborts, even when ``libxcb-cursor0`` is installed and ``libxcb-icccm4`` is what is
missing. :func:`missing_libraries_reason` names the libraries that are really missing and the
packages that provide them, before the application is created.

How, and what it costs: the plugin is loaded with ``dlopen`` (:class:`ctypes.CDLL`), exactly
the libraries Qt loads a moment later (loading them twice costs nothing: the second load finds
them in memory). Only when that fails for a missing library does ``ldd`` list *every* missing
one. The check runs on Linux only, and only when Qt will use the xcb plugin
(:func:`xcb_expected`); Qt-free: nothing here imports Qt.

Example
-------
>>> parse_ldd('''
...     libxcb-icccm.so.4 => not found
...     libQt6Gui.so.6 => /opt/qt/lib/libQt6Gui.so.6 (0x00007f1d2c400000)
...     libxcb-keysyms.so.1 => not found
...     libxcb-icccm.so.4 => not found''')
['libxcb-icccm.so.4', 'libxcb-keysyms.so.1']
>>> packages(['libxcb-icccm.so.4', 'libxcb-keysyms.so.1'])
(['libxcb-icccm4', 'libxcb-keysyms1'], ['xcb-util-wm', 'xcb-util-keysyms'])
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

#: Debian/Ubuntu packages of every library Qt needs for a window on X11 (the README's Quick
#: start and ``.ci/run`` install exactly these; a test keeps the three lists equal).
APT_PACKAGES = (
    "libegl1", "libgl1", "libxkbcommon0", "libfontconfig1", "libdbus-1-3", "libglib2.0-0",
    "libxkbcommon-x11-0", "libx11-6", "libx11-xcb1", "libxcb1", "libxcb-cursor0",
    "libxcb-icccm4", "libxcb-image0", "libxcb-keysyms1", "libxcb-randr0", "libxcb-render0",
    "libxcb-render-util0", "libxcb-shape0", "libxcb-shm0", "libxcb-sync1", "libxcb-util1",
    "libxcb-xfixes0", "libxcb-xkb1",
)

#: Fedora/RHEL packages of the same libraries (the rest come with them as dependencies).
DNF_PACKAGES = (
    "libglvnd-egl", "libglvnd-glx", "libxkbcommon-x11", "fontconfig", "dbus-libs", "glib2",
    "libX11-xcb", "xcb-util-cursor", "xcb-util-wm", "xcb-util-image", "xcb-util-keysyms",
    "xcb-util-renderutil", "xcb-util",
)

_XCB = "libxcb"  # libxcb-randr, -render, -shape, -shm, -sync, -xfixes, -xkb: one Fedora package
_LIBC = ("libc6", "glibc")
#: Library (soname) -> (Debian/Ubuntu package, Fedora/RHEL package), for every library outside
#: Qt that Qt's GUI libraries and the xcb plugin link directly, and the few further ones that
#: the Debian naming rule of :func:`packages` gets wrong (a Fedora package of None: ask dnf for
#: the library itself).
LIBRARY_PACKAGES: dict[str, tuple[str, str | None]] = {
    "libc.so.6": _LIBC, "libm.so.6": _LIBC, "libdl.so.2": _LIBC, "libpthread.so.0": _LIBC,
    "libgcc_s.so.1": ("libgcc-s1", "libgcc"),
    "libstdc++.so.6": ("libstdc++6", "libstdc++"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libz.so.1": ("zlib1g", "zlib"),
    "libzstd.so.1": ("libzstd1", "libzstd"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libxcb.so.1": ("libxcb1", _XCB),
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-randr.so.0": ("libxcb-randr0", _XCB),
    "libxcb-render.so.0": ("libxcb-render0", _XCB),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-shape.so.0": ("libxcb-shape0", _XCB),
    "libxcb-shm.so.0": ("libxcb-shm0", _XCB),
    "libxcb-sync.so.1": ("libxcb-sync1", _XCB),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", _XCB),
    "libxcb-xkb.so.1": ("libxcb-xkb1", _XCB),
    "libGLdispatch.so.0": ("libglvnd0", "libglvnd"),
    "libbrotlicommon.so.1": ("libbrotli1", None),
    "libbrotlidec.so.1": ("libbrotli1", None),
}

_LISTED = 6  # more missing libraries are counted, not listed (the packages are all named)
_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.MULTILINE)
_DLERROR = re.compile(r"(?:^|: )(\S+?\.so[.\d]*): cannot open shared object file")


def xcb_expected(environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Will Qt open its windows with the xcb plugin here?

    On Linux: when ``QT_QPA_PLATFORM`` names ``xcb`` first, or is unset outside a Wayland
    session (``XDG_SESSION_TYPE=wayland`` makes Qt choose its Wayland plugin).

    >>> xcb_expected({"QT_QPA_PLATFORM": "xcb"}, "linux")
    True
    >>> xcb_expected({"QT_QPA_PLATFORM": "offscreen"}, "linux"), xcb_expected({}, "win32")
    (False, False)
    >>> xcb_expected({"XDG_SESSION_TYPE": "wayland"}, "linux")
    False
    """
    environ = os.environ if environ is None else environ
    if not (platform or sys.platform).startswith("linux"):
        return False
    chosen = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if chosen:
        return chosen == "xcb"
    return environ.get("XDG_SESSION_TYPE", "").strip().lower() != "wayland"


def xcb_plugin() -> Path | None:
    """The xcb plugin of the installed PySide6 (located without importing it), or None."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        plugin = Path(folder) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
        if plugin.is_file():
            return plugin
    return None


def parse_ldd(output: str) -> list[str]:
    """The libraries ``ldd`` reports as "not found", once each, in its order."""
    return list(dict.fromkeys(_NOT_FOUND.findall(output)))


def missing_libraries(plugin: Path) -> list[str]:
    """The shared libraries ``plugin`` needs that the dynamic loader cannot find.

    Empty when ``plugin`` loads, or when it fails to load for another reason than a missing
    library (an ABI mismatch is left for Qt to report).
    """
    import ctypes  # the rest only on the failure path: start-up pays for none of it

    try:
        ctypes.CDLL(str(plugin))
        return []
    except OSError as exc:
        first = _DLERROR.search(str(exc))
    if first is None:
        return []
    import shutil
    import subprocess

    ldd = shutil.which("ldd")
    if ldd is not None:
        try:
            out = subprocess.run([ldd, str(plugin)], capture_output=True, text=True,
                                 timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        if found := parse_ldd(out):
            return found
    return [first.group(1)]


def packages(libraries: list[str]) -> tuple[list[str], list[str]]:
    """The Debian/Ubuntu and the Fedora/RHEL packages of ``libraries``, once each.

    A library outside :data:`LIBRARY_PACKAGES` is named for apt by the Debian naming rule
    (``libFoo.so.1`` -> ``libfoo1``, ``libfoo2.so.0`` -> ``libfoo2-0``) and for dnf as dnf
    finds any library (``'libFoo.so.1()(64bit)'``).

    >>> packages(["libxkbcommon-x11.so.0", "libpng16.so.16"])
    (['libxkbcommon-x11-0', 'libpng16-16'], ['libxkbcommon-x11', "'libpng16.so.16()(64bit)'"])
    """
    deb: list[str] = []
    rpm: list[str] = []
    for library in libraries:
        stem, _, version = library.partition(".so.")
        sep = "-" if stem[-1:].isdigit() else ""
        debian, fedora = LIBRARY_PACKAGES.get(
            library, (f"{stem}{sep}{version.split('.')[0]}".lower(), None))
        for found, package in ((deb, debian), (rpm, fedora or f"'{library}()(64bit)'")):
            if package not in found:
                found.append(package)
    return deb, rpm


def missing_libraries_reason(environ: Mapping[str, str] | None = None) -> str | None:
    """What to install so that Qt can open a window, or None when nothing is missing.

    None also when Qt will not use the xcb plugin (:func:`xcb_expected`) or PySide6 has none.
    """
    if not xcb_expected(environ):
        return None
    plugin = xcb_plugin()
    if plugin is None:
        return None
    missing = missing_libraries(plugin)
    if not missing:
        return None
    deb, rpm = packages(missing)
    named = ", ".join(missing) if len(missing) <= _LISTED else (
        f"{len(missing)} libraries ({', '.join(missing[:3])} and {len(missing) - 3} more)")
    return (f"Qt cannot open a window: its X11 platform plugin needs {named}, not installed "
            f"on this system (Qt itself would only say that xcb-cursor0 is needed). Install "
            f"{'it' if len(deb) == 1 else 'them'} and start again:\n"
            f"    sudo apt-get install {' '.join(deb)}\n"
            f"on Fedora/RHEL: sudo dnf install {' '.join(rpm)}")
