"""The study's PNG figures (matplotlib, headless): the trio as bars with the paper's numbers as stars,
and the trio along a curve with its confidence band. Files carry no timestamp, so a re-run writes the same bytes."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from simcore import fmt
from simcore.metrics import TRIO_LABELS, versus
from simcore.study.plan import PAPER_TRIO
from simcore.study.tables import MISSING_STAT, Stat, stat


class Figures:
    """PNG figures in ``results/``; each method returns the path relative to RESULTS.md."""

    def __init__(self, results: Path) -> None:
        import matplotlib

        matplotlib.use("Agg")
        self.results = results

    def _save(self, fig: Any, name: str) -> str:
        import matplotlib.pyplot as plt

        fig.tight_layout()
        fig.savefig(self.results / f"{name}.png", dpi=110, metadata={"Software": None})
        plt.close(fig)
        return f"results/{name}.png"

    def trio(self, rows: pd.DataFrame, policies: Sequence[str], baseline: str, name: str = "trio_vs_fifo") -> str:
        import matplotlib.pyplot as plt

        shown = [p for p in policies if p != baseline]
        fig, axes = plt.subplots(1, 3, figsize=(12, 3.6))
        for ax, key in zip(axes, PAPER_TRIO, strict=True):
            stats = [stat(rows, p, versus(key, baseline)) for p in shown]
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
        return self._save(fig, name)

    def curve(
        self, key: str, series: Mapping[str, tuple[list[Any], list[pd.DataFrame]]], reference: pd.DataFrame | None
    ) -> str:
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
        for ax, metric in zip(axes, PAPER_TRIO, strict=True):
            col = versus(metric, "fifo")
            for label, (values, frames) in series.items():
                stats = [Stat.of(f[col]) if len(f) else MISSING_STAT for f in frames]
                xs = list(range(len(values)))
                ax.plot(xs, [s.mean for s in stats], marker="o", label=label)
                ax.fill_between(xs, [s.lo for s in stats], [s.hi for s in stats], alpha=0.2)
                ax.set_xticks(xs, [fmt.setting(v) for v in values])
            if reference is not None and len(reference):
                ax.axhline(Stat.of(reference[col]).mean, color="grey", linestyle="--", label="priority")
            ax.axhline(0, color="black", linewidth=0.6)
            ax.set_title(f"{TRIO_LABELS[metric]}, % vs fifo", fontsize=10)
            ax.set_xlabel(key)
        axes[0].legend(fontsize=8)
        return self._save(fig, f"sensitivity_{key}")
