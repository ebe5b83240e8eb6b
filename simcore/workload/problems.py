"""What the workload loaders share: the caps, the canonical columns, the problems and errors
they report, the raw table a reader gives before validation, and the loaded results.

Rows are named as a spreadsheet shows them (the header is row 1, so the first job is row 2;
JSON records are numbered from 1): :class:`Problem` carries that label, the column and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.core.model import DIMS, ClusterSpec, JobTable

#: Canonical columns of a workload file, in the order the writer uses (DESIGN.md section 6).
REQUIRED_COLUMNS: tuple[str, ...] = ("job_id", "submit_time", "duration", *DIMS, "job_class")
OPTIONAL_COLUMNS: tuple[str, ...] = ("user", "name", "queue")

DEFAULT_MAX_BYTES = 200_000_000  # 200 MB: far above any real trace here, low enough to refuse a mistake
# Rows parsed from one workload file: 10x the largest preset (mmc, 200,000 jobs); loading 2M rows
# takes about 1.6 GB (1M rows measured: 0.8 GB), so a bigger file is more likely a mistake (--max-rows).
DEFAULT_MAX_ROWS = 2_000_000
MAX_LISTED = 20  # problems listed in an error message; the rest are counted
MAX_NODES = 100_000  # a cluster file asking for more nodes is a mistake, not a cluster to build
MAX_POOLS = 10_000  # entries of a YAML/JSON cluster file; more distinct nodes belong in a node-list CSV
DEFAULT_MAX_CLUSTER_BYTES = 20_000_000  # a cluster file: 100,000 node rows take about 3 MB
#: ``auto``, the canonical formats, the Alibaba 2023 pod list and the gang traces (:mod:`simcore.workload.traces`)
FORMATS = ("auto", "csv", "json", "parquet", "alibaba", "spot2026", "helios", "acme", "pai2020")
ROW_CONVENTION = "rows are numbered as a spreadsheet shows them: the header is row 1, the first job is row 2"


# --- errors and results -----------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One refused value or row: where (``row`` label such as "row 5", ``column``) and why."""

    row: str
    column: str
    reason: str

    def __str__(self) -> str:
        return f"{self.row}, column {self.column}: {self.reason}" if self.column else f"{self.row}: {self.reason}"


class WorkloadError(UserError):
    """A workload or cluster file that cannot be used; ``problems`` lists what was wrong."""

    def __init__(self, message: str, problems: Sequence[Problem] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


class LimitExceeded(WorkloadError):
    """A file over one of the loader's caps, refused before or while it was parsed. ``found`` says
    what the file has, ``unit`` (byte, row, node, pool, job) and ``limit`` name the cap; a caller with
    its own caps (the dashboard) words its message from them."""

    NOUNS = {"byte": "size", "row": "row", "node": "node", "pool": "pool", "job": "job"}

    def __init__(self, source: str, found: str, unit: str, limit: int, option: str = "") -> None:
        self.source, self.found, self.unit, self.limit = source, found, unit, limit
        hint = f" (raise it with {option} if the file is right)" if option else ""
        super().__init__(f"{source}: {found}, above the {self.NOUNS[unit]} cap of {self.amount()}{hint}")

    def amount(self) -> str:
        """The cap as messages write it: "10.0 MB (10000000 bytes)", "100,000 rows"."""
        n = self.limit
        return fmt.megabytes(n) if self.unit == "byte" else f"{n:,} {self.unit}{'s' if n != 1 else ''}"


@dataclass(frozen=True, eq=False)
class LoadedWorkload:
    """A validated workload. ``notes`` say what was adapted, ignored or dropped (show them);
    ``dropped`` lists every row left out by ``drop_invalid`` with its reason."""

    table: JobTable
    fmt: str
    notes: list[str] = field(default_factory=list)
    dropped: tuple[Problem, ...] = ()
    counts: dict[str, int] = field(default_factory=dict)  # the Alibaba adapter's counts, else empty
    #: per job of ``table``, its row (record) number as the file shows it, named by ``row_unit``;
    #: None when an adapter made the jobs (no row per job)
    rows: np.ndarray | None = None
    row_unit: str = "row"

    def row_of(self, i: int) -> str | None:
        """How job ``i``'s row is named in messages ("row 5"), or None without row numbers."""
        return None if self.rows is None else f"{self.row_unit} {int(self.rows[i])}"


@dataclass(frozen=True, eq=False)
class LoadedCluster:
    cluster: ClusterSpec
    notes: list[str] = field(default_factory=list)


# --- raw tables: what a reader gives before validation -----------------------------------------


@dataclass
class RawTable:
    """Columns of untyped values from one file, with the label of every data row."""

    source: str
    columns: dict[str, list[Any]]
    numbers: np.ndarray  # per data row, its number as the user sees it (spreadsheet row, or record)
    problems: list[tuple[int, Problem]] = field(default_factory=list)  # rows refused while reading
    row_convention: str = ROW_CONVENTION
    unit: str = "row"

    def __len__(self) -> int:
        return len(self.numbers)

    def rows(self, start: int, stop: int) -> RawTable:
        """Data rows ``start`` to ``stop`` (0-based) as a table of their own, numbered from 0."""
        return replace(
            self,
            columns={c: v[start:stop] for c, v in self.columns.items()},
            numbers=self.numbers[start:stop],
            problems=[(i - start, p) for i, p in self.problems if start <= i < stop],
        )

    @classmethod
    def joined(cls, parts: Sequence[RawTable]) -> RawTable:
        """Consecutive slices of one file (:meth:`rows`' inverse) as one table."""
        offsets = np.cumsum([0, *(len(p) for p in parts)])
        return replace(
            parts[0],
            columns={c: [v for p in parts for v in p.columns[c]] for c in parts[0].columns},
            numbers=np.concatenate([p.numbers for p in parts]),
            problems=[(i + int(o), p) for part, o in zip(parts, offsets, strict=False) for i, p in part.problems],
        )

    def label(self, i: int) -> str:
        """How data row ``i`` (0-based) is named in messages: "row 5", "record 3"."""
        return f"{self.unit} {self.numbers[i]}"
