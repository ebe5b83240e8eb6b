"""Pure builders of the tidy DataFrames the charts and tables show (no Streamlit, no Plotly).

Times are shown in hours: the simulator works in seconds, but BE jobs run for hours and a
seconds axis is unreadable.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from simcore.analysis.metrics import TRIO as TRIO_SOURCE
from simcore.analysis.metrics import TRIO_KEYS, TRIO_LABELS, trio
from simcore.analysis.stats import BOOTSTRAP_NAME, bootstrap_mean
from simcore.analysis.whatif import Wait
from simcore.core import fmt
from simcore.core.model import ClusterSpec, JobTable

HOUR = 3600.0
#: the first screen's line on the words every chart uses
INTRO = (
    "TE (trial-and-error) jobs are short experiments someone waits for; BE (best-effort) jobs are long training "
    "runs that may be paused for them. A job's slowdown is its time from submit to finish divided by its run "
    "time: 1 means it never waited."
)
CLASSES = ("TE", "BE")
PERCENTILES = ("p50", "p95", "p99")
#: t = 0 of a run as a table's instant column holds it: 1 January of a year of 365 days, so the grid's
#: day of the year is the run's day (day 1 = its first 24 hours), as the Gantt's axis counts them
ORIGIN = pd.Timestamp("2001-01-01")
#: an instant column is drawn as a day and a clock up to this many seconds (the days of ORIGIN's year)
INSTANT_DAYS = 365


def instants(header: str, seconds: Any) -> tuple[str, pd.Series]:
    """A table column of instants (seconds from the run's start; NaN: never): datetimes from :data:`ORIGIN`,
    which the pages draw as ``day 12 08:52:07`` (:mod:`dashboard.shared.tables`) and sort by time; a run
    longer than :data:`INSTANT_DAYS` in days, named in the header (``submit (d)``)."""
    values = pd.Series(seconds, dtype=float)
    if values.max(skipna=True) >= INSTANT_DAYS * 86400.0:
        return f"{header} (d)", values / 86400.0
    return header, ORIGIN + pd.to_timedelta(values, unit="s")


def readable(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every float as :func:`simcore.core.fmt.short` shows numbers (three significant digits,
    at most three decimals), still numbers: what every table of the pages shows."""
    out = frame.copy()
    for name, dtype in frame.dtypes.items():
        if pd.api.types.is_float_dtype(dtype):
            out[name] = frame[name].map(fmt.short)
    return out


def workload_key(table: JobTable) -> str:
    """A content hash of a workload: equal jobs give equal keys, whatever file they came from."""
    h = hashlib.sha256()
    h.update("\x1f".join(map(str, table.job_id)).encode())
    for arr in (table.submit_time, table.duration, table.request, table.is_te):
        h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()[:20]


def cluster_key(cluster: ClusterSpec) -> str:
    """The nodes and their capacities as text, and the cluster's down windows (rule 12) and queues (rule 11)
    when it has some."""
    key = ";".join(f"{n.name}:{n.capacity.cpu:g},{n.capacity.mem_gb:g},{n.capacity.gpu:g}" for n in cluster.nodes)
    if cluster.node_events is not None:
        key += "|down:" + ";".join(f"{n},{s!r},{e!r},{k}" for n, s, e, k in cluster.node_events.rows())
    if cluster.queues is not None:
        key += "|queues:" + ";".join(
            f"{q.name!r},{q.gpu!r},{q.borrow_limit!r},{q.weight!r}" for q in cluster.queues.queues
        )
    return key


def workload_overview(table: JobTable) -> pd.DataFrame:
    """One row per class (TE, BE, all): jobs, GPU-hours (three digits), median run time (in the unit that reads
    best, named in the header) and median GPUs."""
    classes = (("TE", table.is_te), ("BE", ~table.is_te), ("all", np.ones(len(table), dtype=bool)))
    unit, size = fmt.duration_unit(table.duration)
    rows = []
    for name, mask in classes:
        dur = table.duration[mask]
        gpu = table.request[mask, 2]
        rows.append(
            {
                "class": name,
                "jobs": int(mask.sum()),
                "GPU time (GPU-h)": float(fmt.number(float((gpu * dur).sum() / HOUR))),  # 3 digits
                f"median run time ({unit})": round(float(np.median(dur) / size), 1) if len(dur) else np.nan,
                "median size (GPUs)": float(np.median(gpu)) if len(gpu) else np.nan,
            }
        )
    return pd.DataFrame(rows)


#: The per-job table's columns as the page heads them; durations get their unit from the data.
JOB_HEADERS = {
    "job_id": "job",
    "job_class": "class",
    "submit_time": "submit",
    "duration": "run time",
    "first_start": "first start",
    "finish": "finish",
    "wait": "wait",
    "jct": "JCT",
    "slowdown": "slowdown (x run time)",
    "preemptions": "preemptions",
    "lost_work": "lost work",
    "node": "node",
}
TIME_COLUMNS = ("duration", "wait", "jct", "lost_work")  # durations: one unit per column, in its header
INSTANT_COLUMNS = ("submit_time", "first_start", "finish")  # instants: day and clock (:func:`instants`)


#: the jobs table's column and the Gantt hover's line that give a job's longest wait's reason
WHY_WAITED = "why it waited"


def jobs_table(jobs: pd.DataFrame, why: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The jobs CSV's frame as the page shows it: instants as days and clocks (:func:`instants`), every
    duration in one unit per column, named in its header (``wait (min)``), all kept sortable; with
    ``why`` (job id -> its longest wait's reason, :func:`why_by_job`), a last column :data:`WHY_WAITED`."""
    out = {}
    for column in jobs.columns:
        header = JOB_HEADERS.get(column, column)
        if column in INSTANT_COLUMNS:
            name, values = instants(header, jobs[column].to_numpy(dtype=float))
            out[name] = values.set_axis(jobs.index)
        elif column in TIME_COLUMNS:
            unit, size = fmt.duration_unit(jobs[column].to_numpy(dtype=float))
            out[f"{header} ({unit})"] = jobs[column] / size
        else:
            out[header] = jobs[column]
    if why is not None:
        out[WHY_WAITED] = pd.Series([why.get(str(j), "") for j in jobs["job_id"]], index=jobs.index, dtype=object)
    return pd.DataFrame(out)


#: pixels per character of a table's text (Streamlit's grid font), for a column as wide as its longest text
CHAR_PX = 7.5


def text_width(texts: Sequence[str], header: str = "") -> int:
    """The pixel width that shows the longest of ``texts`` (and the header) whole in a table's column: the
    column is never cut (the table scrolls sideways instead)."""
    return int(CHAR_PX * max((len(t) for t in (*texts, header)), default=0)) + 24


def longest_wait(waits: Sequence[Wait]) -> Wait | None:
    """The longest waiting stretch (the first of equal ones), or None when the job never waited."""
    return max(waits, key=lambda w: w.end - w.start, default=None)


def why_by_job(waits: Mapping[str, Sequence[Wait]]) -> dict[str, str]:
    """Job id -> its longest wait's reason in words (empty for a job that never waited)."""
    return {j: "" if (longest := longest_wait(w)) is None else longest.text for j, w in waits.items()}


def workload_jobs(table: JobTable) -> pd.DataFrame:
    """Per-job class, GPUs and duration in hours, for the size and duration histograms."""
    return pd.DataFrame(
        {
            "job_class": np.where(table.is_te, "TE", "BE"),
            "gpu": table.request[:, 2],
            "duration_h": table.duration / HOUR,
        }
    )


def seed_trios(
    seed_flats: Sequence[Mapping[str, Mapping[str, Any]]], baseline: str
) -> list[dict[str, dict[str, float | None]]]:
    """Per seed, the trio (:func:`simcore.analysis.metrics.trio`) of every policy against ``baseline``,
    from each seed's flat records by policy."""
    return [{p: trio(flat, per_seed[baseline]) for p, flat in per_seed.items()} for per_seed in seed_flats]


def trio_frame(trios: Sequence[Mapping[str, Mapping[str, float | None]]]) -> pd.DataFrame:
    """The trio over seeds: one row per (policy, metric) with n, mean and the mean's interval
    lo..hi from :func:`simcore.analysis.stats.bootstrap_mean` (the dashboard's one spread over seeds, named
    ``BOOTSTRAP_NAME``; NaN below two values).

    ``trios`` holds, per seed, ``{policy: {trio key: percent or None}}``; None values (baseline
    at 0) are left out of the statistics, and a metric with no value at all gets NaN.
    """
    rows = []
    policies = list(dict.fromkeys(p for t in trios for p in t))
    for policy in policies:
        for key in TRIO_KEYS:
            n, mean, lo, hi = bootstrap_mean(t[policy].get(key) for t in trios if policy in t)
            if n < 2:
                lo = hi = math.nan
            rows.append(
                {"policy": policy, "metric": key, "label": TRIO_LABELS[key], "n": n, "mean": mean, "lo": lo, "hi": hi}
            )
    return pd.DataFrame(rows, columns=["policy", "metric", "label", "n", "mean", "lo", "hi"])


def spread_note(seeds: Sequence[int]) -> str:
    """What the trio's numbers over several seeds are, naming the spread statistic."""
    return f"Mean over {len(seeds)} seeds ({seeds[0]}..{seeds[-1]}); in brackets its {BOOTSTRAP_NAME}."


def trio_cards(
    trio: pd.DataFrame, absolute: pd.DataFrame, policies: Sequence[str], baseline: str
) -> list[list[tuple[str, str, str | None]]]:
    """The texts of the trio cards, per policy per metric: (label, absolute slowdown, change).

    The change is the mean percent change against ``baseline`` with, over several seeds, its
    interval in brackets (:func:`trio_frame`); the baseline's own cards have no change."""
    changes: dict[Any, dict[Hashable, Any]] = trio.set_index(["policy", "metric"]).to_dict("index")
    values: dict[Any, Any] = absolute.set_index(["policy", "metric"])["value"].to_dict()
    out = []
    for policy in policies:
        row_cards = []
        for key, label in TRIO_LABELS.items():
            row = changes[(policy, key)]
            delta = None
            if policy != baseline and not math.isnan(row["mean"]):
                lo, hi = (row["lo"], row["hi"]) if row["n"] > 1 else (math.nan, math.nan)  # one seed: no interval
                delta = fmt.pct_estimate(row["mean"], lo, hi)
            row_cards.append((label, fmt.number(values[(policy, key)]), delta))
        out.append(row_cards)
    return out


def neutral(delta: str | None) -> bool:
    """Does a card's change round to zero (``+0.0%``, ``-0.0%``)? It is then shown without colour or arrow:
    equal values are neither better nor worse."""
    return delta is not None and re.match(r"[+-]0\.0%", delta) is not None


def absolute_trio(flats: Sequence[Mapping[str, Mapping[str, Any]]]) -> pd.DataFrame:
    """The slowdown values behind the trio, mean over seeds (per seed: policy -> flat record of
    :func:`simcore.analysis.metrics.flat_summary`): one row per (policy, metric)."""
    rows = []
    policies = list(dict.fromkeys(p for s in flats for p in s))
    for policy in policies:
        for key, (cls, stat) in TRIO_SOURCE.items():
            vals = [s[policy][f"{cls}_slowdown_{stat}"] for s in flats if policy in s]
            vals = [v for v in vals if not math.isnan(v)]
            rows.append({"policy": policy, "metric": key, "value": float(np.mean(vals)) if vals else np.nan})
    return pd.DataFrame(rows, columns=["policy", "metric", "value"])


def percentile_frame(seed_flats: Sequence[Mapping[str, Mapping[str, Any]]], metric: str = "slowdown") -> pd.DataFrame:
    """Tidy p50/p95/p99 of one metric over seeds (per seed: policy -> flat record): columns policy,
    job_class, stat, value (the mean over seeds), lo and hi (the lowest and highest seed: an
    interval that never leaves the range of the values, so a slowdown whisker never goes below 1)
    and n (seeds)."""
    rows = []
    policies = list(dict.fromkeys(p for s in seed_flats for p in s))
    for policy in policies:
        for cls in CLASSES:
            for stat in PERCENTILES:
                vals = [s[policy][f"{cls}_{metric}_{stat}"] for s in seed_flats if policy in s]
                x = np.array([v for v in vals if not math.isnan(v)], dtype=float)
                rows.append(
                    {
                        "policy": policy,
                        "job_class": cls,
                        "stat": stat,
                        "value": float(x.mean()) if len(x) else np.nan,
                        "lo": float(x.min()) if len(x) else np.nan,
                        "hi": float(x.max()) if len(x) else np.nan,
                        "n": len(x),
                    }
                )
    return pd.DataFrame(rows, columns=["policy", "job_class", "stat", "value", "lo", "hi", "n"])


def percentile_table(seed_flats: Sequence[Mapping[str, Mapping[str, Any]]]) -> pd.DataFrame:
    """The percentiles (mean over seeds) as a wide table: one row per policy, columns like ``TE p95``."""
    tidy = percentile_frame(seed_flats)
    tidy["column"] = tidy["job_class"] + " " + tidy["stat"]
    wide = tidy.pivot(index="policy", columns="column", values="value")
    order = [f"{c} {s}" for c in CLASSES for s in PERCENTILES]
    return wide.reindex(index=list(dict.fromkeys(tidy["policy"])), columns=order)


def cdf_frame(jobs: Mapping[str, pd.DataFrame], max_points: int = 300) -> pd.DataFrame:
    """Empirical slowdown CDF per policy and class, thinned to at most ``max_points`` per line.

    Thinning keeps evenly spaced ranks plus the last one, so the tail (the part users read)
    is never cut off.
    """
    parts = []
    for policy, frame in jobs.items():
        for cls in CLASSES:
            values = np.sort(frame.loc[frame["job_class"] == cls, "slowdown"].to_numpy(float))
            n = len(values)
            if n == 0:
                continue
            idx = np.unique(np.linspace(0, n - 1, min(n, max_points)).round().astype(int))
            parts.append(
                pd.DataFrame({"policy": policy, "job_class": cls, "slowdown": values[idx], "fraction": (idx + 1) / n})
            )
    if not parts:
        return pd.DataFrame(columns=["policy", "job_class", "slowdown", "fraction"])
    return pd.concat(parts, ignore_index=True)


def resample_steps(frame: pd.DataFrame, columns: Sequence[str], bins: int = 400) -> pd.DataFrame:
    """Time-weighted mean of step functions over ``bins`` equal bins (time in hours).

    ``frame`` has a ``time`` column (seconds) and one row per change; each value holds until
    the next row. Averaging (not sampling) keeps short spikes visible in proportion, and bins
    bound the points drawn whatever the size of the run.
    """
    times = frame["time"].to_numpy(float)
    if len(times) < 2 or times[-1] <= times[0]:
        return pd.DataFrame({"time_h": times / HOUR, **{c: frame[c].to_numpy(float) for c in columns}})
    edges = np.linspace(times[0], times[-1], bins + 1)
    out = {"time_h": (edges[:-1] + edges[1:]) / 2 / HOUR}
    dt = np.diff(times)
    for c in columns:
        v = frame[c].to_numpy(float)
        area = np.concatenate([[0.0], np.cumsum(v[:-1] * dt)])  # integral up to each change
        at_edges = np.interp(edges, times, area)  # exact: the integral is piecewise linear
        out[c] = np.diff(at_edges) / np.diff(edges)
    return pd.DataFrame(out)


def timeline_frame(
    util: Mapping[str, pd.DataFrame], queue: Mapping[str, pd.DataFrame], bins: int = 400
) -> pd.DataFrame:
    """GPU utilisation and pending jobs over time per policy: policy, series, time_h, value."""
    parts = []
    for policy, frame in util.items():
        r = resample_steps(frame, ["gpu_util"], bins)
        parts.append(
            pd.DataFrame({"policy": policy, "series": "GPU utilisation", "time_h": r["time_h"], "value": r["gpu_util"]})
        )
    for policy, frame in queue.items():
        r = resample_steps(frame, ["pending_TE", "pending_BE"], bins)
        for col, name in (("pending_TE", "pending TE"), ("pending_BE", "pending BE")):
            parts.append(pd.DataFrame({"policy": policy, "series": name, "time_h": r["time_h"], "value": r[col]}))
    if not parts:
        return pd.DataFrame(columns=["policy", "series", "time_h", "value"])
    return pd.concat(parts, ignore_index=True)


def preemption_frame(flats: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Per policy (policy -> flat record): preemptions, BE jobs preempted, the most on one job,
    lost work, utilisation."""
    rows = []
    for policy, flat in flats.items():
        rows.append(
            {
                "policy": policy,
                "preemptions": int(flat["preemptions"]),
                "BE jobs preempted": int(flat["preempted_jobs"]),  # only BE jobs are ever preempted
                "max on one job": int(flat["max_preemptions_per_job"]),
                "lost work (h)": float(flat["lost_work"]) / HOUR,
                "GPU utilisation (%)": 100 * float(flat["gpu_utilization"]),
                "useful GPU utilisation (%)": 100 * float(flat["gpu_useful_utilization"]),
                "makespan (h)": float(flat["makespan"]) / HOUR,
            }
        )
    return pd.DataFrame(rows)


def seed_note(seeds: Sequence[int]) -> str:
    """Names the seed a single-run chart shows when the scenario has several."""
    if len(seeds) <= 1:
        return ""
    return f"Seed {seeds[0]} shown (the first of seeds {seeds[0]}..{seeds[-1]})."
