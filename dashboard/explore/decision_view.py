"""The decision view on Explore: why the chosen preemption took its victims, drawn thinly.

The words, the candidate table and the glossary are built by :mod:`dashboard.shared.decision_text` from
the decision records (:func:`dashboard.runs.data.decision_records`). The choice is told by contrast with
every set the policy weighed and with what k8s, lrtp, fitgpp and the scenario's other preemptive
policies would take on this very instant's view (the chosen policy's run recorded again with
``same_state``, :func:`simcore.policies.alternatives.same_state_for`); *Compared with* adds that policy's record for
the same TE job in its own run, a second, labelled view (the runs may have diverged by then, and the
sentence says so). When a gang is among the chosen set, the runner-up and the other policies'
choices, a second table sets their costs side by side. Job ids and node names may come from an
upload: plain text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from dashboard.runs import data, worker
from dashboard.shared import decision_text, keys, notices, state, tables
from dashboard.shared.scenario import Scenario
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec
from simcore.policies import POLICIES
from simcore.policies.alternatives import same_state_for

PREFERRED_OTHER = ("k8s", "fitgpp", "fitdelay", "lrtp", "random")


def _te_gpu(workload: data.Workload, te_job: str) -> float:
    at = workload.table.job_id.astype(str) == te_job
    return float(workload.table.request[at, 2][0]) if at.any() else float("nan")


def _lost(run: Any, chosen: Mapping[str, Any]) -> float:
    """Work the chosen preemption threw away (DESIGN.md section 2): the run's record."""
    lost = run.lost
    at = lost[(lost["job_id"] == chosen["job_id"]) & (lost["time"] == chosen["time"])]
    return float(at["lost"].iloc[0]) if len(at) else 0.0


def show(
    workload: data.Workload,
    cluster: ClusterSpec,
    scenario: Scenario,
    results: Mapping[str, Any],
    policy: str,
    chosen: Mapping[str, Any],
) -> None:
    """The chosen preemption's decision in words, the other policy's choice and the candidate table."""
    st.markdown("**Why this victim?**")
    others = [p for p in scenario.policies if p != policy and POLICIES[p].preemptive]
    other = None
    if others:
        ordered = sorted(
            others, key=lambda p: PREFERRED_OTHER.index(p) if p in PREFERRED_OTHER else len(PREFERRED_OTHER)
        )
        state.keep_choice(st.session_state, keys.DECISION_OTHER, others, ordered[0])
        other = st.selectbox(
            "Compared with",
            others,
            key=keys.DECISION_OTHER.name,
            help="its record for the same TE job in its own run (a second view); what it would take on this "
            "very state is told below, with k8s's, lrtp's and fitgpp's",
        )
    preemptive = [p for p in scenario.policies if POLICIES[p].preemptive]
    runs = (
        (scenario.config(policy), same_state_for(policy, preemptive)),
        *(((scenario.config(other), same_state_for(other, preemptive)),) if other else ()),
    )
    try:
        with notices.progress("Recording the decisions...") as heartbeat:
            records = data.decision_records(workload, cluster, runs, heartbeat, beside=True)
    except UserError as exc:  # a timed-out or failed worker
        notices.error(exc)
        return
    except worker.Cancelled:
        st.stop()
    record = decision_text.decision_for(records[0], chosen)
    if record is None:
        st.info("No decision record matches this preemption.", icon=":material/info:")
        return
    other_record = decision_text.decision_of_te_job(records[1], record["te_job"]) if other else None
    lines = decision_text.decision_words(
        record,
        _te_gpu(workload, record["te_job"]),
        _lost(results[policy], chosen),
        other or "",
        other_record,
    )
    cost = decision_text.accounting_words(results[policy].decisions, record)
    st.text("\n".join([*lines, *([cost] if cost else [])]))
    tables.show(decision_text.candidate_table(record))
    st.caption(
        "Every victim set the policy weighed, best first, with the values it ranks them by, in this order "
        "(each is defined below), then the other policies' choices on this state that it did not weigh; "
        "the last columns say who takes each set on this state and what tells it apart from the chosen one."
    )
    tables.show(decision_text.glossary(record))
    costs = decision_text.option_costs(record, decision_text.job_gpus(workload.table))
    if costs:
        st.markdown("**What each choice costs** (a gang is among them)")
        st.text("\n".join(decision_text.cost_words(costs)))
        tables.show(decision_text.cost_table(costs))
        tables.show(decision_text.cost_glossary())
