"""Preemption accounting (DESIGN.md section 5): what the preemptions of one run cost, from its
append-only records (events, the work each signal discarded, the nominations).

Per preemption (one signalled job): its GPU-seconds of lost work, of grace (signal to release)
and of restore (the restoring its next start paid, cut short when it was preempted again while
restoring); each is seconds x gpu x workers. Per decision (one nomination and the victims
signalled with it): the sums over its victims, ``excess_gpus`` (the GPUs its victims free, on
every node they hold, minus the GPUs the TE job lacked on its node(s)) and ``wasted`` (the TE job
started, first, somewhere other than where it was nominated: rule 5). Per run: those summed,
``evicted_share`` (share of BE jobs preempted at least once) and ``repreempted`` (preemptions
that come less than :data:`REPREEMPT_WINDOW` seconds of run after the job's previous restore).

A gang writes one row per worker for each event (rule 10); the accounting counts the job's event
once and multiplies by its workers, and compares a TE gang's start nodes with its nominated
nodes worker by worker. A TE gang's decision may have several decision records (one per worker
that searched): :func:`record_values` splits its values over them.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simcore.core import units
from simcore.core.result import FAIL, PREEMPT, RELEASE, START, SimResult

#: seconds of run after a restore within which a further preemption counts as ``repreempted``
REPREEMPT_WINDOW = 3600.0
#: the GPU-seconds a preemption costs, each summed per decision and per run
COSTS = ("gpu_seconds_lost", "gpu_seconds_grace", "gpu_seconds_restore")
#: the values each decision record carries (known at the end of the run)
DECISION_FIELDS = ("excess_gpus", *COSTS, "wasted")
#: the summary's ``accounting`` block, flattened for a sweep row or a table, in order
FLAT_ACCOUNTING: tuple[str, ...] = (
    "preemption_decisions",
    *COSTS,
    "evicted_share",
    "excess_gpus",
    "wasted_preemptions",
    *(f"wasted_{c}" for c in COSTS),
    "repreempted",
)
#: the accounting table's columns (``compare --accounting``, the report): flat field -> header
ACCOUNTING_COLUMNS = {
    "preemption_decisions": "decisions",
    "gpu_seconds_lost": "lost GPU-s",
    "gpu_seconds_grace": "grace GPU-s",
    "gpu_seconds_restore": "restore GPU-s",
    "evicted_share": "evicted",
    "excess_gpus": "excess GPUs",
    "wasted_preemptions": "wasted",
    "repreempted": "repreempted",
}


def gpu_seconds(seconds: Any, gpu_units: Any, workers: Any) -> Any:
    """GPU-seconds of `seconds` of run time on every worker of a job: seconds x gpu x workers, the
    per-worker GPU request given in :mod:`simcore.core.units` (thousandths, exact). Scalars or arrays."""
    return seconds * (gpu_units * workers / units.SCALE[2])


@dataclass(frozen=True)
class Accounting:
    """Per preemption (a signalled job, in signal order) and per decision (in nomination order)."""

    victim: np.ndarray  # signalled job
    time: np.ndarray  # the signal's time
    cost: dict[str, np.ndarray]  # COSTS name -> per preemption
    repreempted: np.ndarray  # bool per preemption
    decision_of: np.ndarray  # per preemption, its decision (-1: none, not expected)
    excess_gpus: np.ndarray  # per decision
    wasted: np.ndarray  # bool per decision
    #: bool per decision: wasted because a node of its nomination went down or started draining (DESIGN rule 12)
    node_down: np.ndarray

    def decision_cost(self, name: str) -> np.ndarray:
        """A cost summed over each decision's victims."""
        mine = self.decision_of >= 0
        return np.bincount(self.decision_of[mine], weights=self.cost[name][mine], minlength=len(self.wasted))


def first_rows(result: SimResult) -> np.ndarray:
    """Mask of the rows that are the first of their (job, event, time): a gang's other workers' rows
    dropped (a run with down time: node rows stay, job -1)."""
    t, job, code = result.ev_time, result.ev_job, result.ev_code
    dup = np.zeros(len(t), dtype=bool)
    dup[1:] = (job[1:] == job[:-1]) & (code[1:] == code[:-1]) & (t[1:] == t[:-1])
    return ~dup


def account(result: SimResult) -> Accounting:
    """Every preemption's and every decision's values, from the run's records."""
    jobs = result.jobs
    gpu = units.requests(jobs.request)[:, 2]  # thousandths, exact
    gpu_w = gpu * np.asarray(jobs.workers)  # per job, all its workers
    rows = np.flatnonzero(first_rows(result))
    preempted = np.zeros(len(jobs), dtype=bool)
    preempted[result.ev_job[rows[result.ev_code[rows] == PREEMPT]]] = True
    # the rows of the jobs preempted, the only ones read below (a node row's job is -1: left out)
    row_job = result.ev_job[rows]
    rows = rows[(row_job >= 0) & preempted[row_job]]
    job, code, t = result.ev_job[rows], result.ev_code[rows], result.ev_time[rows]
    by_job = np.argsort(job, kind="stable")  # each job's events in the order they happened
    sj, sc, st = job[by_job], code[by_job], t[by_job]
    # in by-job order; each is followed by its release (or a failure in grace: DESIGN rule 12), a start, an end
    pre = np.flatnonzero(sc == PREEMPT)
    n_pre = len(pre)
    if n_pre:
        assert np.isin(sc[pre + 1], (RELEASE, FAIL)).all() and (sc[pre + 2] == START).all()
        assert (sc[pre - 1] == START).all()
    restore = result.config.restore
    grace_s = st[pre + 1] - st[pre]  # held from the signal to the release or the failure
    # the restore its next start paid; after a failure in grace it is the failure's (interruptions.py)
    restore_s = (
        np.where(sc[pre + 1] == RELEASE, np.minimum(restore, st[pre + 3] - st[pre + 2]), 0.0) if n_pre else np.zeros(0)
    )
    # the segment the preemption ends began after an interruption when the row before its start is a
    # release or a failure of the same job (its first start follows its submit)
    restarted = np.zeros(n_pre, dtype=bool)
    has_before = pre >= 2
    before = pre[has_before] - 2
    restarted[has_before] = np.isin(sc[before], (RELEASE, FAIL)) & (sj[before] == sj[pre[has_before]])
    run_s = np.maximum(0.0, st[pre] - st[pre - 1] - restore) if n_pre else np.zeros(0)
    # back to signal order (the log's order), which the lost work and the nominations follow
    order = np.argsort(by_job[pre], kind="stable")
    victim, signal_time = sj[pre][order], st[pre][order]
    lost = np.asarray(result.signal_lost, dtype=float)
    workers = np.asarray(jobs.workers)[victim]
    cost = {
        name: gpu_seconds(seconds, gpu[victim], workers)
        for name, seconds in zip(COSTS, (lost, grace_s[order], restore_s[order]), strict=True)
    }
    repre = (restarted & (run_s < REPREEMPT_WINDOW))[order]
    decision_of, excess, wasted, node_down = _decisions(result, rows[by_job[pre]][order], gpu_w)
    return Accounting(victim, signal_time, cost, repre, decision_of, excess, wasted, node_down)


def _decisions(result: SimResult, pre_rows: np.ndarray, gpu_w: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per preemption its decision; per decision its excess GPUs, whether it was wasted and whether
    because its nomination ended on a node going down or draining. `pre_rows`: the log row of each
    preemption, in signal order."""
    nom = result.nominations
    decision_rows, first = np.unique(nom[:, 0], return_index=True)
    bounds = [*first.tolist(), len(nom)]
    # a decision's victims are signalled right after its nomination, before the next one
    decision_of = np.searchsorted(decision_rows, pre_rows, side="right") - 1
    freed = np.bincount(
        decision_of[decision_of >= 0],
        weights=gpu_w[result.ev_job[pre_rows]][decision_of >= 0],
        minlength=len(decision_rows),
    )
    # a decision's rows: one per nominated worker, in worker order; its GPU units lacked summed exactly (integers)
    lacked = np.add.reduceat(nom[:, 3], first) if len(first) else np.zeros(0, dtype=np.int64)
    excess = (freed - lacked) / units.SCALE[2]
    starts = np.flatnonzero((result.ev_code == START) & np.isin(result.ev_job, nom[:, 1]))
    start_rows: dict[int, list[int]] = {}  # TE job -> its start rows (more than one start only after a failure)
    for job, row in zip(result.ev_job[starts].tolist(), starts.tolist(), strict=True):
        start_rows.setdefault(job, []).append(row)
    nodes, times, where = nom[:, 2].tolist(), result.ev_time, result.ev_node
    wasted = np.array(
        [
            _started_on(start_rows.get(te, []), row, times, where) != nodes[a:b]
            for te, row, a, b in zip(
                nom[first, 1].tolist(), decision_rows.tolist(), bounds[:-1], bounds[1:], strict=True
            )
        ],
        dtype=bool,
    )
    node_down = np.isin(decision_rows, result.downtime.ended) if result.downtime is not None else np.zeros_like(wasted)
    return decision_of, excess, wasted | node_down, node_down


def _started_on(rows: list[int], after: int, times: np.ndarray, nodes: np.ndarray) -> list[int]:
    """The nodes of a TE job's first start after log row `after` (its nomination), one per worker."""
    i = bisect.bisect_right(rows, after)
    first = [r for r in rows[i:] if times[r] == times[rows[i]]] if i < len(rows) else []
    return nodes[first].tolist()


def summary(result: SimResult, acc: Accounting | None = None) -> dict[str, Any]:
    """The summary JSON's ``accounting`` block."""
    acc = account(result) if acc is None else acc
    be = ~result.jobs.is_te
    n_be = int(be.sum())
    out: dict[str, Any] = {"preemption_decisions": len(acc.wasted)}
    out.update({c: float(acc.cost[c].sum()) for c in COSTS})
    out["evicted_share"] = float((result.preemptions[be] > 0).sum() / n_be) if n_be else None
    out["excess_gpus"] = float(acc.excess_gpus.sum())
    wasted: dict[str, Any] = {"count": int(acc.wasted.sum())}
    if result.downtime is not None:  # of them, those whose nominee lost its node (DESIGN-failures point 10)
        wasted["node_down"] = int(acc.node_down.sum())
    wasted.update({c: float(acc.decision_cost(c)[acc.wasted].sum()) for c in COSTS})
    out["wasted_preemptions"] = wasted
    out["repreempted"] = int(acc.repreempted.sum())
    return out


#: the columns a run with gangs adds to its flat record (a workload without gangs keeps its columns)
GANG_FIELDS = ("workers_stopped", "gang_preemptions", "te_served_by_preemption")


def gang_flat(result: SimResult, acc: Accounting | None = None) -> dict[str, int]:
    """:data:`GANG_FIELDS`: the workers stopped summed over preemptions, the preemptions that stopped
    a gang of more than one worker, and the TE jobs nominated with victims (each counted once)."""
    acc = account(result) if acc is None else acc
    stopped = np.asarray(result.jobs.workers)[acc.victim]
    return {
        "workers_stopped": int(stopped.sum()),
        "gang_preemptions": int((stopped > 1).sum()),
        "te_served_by_preemption": len(np.unique(result.nominations[:, 1])),
    }


def flat(block: Mapping[str, Any]) -> dict[str, Any]:
    """The ``accounting`` block as :data:`FLAT_ACCOUNTING` fields (NaN for null)."""
    w = block["wasted_preemptions"]
    out = {k: block[k] for k in ("preemption_decisions", *COSTS, "evicted_share", "excess_gpus")}
    out["evicted_share"] = np.nan if out["evicted_share"] is None else out["evicted_share"]
    out["wasted_preemptions"] = w["count"]
    out.update({f"wasted_{c}": w[c] for c in COSTS})
    out["repreempted"] = block["repreempted"]
    return out


def decision_values(result: SimResult, acc: Accounting | None = None) -> list[dict[str, Any]]:
    """Per decision with victims (nomination order), its :data:`DECISION_FIELDS`."""
    acc = account(result) if acc is None else acc
    costs = {c: acc.decision_cost(c) for c in COSTS}
    return [
        {
            "excess_gpus": float(acc.excess_gpus[d]),
            **{c: float(costs[c][d]) for c in COSTS},
            "wasted": bool(acc.wasted[d]),
            **({} if result.downtime is None else {"wasted_cause": _wasted_cause(acc, d)}),
        }
        for d in range(len(acc.wasted))
    ]


def record_values(result: SimResult, acc: Accounting | None = None) -> list[dict[str, Any]]:
    """Per decision record with victims (record order), its :data:`DECISION_FIELDS`.

    A decision of a TE gang has one record per worker that searched (docs/policies.md, preemption
    accounting), each naming the victims of its own search; a single job's decision has one. A
    record's costs are its own victims' (each preemption belongs to exactly one record); the GPUs
    the TE job lacked on a node count against the decision's records whose victims hold that node,
    in record order, each up to the GPUs its victims free there, so that a record's
    ``excess_gpus`` is what its victims free beyond the lack they make up; ``wasted`` is its
    decision's. Summed over the records, each figure is the decision's, hence the summary's."""
    acc = account(result) if acc is None else acc
    recorded = [len(rec["victims"]) for rec in result.decisions if rec["victims"]]
    bounds = np.cumsum([0, *recorded])
    assert bounds[-1] == len(acc.victim)  # every preemption belongs to exactly one record
    record_of = np.repeat(np.arange(len(recorded)), recorded)  # per preemption (signal order)
    costs = {c: np.bincount(record_of, weights=acc.cost[c], minlength=len(recorded)) for c in COSTS}
    # every worker's preempt row (a gang victim writes one per worker), with its preemption
    rows = np.flatnonzero(result.ev_code == PREEMPT)
    preemption = np.cumsum(first_rows(result)[rows]) - 1
    gpu = units.requests(result.jobs.request)[:, 2][result.ev_job[rows]].tolist()
    nodes = result.ev_node[rows].tolist()
    nom = result.nominations
    decision_rows = np.unique(nom[:, 0])
    lacked: dict[tuple[int, int], int] = {}  # (decision, node) -> GPU units lacked, not yet made up
    for d, k, units_lacked in zip(
        np.searchsorted(decision_rows, nom[:, 0]).tolist(), nom[:, 2].tolist(), nom[:, 3].tolist(), strict=True
    ):
        lacked[d, k] = lacked.get((d, k), 0) + units_lacked
    out = []
    for r in range(len(recorded)):
        d = int(acc.decision_of[bounds[r]])
        lo, hi = np.searchsorted(preemption, bounds[r : r + 2]).tolist()
        freed = made_up = 0
        for k, g in zip(nodes[lo:hi], gpu[lo:hi], strict=True):
            take = min(g, lacked.get((d, k), 0))
            if take:
                lacked[d, k] -= take
            freed += g
            made_up += take
        out.append(
            {
                "excess_gpus": float((freed - made_up) / units.SCALE[2]),
                **{c: float(costs[c][r]) for c in COSTS},
                "wasted": bool(acc.wasted[d]),
                **({} if result.downtime is None else {"wasted_cause": _wasted_cause(acc, d)}),
            }
        )
    return out


#: why a decision was wasted, in a run with down time (decision records' ``wasted_cause``)
NODE_DOWN = "node down"
STARTED_ELSEWHERE = "started elsewhere"


def _wasted_cause(acc: Accounting, d: int) -> str | None:
    return NODE_DOWN if acc.node_down[d] else STARTED_ELSEWHERE if acc.wasted[d] else None


def annotated_decisions(result: SimResult) -> list[dict[str, Any]]:
    """The run's decision records, each with its accounting values (null when it has no victims):
    :func:`record_values`."""
    values = iter(record_values(result))
    none = (*DECISION_FIELDS, "wasted_cause") if result.downtime is not None else DECISION_FIELDS
    return [{**rec, **(next(values) if rec["victims"] else dict.fromkeys(none))} for rec in result.decisions]


#: the columns of :func:`lost_work`
LOST_COLUMNS = ("job_id", "time", "lost")


def lost_work(result: SimResult, acc: Accounting | None = None) -> pd.DataFrame:
    """One row per preemption (signal order): the victim, the signal's time and the seconds of run
    its signal discarded (the run's record, DESIGN.md section 2; ``gpu_seconds_lost`` without the
    GPUs). The lost seconds are the last ones the job ran before the signal: the progress since
    its last kept checkpoint never reaches back past its latest start."""
    acc = account(result) if acc is None else acc
    ids = result.jobs.job_id.astype(str)
    lost = np.asarray(result.signal_lost, dtype=float)
    return pd.DataFrame({"job_id": ids[acc.victim], "time": acc.time, "lost": lost}, columns=list(LOST_COLUMNS))


#: the columns of :func:`decision_table`
DECISION_COLUMNS = ("time", "te_job", "node", "victims", "first_victim", "victim_node", *DECISION_FIELDS)


def decision_table(result: SimResult, acc: Accounting | None = None) -> pd.DataFrame:
    """One row per decision with victims (nomination order): when, the TE job, the node it was
    nominated to, its victims' ids (comma-separated), the first victim and its node (the first
    ``preempt`` row it wrote: where to find it on a Gantt) and its :data:`DECISION_FIELDS`."""
    acc = account(result) if acc is None else acc
    ids = result.jobs.job_id.astype(str)
    names = np.array(result.cluster.names, dtype=object)
    nom = result.nominations
    _, first_of = np.unique(nom[:, 0], return_index=True)  # each decision's first nomination row
    rows = []
    for d, values in enumerate(decision_values(result, acc)):
        victims = acc.victim[acc.decision_of == d]
        first = nom[first_of[d]]
        row = int(first[0])  # the decision's first preempt row
        rows.append(
            {
                "time": float(result.ev_time[row]),
                "te_job": ids[first[1]],
                "node": names[first[2]],
                "victims": ", ".join(ids[victims]),
                "first_victim": ids[result.ev_job[row]],
                "victim_node": names[result.ev_node[row]],
                **values,
            }
        )
    return pd.DataFrame.from_records(rows, columns=list(DECISION_COLUMNS))
