"""Pure functions from a run with queues to its per-queue numbers (DESIGN-queues point 12).

- :func:`usage_over_time`: per queue, after each instant where it changes, the GPUs its jobs hold
  (U, grace included), run (R) and borrow, and its share: a step function to draw against the quota;
- :func:`usage_totals`: per queue, GPU-seconds used and above quota, and U and share averaged over
  the makespan (the summary's numbers; :func:`simcore.analysis.metrics.queues_block` adds the jobs' waits);
- :func:`preemption_split`: per queue, preemptions suffered and caused and the GPU-seconds its jobs
  lost, held in grace and spent restoring, each split by the victim's relation to its preemptor
  (another queue: ``reclaim``; the same queue: ``te_first``), by the formulas of DESIGN section 5;
- :func:`ledger_records` and :func:`ledger_frame`: one row per preemption decision with the values
  of its decision record (the CLI's ``--ledger-out``).

Every GPU amount is in GPUs (the engine's thousandths / 1000); a share is GPUs above quota per unit
of weight, rounded to 1e-9.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from simcore.analysis import accounting
from simcore.core import units
from simcore.core.queues import GPU_SCALE, QueueSpec
from simcore.core.result import DRAIN, FAIL, FINISH, PREEMPT, RELEASE, START, SimResult

#: the relation of a victim to its preemptor, as the outputs name it
CAUSES = ("reclaim", "te_first")
#: the columns of :func:`ledger_frame` (the ledger CSV)
LEDGER_COLUMNS = (
    "time",
    "cause",
    "queue",
    "job",
    "job_class",
    "victims",
    "victim_queues",
    "victim_gpus",
    "usage_before",
    "usage_after",
    "running_before",
    "running_after",
    "share_before",
    "share_after",
)
#: the columns of :func:`usage_over_time`
USAGE_COLUMNS = ("time", "queue", "quota", "used", "running", "borrowed", "share")


def _spec(result: SimResult) -> QueueSpec:
    if result.queues is None or result.queue is None:
        raise ValueError("the run has no queues (a cluster with queues: ClusterSpec.with_queues)")
    return result.queues


def share_of(excess_units: np.ndarray | int, weight: float) -> np.ndarray:
    """Share in GPUs per unit of weight of `excess_units` GPU units above quota (>= 0): rounded to 1e-9
    as the engine keeps it, rint(units x 1e6 / weight) / 1e9."""
    return np.rint(np.maximum(excess_units, 0) * (1e6 / weight)) / 1e9


def _steps(result: SimResult) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per event row: its time, its job's queue, and the change of U and of R it makes (GPU units; a
    gang writes one row per worker, each the per-worker request). A ``preempt`` or ``drain`` signal
    leaves R, its ``release`` U; a ``fail`` leaves U, and R when the job was running, not in grace
    (DESIGN-failures point 11); node rows change nothing."""
    queue = result.queue
    assert queue is not None
    code, job = result.ev_code, result.ev_job
    gpu = np.where(job >= 0, units.requests(result.jobs.request)[:, 2][job], 0)
    fail = code == FAIL
    du = np.where(code == START, gpu, np.where((code == RELEASE) | (code == FINISH) | fail, -gpu, 0))
    stop_r = (code == PREEMPT) | (code == DRAIN) | (code == FINISH)
    if fail.any():  # a failure leaves R when the job's last row before it (not a fail) is its start
        order = np.argsort(job, kind="stable")
        before = pd.Series(np.where(fail, np.nan, code)[order]).groupby(job[order]).ffill().to_numpy()
        running = np.zeros(len(code), dtype=bool)
        running[order] = before == START
        stop_r |= fail & running
    dr = np.where(code == START, gpu, np.where(stop_r, -gpu, 0))
    return result.ev_time, queue[job], du, dr


def usage_over_time(result: SimResult) -> pd.DataFrame:
    """Per queue (file order), one row after each instant where its usage changes: ``used`` (U, GPUs
    its jobs hold running or preempting), ``running`` (R), ``borrowed`` (max(0, U - quota)), ``share``
    and its ``quota`` (inf as inf). Starts at the first submit with zeros."""
    spec = _spec(result)
    t, q, du, dr = _steps(result)
    t0 = float(result.jobs.submit_time.min()) if len(result.jobs) else 0.0
    frames = []
    for i, queue in enumerate(spec.queues):
        mine = (q == i) & ((du != 0) | (dr != 0))
        df = pd.DataFrame({"time": t[mine], "u": du[mine], "r": dr[mine]}).groupby("time", sort=True).sum().cumsum()
        times = np.concatenate([[t0], df.index.to_numpy(dtype=float)])
        used = np.concatenate([[0], df["u"].to_numpy(dtype=np.int64)])
        run = np.concatenate([[0], df["r"].to_numpy(dtype=np.int64)])
        quota = queue.quota_units
        frames.append(
            pd.DataFrame(
                {
                    "time": times,
                    "queue": queue.name,
                    "quota": queue.gpu if math.isinf(queue.gpu) else quota / GPU_SCALE,
                    "used": used / GPU_SCALE,
                    "running": run / GPU_SCALE,
                    "borrowed": np.maximum(used - quota, 0) / GPU_SCALE,
                    "share": share_of(used - quota, queue.weight),
                }
            ).drop_duplicates("time", keep="last")
        )
    return pd.concat(frames, ignore_index=True)[list(USAGE_COLUMNS)]


def usage_totals(result: SimResult) -> dict[str, dict[str, float]]:
    """Per queue: ``gpu_seconds`` (integral of U), ``gpu_seconds_above_quota`` (of max(0, U - quota)),
    ``usage_mean`` and ``share_mean`` (U and share averaged over the makespan, first submit to last
    finish; 0 for an empty run)."""
    spec = _spec(result)
    curve = usage_over_time(result)
    end = float(np.max(result.finish)) if len(result.jobs) else 0.0
    start = float(result.jobs.submit_time.min()) if len(result.jobs) else 0.0
    span = end - start
    out = {}
    for queue in spec.queues:
        c = curve[curve["queue"] == queue.name]
        times = c["time"].to_numpy(dtype=float)
        width = np.diff(np.append(times, max(end, times[-1])))
        used = float(np.dot(c["used"].to_numpy(dtype=float), width))
        out[queue.name] = {
            "gpu_seconds": used,
            "gpu_seconds_above_quota": float(np.dot(c["borrowed"].to_numpy(dtype=float), width)),
            "usage_mean": used / span if span > 0 else 0.0,
            "share_mean": float(np.dot(c["share"].to_numpy(dtype=float), width)) / span if span > 0 else 0.0,
        }
    return out


def preemption_split(result: SimResult, acc: accounting.Accounting | None = None) -> dict[str, dict[str, Any]]:
    """Per queue: ``preemptions_suffered`` and ``preemptions_caused`` (counted per victim), and
    ``gpu_seconds_lost``, ``gpu_seconds_grace``, ``gpu_seconds_restore`` of its jobs' preemptions,
    each {"reclaim": .., "te_first": ..} by the victim's relation to its preemptor."""
    spec = _spec(result)
    queue = result.queue
    assert queue is not None
    acc = accounting.account(result) if acc is None else acc
    nom = result.nominations
    _, first = np.unique(nom[:, 0], return_index=True)
    assert (acc.decision_of >= 0).all()  # every preemption belongs to a decision
    preemptor = nom[first, 1][acc.decision_of] if len(first) else np.zeros(0, dtype=np.int64)
    victim_q = queue[acc.victim]
    by_q = queue[preemptor]
    same = victim_q == by_q
    out: dict[str, dict[str, Any]] = {}
    for i, q in enumerate(spec.queues):
        row: dict[str, Any] = {}
        for key, mine in (("preemptions_suffered", victim_q == i), ("preemptions_caused", by_q == i)):
            row[key] = {"reclaim": int((mine & ~same).sum()), "te_first": int((mine & same).sum())}
        for cost in accounting.COSTS:
            v = acc.cost[cost]
            row[cost] = {
                "reclaim": float(v[(victim_q == i) & ~same].sum()),
                "te_first": float(v[(victim_q == i) & same].sum()),
            }
        out[q.name] = row
    return out


def ledger_records(result: SimResult) -> list[dict[str, Any]]:
    """One dict per preemption decision, in order: its time, ``cause`` (``reclaim`` when every victim
    is of another queue, else ``te_first``), the preemptor (``queue``, ``job``, ``job_class``), its
    ``victims`` with their queues and GPUs (signal order), and ``usage``, ``running``, ``share`` just
    before and just after the signals (with grace 0: after the releases, before the preemptor starts),
    each {queue: value} for the preemptor's queue and every victim's."""
    spec = _spec(result)
    queue = result.queue
    assert queue is not None
    names = spec.names
    ids = result.jobs.job_id
    gpus = units.requests(result.jobs.request)[:, 2] * np.asarray(result.jobs.workers)
    out = []
    for t, j, victims, touched, before, after in result.ledger:
        mine = int(queue[j])
        row: dict[str, Any] = {
            "time": float(t),
            "cause": "reclaim" if all(int(queue[v]) != mine for v in victims) else "te_first",
            "queue": names[mine],
            "job": str(ids[j]),
            "job_class": "TE" if result.jobs.is_te[j] else "BE",
            "victims": [str(ids[v]) for v in victims],
            "victim_queues": [names[int(queue[v])] for v in victims],
            "victim_gpus": [int(gpus[v]) / GPU_SCALE for v in victims],
        }
        for when, usage in (("before", before), ("after", after)):
            row[f"usage_{when}"] = {names[q]: u / GPU_SCALE for q, (u, _, _) in zip(touched, usage, strict=True)}
            row[f"running_{when}"] = {names[q]: r / GPU_SCALE for q, (_, r, _) in zip(touched, usage, strict=True)}
            row[f"share_{when}"] = {names[q]: s / 1e9 for q, (_, _, s) in zip(touched, usage, strict=True)}
        out.append(row)
    return out


def ledger_frame(result: SimResult) -> pd.DataFrame:
    """:func:`ledger_records` as the ledger CSV's columns (:data:`LEDGER_COLUMNS`): lists joined by
    ``;``, per-queue values as ``queue=value`` joined by ``;`` (numbers as Python writes them)."""
    rows = []
    for rec in ledger_records(result):
        row = {k: rec[k] for k in ("time", "cause", "queue", "job", "job_class")}
        row["victims"] = ";".join(rec["victims"])
        row["victim_queues"] = ";".join(rec["victim_queues"])
        row["victim_gpus"] = ";".join(_num(x) for x in rec["victim_gpus"])
        for key in LEDGER_COLUMNS[8:]:
            row[key] = ";".join(f"{q}={_num(v)}" for q, v in rec[key].items())
        rows.append(row)
    return pd.DataFrame.from_records(rows, columns=list(LEDGER_COLUMNS))


def _num(x: float) -> str:
    """A number as the ledger writes it: whole values without a decimal point (8, not 8.0)."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))
