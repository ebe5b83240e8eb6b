"""The text tables ``simcore sweep`` prints from its summary (:func:`simcore.experiments.sweep.aggregate`):
one row per setting and policy (:func:`format_summary`), and with queues one per setting, queue and policy
(:func:`format_queue_summary`)."""

from __future__ import annotations

from typing import Any

from simcore.analysis.metrics import TRIO, queue_column, versus
from simcore.analysis.stats import SPREAD_NAME
from simcore.core import fmt

#: over resamples of one file the interval of interest is where the metric falls on such a workload: the
#: bootstrap's normal 95% interval, mean ± 1.96 sd, not the interval of the mean over the resamples
BOOTSTRAP_Z = 1.96
#: the per-queue table's columns (:func:`format_queue_summary`): a :data:`~simcore.analysis.metrics.QUEUE_FLAT`
#: field, its label and the unit it is divided by
QUEUE_SHOWN: tuple[tuple[str, str, float], ...] = (
    ("TE_slowdown_p95", "TE p95 sd", 1.0),
    ("BE_slowdown_p50", "BE p50 sd", 1.0),
    ("BE_slowdown_p95", "BE p95 sd", 1.0),
    ("gpu_seconds_lost_to_reclaims", "GPU-h lost to reclaims", 3600.0),
    ("reclaimed", "reclaimed", 1.0),
)
QUEUE_NOTE = (
    "per queue: reclaimed = its jobs preempted by other queues taking back their quota; "
    "GPU-h lost to reclaims = the work those jobs lost"
)


def format_summary(agg: Any, baseline: str, resampled: bool = False) -> str:
    """A text table: per setting and policy, seeds, TE p95 / BE p50 / BE p95 slowdown and the trio; with
    ``resampled`` seeds (a file's bootstrap), ± 1.96 sd over them instead of the CI of their mean."""
    shown = [
        *((f"{cls}_slowdown_{stat}", f"{cls} {stat} sd", 1.0) for cls, stat in TRIO.values()),
        *((versus(key, baseline), f"{cls} {stat} % vs {baseline}", 1.0) for key, (cls, stat) in TRIO.items()),
    ]
    cols, groups = _groups(agg)
    lines = [[*(fmt.setting(v) for v in key), *_cells(by, shown, resampled)] for key, by in groups.items()]
    spread = (
        f"mean ± {BOOTSTRAP_Z} sd over the resampled workloads (a bootstrap 95% interval of the metric on this file)"
        if resampled
        else f"mean ± {SPREAD_NAME} half-width over seeds"
    )
    return f"{spread} (sd = slowdown)\n" + _table([*cols, "policy", "seeds", *(h for _, h, _ in shown)], lines)


def format_queue_summary(agg: Any, resampled: bool = False) -> str:
    """The table under :func:`format_summary` when the rows have queues (``""`` otherwise): per setting, queue
    and policy, the queue's TE p95 / BE p50 / BE p95 slowdown, GPU-hours lost to reclaims and reclaims suffered,
    with the same spread as :func:`format_summary` (the same ``agg`` rows: ``queue_<name>_<field>`` metrics)."""
    from simcore.experiments.sweep.summary import queue_names  # pandas: only once a sweep has run

    names = queue_names(list(dict.fromkeys(agg["metric"])))
    if not names:
        return ""
    cols, groups = _groups(agg)
    points: dict[tuple[Any, ...], list[tuple[Any, Any]]] = {}
    for key, by in groups.items():
        points.setdefault(key[:-1], []).append((key[-1], by))
    lines = []
    for point, policies in points.items():
        for q in names:
            shown = [(queue_column(q, field), label, unit) for field, label, unit in QUEUE_SHOWN]
            for policy, by in policies:
                lines.append([*(fmt.setting(v) for v in (*point, q, policy)), *_cells(by, shown, resampled)])
    header = [*cols, "queue", "policy", "seeds", *(label for _, label, _ in QUEUE_SHOWN)]
    return f"{QUEUE_NOTE}\n" + _table(header, lines)


def _groups(agg: Any) -> tuple[list[str], dict[tuple[Any, ...], Any]]:
    """``agg``'s axis columns and its rows per (axes..., policy), in order, each indexed by metric."""
    cols = [c for c in agg.columns if c not in ("policy", "metric", "n", "mean", "sd", "ci_low", "ci_high")]
    groups = {}
    for key, g in agg.groupby([*cols, "policy"], sort=False, dropna=False):
        groups[key if isinstance(key, tuple) else (key,)] = g.set_index("metric")
    return cols, groups


def _cells(by: Any, shown: list[tuple[str, str, float]], resampled: bool) -> list[str]:
    """The seeds and each shown metric's mean ± spread (divided by its unit) of one group of ``agg``."""
    cells = [str(int(by["n"].max()))]
    for metric, _, unit in shown:
        if metric not in by.index:
            cells.append(fmt.MISSING)
            continue
        rec = by.loc[metric]
        mean, lo, hi = rec["mean"], rec["ci_low"], rec["ci_high"]
        if resampled:
            lo, hi = mean - BOOTSTRAP_Z * rec["sd"], mean + BOOTSTRAP_Z * rec["sd"]
        cells.append(fmt.half_width(mean / unit, lo / unit, hi / unit))
    return cells


def _table(header: list[str], lines: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in lines)) for i, h in enumerate(header)]
    out = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in lines]
    return "\n".join(out)
