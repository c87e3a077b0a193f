"""The dashboard's doctests (pytest collects doctests under pipeline/ only: the page scripts
in dashboard/views run at import), here for the modules whose examples say what they do."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["dashboard.i18n", "dashboard.console.registration",
                                  "dashboard.audience", "dashboard.versioned"])
def test_examples(name):
    found = doctest.testmod(importlib.import_module(name))
    assert found.attempted > 0 and found.failed == 0
