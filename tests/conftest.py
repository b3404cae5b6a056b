"""Test set-up shared by every test: Qt runs offscreen, hypothesis is deterministic in CI."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_LOGGING_RULES", "qt.qpa.*=false")

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory, monkeypatch):
    """No test reads or writes the real user's settings (recent projects, window layout)."""
    monkeypatch.setenv("SLICEREVIEW_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))
    # The decoding children's log of what native decoders print (a child started in this
    # test writes there).
    monkeypatch.setenv("SLICEREVIEW_LOG_DIR", str(tmp_path_factory.mktemp("log")))


@pytest.fixture(scope="session")
def demo_project(tmp_path_factory) -> Path:  # noqa: F821
    """The demo project, built once per test run (real mammograms, MRI, simulated raters)."""
    from slicereview.demo.project import build_demo

    return build_demo(tmp_path_factory.mktemp("demo"))
