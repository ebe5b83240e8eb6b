"""Where a sweep keeps its rows: one Parquet file ``OUT`` plus part files in ``OUT.parts/``.

Rows are written atomically as they arrive, one part per batch: a finished task of
:func:`~simcore.experiments.sweep.runner.run_sweep`, or the tasks of this sweep that one unit of
:func:`~simcore.experiments.sweep.runner.run_sweeps` ran (a unit returns them all at once, so one file saves
a write per task). A part is named after its first task, ``OUT.parts/<point_id>-<seed>.parquet``.
The end of a run merges every part into ``OUT`` and removes the merged parts. A re-run reads both
to skip the tasks already done (resume).

A part can still be damaged (a full disk, a copy from elsewhere, a hand edit). Every part is
checked before its rows are used: it must be readable Parquet, have the row columns (identity and
metrics) and begin with rows of the task its name says. A bad part is **set aside**: renamed to
``NAME.bad`` in the same folder (kept for inspection, never read again) and reported by name; its
task simply runs again. A damaged merged ``OUT`` is not set aside (it holds every finished task):
the run refuses to resume and says how to move it away.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from simcore.core.errors import UserError
from simcore.io.parquet_read import read_frame

#: Columns that identify a row: one row per (point, seed, policy).
ID_COLUMNS = ("point_id", "seed", "policy")
PART_NAME = re.compile(r"(?P<point_id>[0-9a-f]{12})-(?P<seed>[0-9]+)\.parquet")


def parts_dir(out: Path) -> Path:
    return out.with_name(out.name + ".parts")


def part_path(out: Path, point_id: str, seed: int) -> Path:
    """Where the part whose first task is (``point_id``, ``seed``) goes."""
    return parts_dir(out) / f"{point_id}-{seed}.parquet"


def _problem(df: pd.DataFrame, required: Sequence[str]) -> str | None:
    """Why ``df`` is not a table of sweep rows, or None."""
    missing = [c for c in (*ID_COLUMNS, *required) if c not in df.columns]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        return f"has the wrong columns (missing {shown})"
    if df.empty:
        return "has no rows"
    if df[list(ID_COLUMNS)].isna().any().any():
        return "has rows without point_id, seed or policy"
    if not pd.api.types.is_integer_dtype(df["seed"]):
        return f"has a seed column of type {df['seed'].dtype} (whole numbers expected)"
    return None


def _read(path: Path) -> tuple[pd.DataFrame | None, str | None]:
    try:
        return read_frame(path), None
    except Exception as exc:  # pyarrow raises many types for damaged bytes; all mean "unreadable"
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, f"is not a readable Parquet file ({first[:200]})"


def _check_part(path: Path, required: Sequence[str]) -> tuple[pd.DataFrame | None, str | None]:
    df, why = _read(path)
    if df is None:
        return None, why
    why = _problem(df, required)
    if why is None:
        name = PART_NAME.fullmatch(path.name)
        if name is None:
            why = "is not named <point_id>-<seed>.parquet"
        elif (str(df["point_id"].iloc[0]), int(df["seed"].iloc[0])) != (name["point_id"], int(name["seed"])):
            why = "begins with rows of another task than its name says"
    return (df, None) if why is None else (None, why)


def set_aside(path: Path) -> Path:
    """Rename a bad part to ``NAME.bad`` (replacing an older one of that name)."""
    bad = path.with_name(path.name + ".bad")
    os.replace(path, bad)
    return bad


def load_store(out: str | Path, required: Sequence[str] = ()) -> tuple[pd.DataFrame, list[str]]:
    """Every row stored for ``out`` (merged file plus good parts, one row per id, the last
    stored wins) and the notes about parts set aside. ``required`` are the metric columns a
    row must have besides :data:`ID_COLUMNS`. A damaged ``out`` raises :class:`UserError`."""
    out = Path(out)
    frames, notes = [], []
    if out.exists():
        df, why = _read(out)
        why = why or _problem(df, ())  # type: ignore[arg-type]  # written by an older simcore: fewer metrics is fine
        if why is not None:
            raise UserError(
                f"{out} {why}, so the sweep cannot resume from it. Move it away and run again "
                f"(mv {out} {out}.bad), or write to another file with --out"
            )
        frames.append(df)
    parts = parts_dir(out)
    if parts.is_dir():
        for path in sorted(parts.glob("*.parquet")):
            df, why = _check_part(path, required)
            if df is None:
                bad = set_aside(path)
                notes.append(f"part file {path} {why}: set aside as {bad.name}; its task will run again")
            else:
                frames.append(df)
    if not frames:
        return pd.DataFrame(columns=list(ID_COLUMNS)), notes
    rows = pd.concat(frames, ignore_index=True)
    return rows.drop_duplicates(subset=list(ID_COLUMNS), keep="last").reset_index(drop=True), notes


def good_parts(out: Path) -> list[Path]:
    """The part files a merge has taken in (set-aside ``.bad`` files are left where they are)."""
    parts = parts_dir(out)
    return sorted(parts.glob("*.parquet")) if parts.is_dir() else []


def remove_merged(out: Path) -> None:
    """Delete the merged parts, and the folder when nothing set aside is left in it."""
    for path in good_parts(out):
        path.unlink()
    parts = parts_dir(out)
    if parts.is_dir() and not any(parts.iterdir()):
        parts.rmdir()


def write_atomic(df: pd.DataFrame, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    arrow_safe(df).to_parquet(tmp, index=False)
    os.replace(tmp, path)


def arrow_safe(df: pd.DataFrame) -> pd.DataFrame:
    """Parameter columns mixing text and numbers (``max_duration: [3600, 1d]``) become text:
    Parquet columns have one type."""
    out = df
    for col in [c for c in df.columns if pd.api.types.is_object_dtype(df[c])]:
        kinds = {type(v) for v in df[col] if v is not None and not (isinstance(v, float) and math.isnan(v))}
        if len(kinds) > 1:
            if out is df:
                out = df.copy()
            out[col] = [v if v is None else str(v) for v in df[col]]
    return out
