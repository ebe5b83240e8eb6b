"""The report's text sections as HTML fragments (pure): tables, the preemption steps and the
decision log in words. Every value written here goes through :func:`plain_html.text`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from dashboard.report.plain_html import text
from dashboard.runs.compute import Run
from dashboard.shared import decision_text, gantt_views
from simcore.core import fmt
from simcore.core.model import JobTable

#: at most this many preemption steps and decisions per policy are written out (the size cap)
MAX_ROWS = 60
#: the policies a decision is compared with, first present first (as on the Explore page)
PREFERRED_OTHER = ("k8s", "fitgpp", "fitdelay", "lrtp", "random")


def table(frame: pd.DataFrame, caption: str = "") -> str:
    """``frame`` as an HTML table; every header and cell escaped, numbers through :mod:`simcore.core.fmt`."""
    head = "".join(f"<th>{text(c)}</th>" for c in frame.columns)
    rows = []
    for record in frame.itertuples(index=False):
        cells = "".join(f"<td>{text(_cell(v))}</td>" for v in record)
        rows.append(f"<tr>{cells}</tr>")
    cap = f"<caption>{text(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _cell(value: Any) -> str:
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return f"{int(value):,}"  # a count as it is
    if isinstance(value, float | np.floating):
        return fmt.figure(float(value))  # as every table of the dashboard: 3 significant digits, 3 decimals at most
    if value is None:
        return fmt.MISSING
    return str(value)


def more_note(shown: int, total: int, what: str) -> str:
    """A line saying what the cap left out (empty when nothing was)."""
    if total <= shown:
        return ""
    return f"<p class='note'>{text(f'The first {shown} of {total} {what} are shown.')}</p>"


def preemption_steps(run: Run, limit: int = MAX_ROWS) -> str:
    """One policy's preemption signals in time order: time, victim, node, work lost, and the
    TE job whose decision signalled it; at most ``limit`` rows."""
    pre = gantt_views.preemption_list(run.events)
    total = len(pre)
    pre = pre.head(limit)
    lost_at = {(j, t): v for j, t, v in run.lost.itertuples(index=False)}
    by_victim: dict[tuple[str, float], str] = {}
    d = run.decisions
    for time, te_job, named in zip(d["time"].to_numpy(float), d["te_job"], d["victims"], strict=True):
        for victim in str(named).split(", "):
            by_victim.setdefault((victim, float(time)), str(te_job))
    rows = pd.DataFrame(
        {
            "time": [fmt.clock(t) for t in pre["time"]],
            "BE victim": pre["job_id"],
            "node": pre["node"],
            "work lost": [
                fmt.duration(lost_at.get((j, float(t)), 0.0)) for j, t in zip(pre["job_id"], pre["time"], strict=True)
            ],
            "for TE job": [by_victim.get((j, float(t)), "") for j, t in zip(pre["job_id"], pre["time"], strict=True)],
        }
    )
    return table(rows) + more_note(len(pre), total, "preemption signals")


def _te_gpu(jobs: JobTable, te_job: str) -> float:
    at = jobs.job_id.astype(str) == te_job
    return float(jobs.request[at, 2][0]) if at.any() else float("nan")


def other_policy(policy: str, preemptive: Sequence[str]) -> str | None:
    """The policy a decision of ``policy`` is compared with: another preemptive one, as on Explore."""
    others = [p for p in preemptive if p != policy]
    rank = {p: PREFERRED_OTHER.index(p) if p in PREFERRED_OTHER else len(PREFERRED_OTHER) for p in others}
    return min(others, key=lambda p: rank[p]) if others else None


def decision_log(
    policy: str,
    run: Run,
    records: Mapping[str, Sequence[Mapping[str, Any]]],
    jobs: JobTable,
    limit: int = MAX_ROWS,
) -> str:
    """The decisions that took victims, in words (:mod:`dashboard.shared.decision_text`), each told by
    contrast with its alternatives (the records ask the other policies on the same state), with the other
    policy's choice for the same TE job in its own run and its accounting; at most ``limit``."""
    mine = [r for r in records[policy] if r["victims"]]
    shown = mine[:limit]
    other = other_policy(policy, list(records))
    lost = run.lost
    items = []
    for record in shown:
        gone = lost[(lost["time"] == record["time"]) & lost["job_id"].isin(record["victims"])]["lost"].sum()
        other_record = decision_text.decision_of_te_job(records[other], record["te_job"]) if other else None
        lines = decision_text.decision_words(
            record, _te_gpu(jobs, record["te_job"]), float(gone), other or "", other_record
        )
        cost = decision_text.accounting_words(run.decisions, record)
        body = "<br>".join(text(line) for line in [*lines, *([cost] if cost else [])])
        items.append(f"<li>{body}</li>")
    if not mine:
        return f"<p>{text(f'{policy} took no victims in this run.')}</p>"
    return f"<ol>{''.join(items)}</ol>" + more_note(len(shown), len(mine), "decisions that took victims")
