"""One preemption's decision record in words, and the nodes the policy weighed (pure).

The words name the value that decided (the record's ``deciding``), define it and give its
principle from the one glossary (:mod:`simcore.policies.glossary`); what another policy would take
is asked on the very same state (the record's ``same_state``), its own run being a second view.
When a gang is among the options, what each one costs (workers stopped, nodes touched, GPU time
lost by :func:`simcore.analysis.accounting.gpu_seconds`) is set side by side (:func:`option_costs`).

Drawn by :mod:`dashboard.explore.decision_view` from the records of :func:`dashboard.runs.data.decision_records`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simcore.analysis import accounting
from simcore.core import fmt, units
from simcore.core.model import JobTable
from simcore.policies.glossary import TIE_BREAK, term


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


def _jobs(ids: Sequence[str]) -> str:
    return ("BE job " if len(ids) == 1 else "BE jobs ") + ", ".join(ids)


def _label(name: str) -> str:
    return name.replace("_", " ")


def value_text(name: str, value: float) -> str:
    """A key value in human units (:data:`simcore.policies.glossary.TERMS`): durations and instants
    through :mod:`simcore.core.fmt`, never raw seconds."""
    unit = term(name).unit
    if unit == "seconds":
        return fmt.duration(value)
    if unit == "clock":
        return fmt.clock(value)
    return f"{value:g}" if unit in ("count", "draw") else fmt.number(value)


def _why(record: Mapping[str, Any]) -> str:
    """Why the chosen node won, from ``deciding``: the values it tied on, the one it won on and its
    meaning, then the principle behind it."""
    deciding = record.get("deciding")
    cands = record["candidates"]
    if deciding is None or len(cands) < 2:
        return "it was the only node where preempting made room"
    best, other = cands[0], cands[1]
    names = [name for name, _ in record["key"]]
    tied = names if deciding == TIE_BREAK else names[: names.index(deciding)]
    ties = ", ".join(f"{_label(n)} ({value_text(n, best[n])})" for n in tied)
    head = f"it tied with node {other['node']} on {ties}; " if tied else ""
    meaning = term(deciding)
    if deciding == TIE_BREAK:
        return f"{head}{_label(deciding)} decided: {meaning.meaning}"
    better = dict(record["key"])[deciding]
    side = {"min": "lower is better", "max": "higher is better", "drawn": "drawn at random"}[better]
    return (
        f"{head}{_label(deciding)} decided: {value_text(deciding, best[deciding])} against "
        f"{value_text(deciding, other[deciding])} for node {other['node']} ({side}). {_label(deciding).capitalize()} "
        f"is {meaning.meaning}. Principle: {meaning.principle}"
    )


def same_state_words(record: Mapping[str, Any], other: str) -> str:
    """What `other` would take on this very instant's cluster (the record's ``same_state``)."""
    alt = record.get("same_state")
    if alt is None:
        return f"{other} was not asked on this state."
    if not alt["victims"]:
        return f"On the same state, {other} would take no victim: {alt['reason']}."
    same = sorted(alt["victims"]) == sorted(record["victims"]) and alt["node"] == record["node"]
    verdict = "the same choice" if same else "a different choice"
    return (
        f"On the same state (this instant's cluster), {other} would take {_jobs(alt['victims'])} on node "
        f"{alt['node']}: {verdict}, decided by its {_label(alt['deciding'] or 'only option')}."
    )


def decision_words(
    record: Mapping[str, Any],
    te_gpu: float,
    lost: float,
    other: str,
    other_record: Mapping[str, Any] | None,
) -> list[str]:
    """The decision in sentences: what the TE job needed, what was taken and why, what ``other``
    would take on the same state (the record's ``same_state``), and, a second view, what it took
    for the same TE job in its own run (``other_record``: its record, None if it never asked)."""
    te, policy = record["te_job"], record["policy"]
    lines = [
        f"TE job {te} needed {_plural(te_gpu, 'GPU')} and fitted on no node at {fmt.clock(record['time'])}.",
        f"{policy} took node {record['node']}: {_plural(len(record['victims']), 'victim')} "
        f"({_jobs(record['victims'])}), {fmt.duration(lost)} of work lost; chosen because {_why(record)}.",
        same_state_words(record, other),
    ]
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
            f"{own}, it took {_jobs(other_record['victims'])} on node {other_record['node']}, "
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
    rows = [{"value": _label(n), "meaning": term(n).meaning, "principle": term(n).principle} for n in names]
    return pd.DataFrame(rows, columns=["value", "meaning", "principle"])


def candidate_table(record: Mapping[str, Any]) -> pd.DataFrame:
    """The nodes the policy weighed, best first: node, victims and the values of its ordering key in
    human units (:func:`value_text`), headed as the glossary names them."""
    names = [name for name, _ in record["key"]]
    rows = [
        {
            "node": c["node"],
            "would take": ", ".join(c["job_id"]),
            **{_label(n): value_text(n, c[n]) for n in names},
            "chosen": c["chosen"],
        }
        for c in record["candidates"]
    ]
    return pd.DataFrame(rows, columns=["node", "would take", *map(_label, names), "chosen"])


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


def option_costs(record: Mapping[str, Any], jobs: Mapping[str, tuple[float, int]], other: str) -> list[OptionCost]:
    """The chosen set, the runner-up and `other`'s choice on the same state, each with its cost
    (the record's :data:`simcore.policies.decision.GANG_COSTS`); empty unless one of them stops a gang."""
    cands = record["candidates"]
    if not record["victims"] or "workers" not in cands[0]:
        return []
    out = [_option(f"chosen by {record['policy']}", cands[0], jobs)]
    if len(cands) > 1:
        out.append(_option("runner-up", cands[1], jobs))
    alt = record.get("same_state")
    if alt is not None and alt["victims"]:
        out.append(_option(f"{other} on the same state", alt["candidates"][0], jobs))
    return out if any(jobs[j][1] > 1 for o in out for j in o.jobs) else []


def cost_words(costs: Sequence[OptionCost]) -> list[str]:
    """One sentence per option: what it stops and what it throws away."""
    return [
        f"{c.label.capitalize()}: {_jobs(list(c.jobs))} via node {c.node} stops {_plural(c.workers, 'worker')} on "
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
