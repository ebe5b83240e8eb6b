"""One preemption's decision record in words, and the nodes the policy weighed (pure).

Drawn by :mod:`dashboard.shared.decision_view` from the records of :func:`dashboard.shared.data.decision_records`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from simcore import fmt


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


def _why(record: Mapping[str, Any]) -> str:
    """Why the chosen node won: the first entry of the policy's key where it beat the runner-up."""
    cands = record["candidates"]
    if len(cands) < 2:
        return "the only node where preempting made room"
    best, other = cands[0], cands[1]
    for name, better in record["key"]:
        a, b = best[name], other[name]
        if a != b:
            if better == "drawn":
                return f"a random draw ({a:g} against {b:g} for node {other['node']})"
            side = "lower" if better == "min" else "higher"
            return f"its {name.replace('_', ' ')} is {side}: {a:g} against {b:g} for node {other['node']}"
    return f"a tie on every value with node {other['node']}, broken by node order"


def decision_words(
    record: Mapping[str, Any],
    te_gpu: float,
    lost: float,
    other: str,
    other_record: Mapping[str, Any] | None,
) -> list[str]:
    """The decision in sentences: what the TE job needed, what was taken and why, what ``other``
    took for the same TE job in its own run (``other_record``: its record, None if it never asked)."""
    te, policy = record["te_job"], record["policy"]
    lines = [
        f"TE job {te} needed {_plural(te_gpu, 'GPU')} and fitted on no node at {fmt.clock(record['time'])}.",
        f"{policy} took node {record['node']}: {_plural(len(record['victims']), 'victim')} "
        f"({_jobs(record['victims'])}), {fmt.duration(lost)} of work lost; chosen because {_why(record)}.",
    ]
    if other_record is None:
        lines.append(f"{other}, run on the same jobs, never had to preempt for TE job {te}: it found room in time.")
    elif other_record["victims"]:
        when = (
            "at the same instant"
            if other_record["time"] == record["time"]
            else f"at {fmt.clock(other_record['time'])} (the two runs had diverged)"
        )
        lines.append(
            f"{other} would have taken {_jobs(other_record['victims'])} on node {other_record['node']}: "
            f"from {other}'s own run on the same jobs, where TE job {te} asked for room {when}."
        )
    else:
        lines.append(f"{other}, run on the same jobs, took no victim for TE job {te}: {other_record['reason']}.")
    return lines


def candidate_table(record: Mapping[str, Any]) -> pd.DataFrame:
    """The nodes the policy weighed, best first: node, victims and the values of its ordering key."""
    names = [name for name, _ in record["key"]]
    rows = [
        {"node": c["node"], "would take": ", ".join(c["job_id"]), **{n: c[n] for n in names}, "chosen": c["chosen"]}
        for c in record["candidates"]
    ]
    return pd.DataFrame(rows, columns=["node", "would take", *names, "chosen"])


def accounting_words(decisions: pd.DataFrame, record: Mapping[str, Any]) -> str | None:
    """The decision's accounting in one sentence (known at the end of the run), from its run's
    decision table (:func:`simcore.accounting.decision_table`); None when the table has no such row."""
    mine = decisions[(decisions["time"] == record["time"]) & (decisions["te_job"] == record["te_job"])]
    if mine.empty:
        return None
    row = mine.iloc[0]
    cost = ", ".join(f"{fmt.number(row[f'gpu_seconds_{c}'])} {c}" for c in ("lost", "grace", "restore"))
    wasted = (
        "Wasted: the TE job started on another node before its victims released."
        if row["wasted"]
        else "Not wasted: the TE job started where it was nominated."
    )
    return f"This decision freed {fmt.number(row['excess_gpus'])} GPUs more than the TE job lacked; BE GPU-seconds: {cost}. {wasted}"
