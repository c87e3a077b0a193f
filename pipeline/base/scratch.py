"""Scratch files and folders named after the process that made them, so that a run killed
half-way (`kill -9`, a power cut) leaves nothing a later run trips over: the next run clears
every scratch whose process is gone.

>>> name = scratch_name("site", "building")
>>> name.startswith(".site.building-") and name.split("-")[1] == str(os.getpid())
True
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def scratch_name(base: str, kind: str) -> str:
    return f".{base}.{kind}-{os.getpid()}-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clear_dead(folder: Path, base: str, kind: str) -> None:
    """Remove the scratch files and folders `kind` of `base` left in `folder` by dead runs."""
    prefix = f".{base}.{kind}-"
    try:
        found = [p for p in folder.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return
    for path in found:
        pid = path.name[len(prefix):].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)


def make_dir(folder: Path, base: str, kind: str) -> Path:
    """A new scratch folder in `folder` (dead runs' scratch cleared first)."""
    clear_dead(folder, base, kind)
    return Path(tempfile.mkdtemp(prefix=scratch_name(base, kind), dir=folder))


def file_path(folder: Path, base: str, kind: str) -> Path:
    """A scratch file's path in `folder` (not created; dead runs' scratch cleared first)."""
    clear_dead(folder, base, kind)
    return folder / f"{scratch_name(base, kind)}{os.urandom(4).hex()}"
