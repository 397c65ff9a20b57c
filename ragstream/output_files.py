"""Files a command writes on request (`--save-state`, `--html`, `--predictions`, `--out`):
checked before any work starts, written whole or not at all.

A path whose folder is missing, that is a folder, or that cannot be written is refused up front
naming the option, so a long run never ends in a traceback after its work is done. The file is
written to a temporary neighbour and moved into place in one `os.replace`: a killed command
leaves the previous file (or none), never half of one.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ragstream.errors import OutputError


def check_output_file(path: str | Path, option: str) -> Path:
    """`path` when a file can be written there; an OutputError naming `option` and why not."""
    target = Path(path).expanduser()
    where = f"{option} {target}"
    if target.is_dir():
        raise OutputError("is a folder; give a file name in it", where=where)
    folder = target.parent
    if not folder.is_dir():
        raise OutputError(f"its folder {folder} does not exist" if not folder.exists()
                          else f"{folder} is not a folder", where=where, hint="create the folder first")
    if target.exists() and not os.access(target, os.W_OK):
        raise OutputError("the file cannot be written: permission denied", where=where)
    try:  # a real try, not os.access: root passes access checks that a read-only mount still refuses
        with tempfile.NamedTemporaryFile(prefix=f".{target.name}.", dir=folder):
            pass
    except OSError as exc:
        raise OutputError(f"cannot write in {folder}: {exc.strerror or exc}", where=where) from exc
    return target


def output_folder(path: str | Path, option: str) -> Path:
    """The folder `path`, made if missing; an OutputError naming `option` when it cannot be."""
    folder = Path(path).expanduser()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # FileExistsError: a file is in the way
        why = "a file is in the way" if isinstance(exc, FileExistsError) else exc.strerror or str(exc)
        raise OutputError(f"cannot make the folder: {why}", where=f"{option} {folder}") from exc
    return folder


def write_output_file(path: str | Path, data: str | bytes, option: str) -> Path:
    """Write `data` to `path` atomically (checked first); an OSError on the way is an OutputError."""
    target = check_output_file(path, option)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(payload)
            os.chmod(temporary, _mode_for(target))
            os.replace(temporary, target)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as exc:
        raise OutputError(f"cannot write the file: {exc.strerror or exc}", where=f"{option} {target}") from exc
    return target


def _mode_for(target: Path) -> int:
    """The mode a plain write would give: the file's own when it exists, else 0o666 less the umask
    (a temporary file is made 0o600)."""
    if target.exists():
        return target.stat().st_mode & 0o7777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
