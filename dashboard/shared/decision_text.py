"""One preemption's decision record in words, and the nodes the policy weighed (pure).

The words explain the choice by contrast (:mod:`simcore.analysis.contrast`): against each other
node's best set, each other set on the same node and what the policies asked on the very same state
would take (the record's ``same_state`` and ``sets``), the key value that separates them with both
values in human units; the glossary (:mod:`simcore.policies.glossary`) defines each value. Another
policy's record for the same TE job in its own run is a second view. When a gang is among the
options, what each one costs (workers stopped, nodes touched, GPU time lost by
:func:`simcore.analysis.accounting.gpu_seconds`) is set side by side (:func:`option_costs`).

Drawn by :mod:`dashboard.explore.decision_view` from the records of :func:`dashboard.runs.data.decision_records`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simcore.analysis import accounting, contrast
from simcore.core import fmt, units
from simcore.core.model import JobTable
from simcore.policies.glossary import TIE_BREAK, label, term, value_text


def decision_for(records: Sequence[Mapping[str, Any]], chosen: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The decision record that signalled the chosen preemption (its time, its victim)."""
    job = str(chosen["job_id"])
    return next((r for r in records if r["time"] == chosen["time"] and job in r["victims"]), None)


def decision_of_te_job(records: Sequence[Mapping[str, Any]], te_job: str) -> Mapping[str, Any] | None:
    """A TE job's first decision that took victims in a run, else its first decision, else None."""
    mine = [r for r in records if r["te_job"] == te_job]
    return next((r for r in mine if r["victims"]), mine[0] if mine else None)


def _plural(n: float, word: str) -> str:
    return f"{n:g} {word}" + ("" if n == 1 else "s")


def decision_words(
    record: Mapping[str, Any],
    te_gpu: float,
    lost: float,
    other: str,
    other_record: Mapping[str, Any] | None,
) -> list[str]:
    """The decision in sentences: what the TE job needed, what was taken, why by contrast with each
    alternative (:func:`simcore.analysis.contrast.contrast_lines`: the other nodes' and sets', and what
    the policies asked on the same state would take), and, a second view, what ``other`` took for
    the same TE job in its own run (``other_record``: its record, None if it never asked; no line
    without ``other``)."""
    te, policy = record["te_job"], record["policy"]
    lines = [
        f"TE job {te} needed {_plural(te_gpu, 'GPU')} and fitted on no node at {fmt.clock(record['time'])}.",
        f"{policy} took node {record['node']}: {_plural(len(record['victims']), 'victim')} "
        f"({contrast.jobs_text(record['victims'])}), {fmt.duration(lost)} of work lost.",
        *contrast.contrast_lines(record),
    ]
    if not other:
        return lines
    own = f"In {other}'s own run on the same jobs (a second view, where the state may have drifted)"
    if other_record is None:
        lines.append(f"{own}, it never had to preempt for TE job {te}: it found room in time.")
    elif other_record["victims"]:
        when = (
            "at the same instant"
            if other_record["time"] == record["time"]
            else f"at {fmt.clock(other_record['time'])} (the two runs had diverged)"
        )
        lines.append(
            f"{own}, it took {contrast.jobs_text(other_record['victims'])} on node {other_record['node']}, "
            f"where TE job {te} asked for room {when}."
        )
    else:
        lines.append(f"{own}, it took no victim for TE job {te}: {other_record['reason']}.")
    return lines


def glossary(record: Mapping[str, Any]) -> pd.DataFrame:
    """Every key value the page shows, with its meaning and principle (and the tie-break when it decided)."""
    names = [name for name, _ in record["key"]]
    if record.get("deciding") == TIE_BREAK:
        names.append(TIE_BREAK)
    rows = [{"value": label(n), "meaning": term(n).meaning, "principle": term(n).principle} for n in names]
    return pd.DataFrame(rows, columns=["value", "meaning", "principle"])


#: the candidate table's columns besides the key values, before them then after them
SET_COLUMNS = ("node", "would take", "chosen", "taken on this state by", "against the chosen set")


def candidate_table(record: Mapping[str, Any]) -> pd.DataFrame:
    """One row per candidate set, best first: every set the policy weighed (the record's ``sets``,
    else each node's best), then the other policies' choices it did not weigh; the values of its
    ordering key in human units, headed as the glossary names them, who takes the set on this state
    and how it is told apart from the chosen set (:func:`simcore.analysis.contrast.reason_words`)."""
    names = [name for name, _ in record["key"]]
    sets = record.get("sets") or [
        {**c, "weighed": True, "excluded": None, "taken_by": []} for c in record["candidates"]
    ]
    chosen = record["candidates"][0] if record["victims"] else None
    rows = []
    for s in sets:
        alt = contrast.alternative(s, names)
        mine = chosen is not None and s["node"] == chosen["node"] and list(s["job_id"]) == list(chosen["job_id"])
        why = (
            "" if chosen is None or mine else contrast.reason_words(record, contrast.compare(record, alt), False, True)
        )
        rows.append(
            {
                "node": s["node"],
                "would take": ", ".join(s["job_id"]),
                **{label(n): fmt.MISSING if s.get(n) is None else value_text(n, s[n]) for n in names},
                "taken on this state by": ", ".join(s["taken_by"]),
                "against the chosen set": why,
                "chosen": mine,
            }
        )
    return pd.DataFrame(rows, columns=[*SET_COLUMNS[:3], *map(label, names), *SET_COLUMNS[3:]])


def accounting_words(decisions: pd.DataFrame, record: Mapping[str, Any]) -> str | None:
    """The decision's accounting in one sentence (known at the end of the run), from its run's
    decision table (:func:`simcore.analysis.accounting.decision_table`); None when the table has no such row."""
    mine = decisions[(decisions["time"] == record["time"]) & (decisions["te_job"] == record["te_job"])]
    if mine.empty:
        return None
    row = mine.iloc[0]
    cost = ", ".join(f"{fmt.gpu_hours(row[f'gpu_seconds_{c}'])} {c}" for c in ("lost", "grace", "restore"))
    wasted = (
        "Wasted: the TE job started on another node before its victims released."
        if row["wasted"]
        else "Not wasted: the TE job started where it was nominated."
    )
    return f"This decision freed {fmt.number(row['excess_gpus'])} GPUs more than the TE job lacked; BE GPU time: {cost}. {wasted}"


#: the figures of "What each choice costs" (a decision with a gang among its options), each defined
COST_TERMS: dict[str, str] = {
    "workers stopped": "the BE workers the set signals: a single-node job is one, a gang counts all its workers",
    "nodes touched": "the nodes the set's jobs hold, where the signal stops work: a gang's every node",
    "GPU time lost": (
        "the work a signal at this instant throws away (by the checkpoint mode) x the GPUs per worker x "
        "the workers, summed over the set: GPU-seconds, shown in the unit that reads best"
    ),
}


@dataclass(frozen=True)
class OptionCost:
    """What one victim set costs: a chosen, runner-up or other policy's set of a decision record."""

    label: str
    node: str
    jobs: tuple[str, ...]
    workers: int
    holds: tuple[str, ...]
    gpu_seconds: float


def job_gpus(table: JobTable) -> dict[str, tuple[float, int]]:
    """Per job id, its per-worker GPU request (in :mod:`simcore.core.units`) and its workers."""
    gpu = units.requests(table.request)[:, 2]
    return {
        str(j): (float(g), int(w))
        for j, g, w in zip(table.job_id, gpu, np.asarray(table.workers), strict=True)  # type: ignore[arg-type]
    }


def _option(label: str, cand: Mapping[str, Any], jobs: Mapping[str, tuple[float, int]]) -> OptionCost:
    lost = sum(
        accounting.gpu_seconds(s, jobs[j][0], jobs[j][1]) for j, s in zip(cand["job_id"], cand["lost_now"], strict=True)
    )
    return OptionCost(label, cand["node"], tuple(cand["job_id"]), cand["workers"], tuple(cand["holds"]), float(lost))


def option_costs(record: Mapping[str, Any], jobs: Mapping[str, tuple[float, int]]) -> list[OptionCost]:
    """The chosen set, the runner-up and what each policy asked on the same state would take, each with
    its cost (the record's :data:`simcore.policies.decision.GANG_COSTS`); empty unless one of them stops
    a gang."""
    cands = record["candidates"]
    if not record["victims"] or "workers" not in cands[0]:
        return []
    out = [_option(f"chosen by {record['policy']}", cands[0], jobs)]
    if len(cands) > 1:
        out.append(_option("runner-up", cands[1], jobs))
    for other, alt in record.get("same_state", {}).items():
        if alt["victims"]:
            out.append(_option(f"{other} on the same state", alt["candidates"][0], jobs))
    return out if any(jobs[j][1] > 1 for o in out for j in o.jobs) else []


def cost_words(costs: Sequence[OptionCost]) -> list[str]:
    """One sentence per option: what it stops and what it throws away."""
    return [
        f"{c.label.capitalize()}: {contrast.jobs_text(c.jobs)} via node {c.node} stops {_plural(c.workers, 'worker')} on "
        f"{_plural(len(c.holds), 'node')} ({', '.join(c.holds)}) and throws away {fmt.duration(c.gpu_seconds)} "
        "of GPU time."
        for c in costs
    ]


def cost_table(costs: Sequence[OptionCost]) -> pd.DataFrame:
    """The options side by side, headed as :data:`COST_TERMS` names them."""
    rows = [
        {
            "option": c.label,
            "node": c.node,
            "would take": ", ".join(c.jobs),
            "workers stopped": c.workers,
            "nodes touched": len(c.holds),
            "GPU time lost": fmt.duration(c.gpu_seconds),
        }
        for c in costs
    ]
    return pd.DataFrame(rows, columns=["option", "node", "would take", *COST_TERMS])


def cost_glossary() -> pd.DataFrame:
    """Each figure of :func:`cost_table` and its definition."""
    return pd.DataFrame({"value": list(COST_TERMS), "meaning": list(COST_TERMS.values())})
