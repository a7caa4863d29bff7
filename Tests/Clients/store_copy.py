"""A SpatiaLite store copied as a user backs one up: the database through SQLite's backup API
(consistent while a server has it open) and its audit key beside it, without which the copy can be
read but not written (a keyed store is written only by a process that holds its key:
docs/operations.md, "The audit log")."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

AUDIT_KEY_SUFFIX = ".audit-key"


def copy_store(source: Path | str, target: Path | str) -> Path:
    """Copies the store `source` to `target` (replacing it), with its audit key when it has one."""
    source, target = Path(source), Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    with sqlite3.connect(source) as a, sqlite3.connect(target) as b:
        a.backup(b)
    key = Path(str(source) + AUDIT_KEY_SUFFIX)
    copied_key = Path(str(target) + AUDIT_KEY_SUFFIX)
    copied_key.unlink(missing_ok=True)
    if key.exists():
        shutil.copy2(key, copied_key)
    return target
