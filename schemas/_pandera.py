"""pandera's polars API, imported without pandas.

pandera imports pandas whenever it is installed (streamlit installs it), which costs about
1.5 s at the start of every `paisai ingest` although polars frames never need it; pandera
supports running without pandas (its polars-only install). So pandas is hidden for the
duration of pandera's own import. A process that has imported pandas already (the
dashboard) gets pandera as usual; either way the polars API is the same.
"""

from __future__ import annotations

import importlib.abc
import sys


class _WithoutPandas(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError("No module named 'pandas'", name=name)
        return None


_hide = _WithoutPandas()
sys.meta_path.insert(0, _hide)
try:
    import pandera.polars as pa
finally:
    sys.meta_path.remove(_hide)

__all__ = ["pa"]
