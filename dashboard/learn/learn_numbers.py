"""The numbers Learn quotes, computed from the rows behind docs/RESULTS.md (never typed).

``docs/results/rows_main.parquet`` (the main study: every policy and the fitgpp ``P``/``s``
variants on the ``paper`` preset) and ``rows_curves.parquet`` (one knob at a time) are read
at run time and reduced with the same statistics as ``simcore reproduce``
(:func:`simcore.experiments.study.stat`, :func:`simcore.experiments.study.paired`), so a regenerated
RESULTS.md changes Learn with it. The reduction is kept per version of the two files (their
size and modification time): Learn reruns at every click and would otherwise redo it each time.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

import pandas as pd

from simcore.analysis.metrics import TRIO_KEYS, versus
from simcore.experiments.study import NAIVE, paired, stat
from simcore.io.parquet_read import read_frame

RESULTS_DIR = Path(__file__).resolve().parents[2] / "docs" / "results"
VS_FIFO = tuple(versus(key, "fifo") for key in TRIO_KEYS)  # the rows' trio columns against fifo
ROWS = ("main", "curves")  # the rows files Learn's numbers come from


@dataclass(frozen=True)
class LearnNumbers:
    jobs: int  # per workload of the main study
    seeds: int
    fitgpp_trio: tuple[float, float, float]  # % change vs fifo: TE p95, BE p50, BE p95
    priority_te_p95: float  # absolute TE p95 slowdown
    fitgpp_te_p95: float
    naive_gap_p50: tuple[float, float]  # naive preemptor minus fitgpp, points of BE p50 change: (min, max)
    naive_gap_p95: tuple[float, float]
    s2_preemptions: float  # fitgpp with s = 2, mean preemptions per run
    fitgpp_preemptions: float
    s2_te_p95_pct: float  # fitgpp with s = 2: TE p95 change vs fifo
    priority_te_p95_pct: float
    none_lost_fitgpp: float  # checkpoint = none, mean lost work per run (s)
    none_lost_k8s: float
    none_be_p50_pct: dict[str, float]  # checkpoint = none: BE p50 change vs fifo per policy
    none_is_largest: bool  # is that the largest mean BE p50 change of any setting of the curves?
    none_gap_p50: float  # checkpoint = none: fitgpp minus k8s, points of BE p50 change vs fifo
    none_gap_p95: float
    priority_be_p50_pct: float  # priority's BE p50 change vs fifo
    priority_none_be_p50_pct: float  # the same with backfill = none


def rows(name: str, results: Path = RESULTS_DIR) -> pd.DataFrame:
    return read_frame(results / f"rows_{name}.parquet")


def learn_numbers(results: Path = RESULTS_DIR) -> LearnNumbers:
    """Every number Learn quotes, from the stored rows under ``results``: computed again only when
    a rows file changes (its size or modification time), so a regenerated study is seen at once."""
    stats = [(results / f"rows_{name}.parquet").stat() for name in ROWS]
    return _reduce(results, tuple((st.st_size, st.st_mtime_ns) for st in stats))


@lru_cache(maxsize=4)  # a few row sets at most: the shipped one, and a test's
def _reduce(results: Path, versions: tuple[tuple[int, int], ...]) -> LearnNumbers:
    """The numbers of the rows under ``results``; ``versions`` (the files' size and modification
    time) is the cache's key, read by the caller."""
    main, curves = rows("main", results), rows("curves", results)
    gap50 = [paired(main, p, "fitgpp", versus("BE_p50_slowdown_pct", "fifo")).mean for p in NAIVE]
    gap95 = [paired(main, p, "fitgpp", versus("BE_p95_slowdown_pct", "fifo")).mean for p in NAIVE]
    none = curves[curves["checkpoint"] == "none"]
    no_backfill = curves[curves["backfill"] == "none"]
    return LearnNumbers(
        jobs=int(main["jobs"].iloc[0]),
        seeds=int(main["seed"].nunique()),
        fitgpp_trio=tuple(stat(main, "fitgpp", m).mean for m in VS_FIFO),  # type: ignore[arg-type]
        priority_te_p95=stat(main, "priority", "TE_slowdown_p95").mean,
        fitgpp_te_p95=stat(main, "fitgpp", "TE_slowdown_p95").mean,
        naive_gap_p50=(min(gap50), max(gap50)),
        naive_gap_p95=(min(gap95), max(gap95)),
        s2_preemptions=stat(main, "fitgpp:s=2", "preemptions").mean,
        fitgpp_preemptions=stat(main, "fitgpp", "preemptions").mean,
        s2_te_p95_pct=stat(main, "fitgpp:s=2", VS_FIFO[0]).mean,
        priority_te_p95_pct=stat(main, "priority", VS_FIFO[0]).mean,
        none_lost_fitgpp=stat(none, "fitgpp", "lost_work").mean,
        none_lost_k8s=stat(none, "k8s", "lost_work").mean,
        none_be_p50_pct={p: stat(none, p, VS_FIFO[1]).mean for p in ("k8s", "fitgpp", "lrtp")},
        none_is_largest=_largest_setting(curves)[0] == "none",
        none_gap_p50=paired(none, "fitgpp", "k8s", versus("BE_p50_slowdown_pct", "fifo")).mean,
        none_gap_p95=paired(none, "fitgpp", "k8s", versus("BE_p95_slowdown_pct", "fifo")).mean,
        priority_be_p50_pct=stat(main, "priority", VS_FIFO[1]).mean,
        priority_none_be_p50_pct=stat(no_backfill, "priority", VS_FIFO[1]).mean,
    )


def _largest_setting(curves: pd.DataFrame) -> tuple[str, str]:
    """(checkpoint mode, policy) of the largest mean BE p50 change vs fifo among the curves' settings."""
    keys = ["grace", "restore", "checkpoint", "backfill", "load", "te_share", "policy"]
    means = curves.groupby(keys)[VS_FIFO[1]].mean()
    top = cast(tuple[Any, ...], means.idxmax())  # a label of the MultiIndex: one value per key
    return str(top[keys.index("checkpoint")]), str(top[-1])
