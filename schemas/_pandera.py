"""pandera's polars API, imported without pandas.

pandera imports pandas whenever it is installed (streamlit installs it), which costs about
1.5 s at the start of every `paisai ingest` although polars frames never need it; pandera
supports running without pandas (its polars-only install). So pandas is hidden for the
duration of pandera's own import and of its validations (`without_pandas`). A process that has imported pandas already (the
dashboard) gets pandera as usual; either way the polars API is the same.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Iterator
from contextlib import contextmanager


class _WithoutPandas(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError("No module named 'pandas'", name=name)
        return None


@contextmanager
def without_pandas() -> Iterator[None]:
    """pandas hidden while pandera imports itself, and while it validates (its first check
    registers its backends, which would import pandas); nothing hidden in a process that
    has pandas already."""
    if "pandas" in sys.modules:
        yield
        return
    hide = _WithoutPandas()
    sys.meta_path.insert(0, hide)
    try:
        yield
    finally:
        sys.meta_path.remove(hide)


with without_pandas():
    import pandera.polars as pa

__all__ = ["pa", "without_pandas"]
