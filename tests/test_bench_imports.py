"""`make bench` starts by importing every group's module: a helper renamed in one bench
module and still imported by another (bench/live_rerun.py asked bench/hall.py for a function a
merge had renamed) stops every group, found only when someone runs the benches."""

from __future__ import annotations

import importlib
import inspect


def test_every_bench_group_imports_and_runs_a_callable():
    main = importlib.import_module("bench.__main__")
    assert {"hall", "burst", "history", "associations", "liverun", "storage"} <= set(main.GROUPS)
    for name, group in main.GROUPS.items():
        assert callable(group), name
    for module in ("hall", "burst", "live_rerun", "history", "storage", "associations"):
        loaded = importlib.import_module(f"bench.{module}")
        assert callable(loaded.run) and inspect.signature(loaded.run), module
