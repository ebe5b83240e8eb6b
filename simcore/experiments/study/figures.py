"""The study's PNG figures (matplotlib, headless): the trio as bars with the paper's numbers as stars,
and the trio along a curve with its confidence band. Files carry no timestamp, so a re-run writes the same bytes.

A figure's numbers are computed here (:func:`trio_bars`, :func:`curve_lines`: pure); the figure is drawn
from them (:func:`draw_trio`, :func:`draw_curve`: thin) in this process or, with :func:`drawn_by`, in a
pool of other processes while this one goes on writing the document: the same function draws it on the
same backend (Agg) with the same settings, so its file holds the same bytes wherever it was drawn.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from simcore.analysis.metrics import TRIO_LABELS, versus
from simcore.core import fmt
from simcore.experiments import workers as worker_life
from simcore.experiments.study.plan import PAPER_TRIO
from simcore.experiments.study.tables import MISSING_STAT, Stat, stat

D = TypeVar("D")  # a figure's numbers


class Figures:
    """PNG figures in ``results/``; each method returns the path relative to RESULTS.md. Without a pool
    a figure is drawn during the call; with one it is drawn there, and :meth:`wait` waits for them all."""

    def __init__(self, results: Path, pool: Executor | None = None) -> None:
        self.results = results
        self.pool = pool
        self.pending: list[Future[None]] = []

    def trio(self, rows: pd.DataFrame, policies: Sequence[str], baseline: str, name: str = "trio_vs_fifo") -> str:
        return self._draw(name, draw_trio, trio_bars(rows, policies, baseline))

    def curve(
        self, key: str, series: Mapping[str, tuple[list[Any], list[pd.DataFrame]]], reference: pd.DataFrame | None
    ) -> str:
        return self._draw(f"sensitivity_{key}", draw_curve, curve_lines(key, series, reference))

    def _draw(self, name: str, draw: Callable[[Path, D], None], numbers: D) -> str:
        path = self.results / f"{name}.png"
        if self.pool is None:
            draw(path, numbers)
        else:
            self.pending.append(self.pool.submit(draw, path, numbers))
        return f"results/{name}.png"

    def wait(self) -> None:
        """Wait for the figures drawn in the pool; the first that failed (in the document's order) raises
        its error here, as it would have in this process."""
        for future in self.pending:
            future.result()


@contextmanager
def drawn_by(results: Path, processes: int) -> Iterator[Figures]:
    """Figures drawn by ``processes`` other processes (none: in this one), every file written on leaving.
    The processes die with this one; on an error here the figures not yet drawn are dropped."""
    if processes < 1:
        yield Figures(results)
        return
    pool = worker_life.pool(processes)
    try:
        figures = Figures(results, pool)
        yield figures
        figures.wait()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _pyplot() -> Any:
    """matplotlib's pyplot on the headless Agg backend (set once per process: later calls change nothing)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    _pyplot().close(fig)


@dataclass(frozen=True)
class TrioBars:
    """A trio figure's numbers: for each metric of the trio, each shown policy's change against the baseline."""

    shown: list[str]
    baseline: str
    stats: list[list[Stat]]  # [metric of PAPER_TRIO][shown policy]


def trio_bars(rows: pd.DataFrame, policies: Sequence[str], baseline: str) -> TrioBars:
    shown = [p for p in policies if p != baseline]
    return TrioBars(shown, baseline, [[stat(rows, p, versus(key, baseline)) for p in shown] for key in PAPER_TRIO])


def draw_trio(path: Path, bars: TrioBars) -> None:
    """Each policy's trio against the baseline as bars with their intervals, the paper's fitgpp as stars."""
    plt = _pyplot()
    shown, baseline = bars.shown, bars.baseline
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.6))
    for ax, key, stats in zip(axes, PAPER_TRIO, bars.stats, strict=True):
        means = [s.mean for s in stats]
        err = [
            [s.mean - s.lo if math.isfinite(s.lo) else 0 for s in stats],
            [s.hi - s.mean if math.isfinite(s.hi) else 0 for s in stats],
        ]
        ax.bar(shown, means, yerr=err, capsize=3, color="#4c72b0")
        if baseline == "fifo" and "fitgpp" in shown:
            ax.scatter(
                [shown.index("fitgpp")],
                [PAPER_TRIO[key]],
                marker="*",
                s=120,
                color="#dd8452",
                zorder=3,
                label="paper",
            )
            ax.legend(loc="best", fontsize=8)
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_title(f"{TRIO_LABELS[key]}, % vs {baseline}", fontsize=10)
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    _save(fig, path)


@dataclass(frozen=True)
class CurveLines:
    """A curve figure's numbers: per series its x labels and, per metric of the trio, the change against
    fifo at each x; the reference's mean per metric (a dashed line), if any."""

    key: str
    ticks: dict[str, list[str]]  # series -> x labels
    stats: list[dict[str, list[Stat]]]  # [metric of PAPER_TRIO] series -> one Stat per x
    reference: list[float] | None


def curve_lines(
    key: str, series: Mapping[str, tuple[list[Any], list[pd.DataFrame]]], reference: pd.DataFrame | None
) -> CurveLines:
    cols = [versus(metric, "fifo") for metric in PAPER_TRIO]
    return CurveLines(
        key,
        {label: [fmt.setting(v) for v in values] for label, (values, _) in series.items()},
        [
            {
                label: [Stat.of(f[col]) if len(f) else MISSING_STAT for f in frames]
                for label, (_, frames) in series.items()
            }
            for col in cols
        ],
        [Stat.of(reference[col]).mean for col in cols] if reference is not None and len(reference) else None,
    )


def draw_curve(path: Path, lines: CurveLines) -> None:
    """The trio against fifo along the values of the key, one line and band per series, the reference dashed."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
    for m, (ax, metric) in enumerate(zip(axes, PAPER_TRIO, strict=True)):
        for label, stats in lines.stats[m].items():
            xs = list(range(len(lines.ticks[label])))
            ax.plot(xs, [s.mean for s in stats], marker="o", label=label)
            ax.fill_between(xs, [s.lo for s in stats], [s.hi for s in stats], alpha=0.2)
            ax.set_xticks(xs, lines.ticks[label])
        if lines.reference is not None:
            ax.axhline(lines.reference[m], color="grey", linestyle="--", label="priority")
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_title(f"{TRIO_LABELS[metric]}, % vs fifo", fontsize=10)
        ax.set_xlabel(lines.key)
    axes[0].legend(fontsize=8)
    _save(fig, path)
