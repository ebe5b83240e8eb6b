"""A run with its decision records, and the hand-made full cluster the decision tests ask about:
its first decision under a policy; the default Explore scenario's first preemptions and the check that
a decision's words contrast it with another policy's choice on the same state."""

from __future__ import annotations

import re

from simcore.core.model import JobTable, SimConfig
from simcore.engine import simulate

from .logs import job, prop_cluster, te


def record_run(jobs, cluster, **knobs):
    table = jobs if isinstance(jobs, JobTable) else JobTable.from_jobs(jobs)
    config = knobs.pop("config", None) or SimConfig(**knobs)
    return simulate(table, cluster, config, record_decisions=True)


# fit: 1 (3 GPUs) and 2 (1) fill n0 at t=0; 3 (2) goes to n1 at 0 and 4 (2) fills it at 2.
# A TE job of T_GPU GPUs comes at t=10. Checkpoint `none`: the work lost now is the progress.

DUR = {"1": 100, "2": 50, "3": 80, "4": 30}


def full_cluster(t_gpu: float) -> list:
    return [
        job("1", 0, DUR["1"], 3),
        job("2", 0, DUR["2"], 1),
        job("3", 0, DUR["3"], 2),
        job("4", 2, DUR["4"], 2),
        te("T", 10, 5, t_gpu),
    ]


def first(policy: str, t_gpu: float = 2, **knobs) -> dict:
    r = record_run(full_cluster(t_gpu), prop_cluster(4, 4), policy=policy, checkpoint="none", **knobs)
    assert r.decisions[0]["time"] == 10 and r.decisions[0]["te_job"] == "T"
    return r.decisions[0]


def default_sample_steps(n: int) -> list[dict]:
    """The decision records of fitgpp's first `n` preemptions, as the Gantt steps through them, on the
    Explore page's default scenario: computed here from the engine (fitgpp's run with k8s, lrtp asked
    on every view, as the page asks them), independently of the page."""
    from dashboard.shared import gantt_views
    from dashboard.shared.decision_text import decision_for
    from dashboard.shared.scenario import Scenario
    from simcore.workload import load_cluster
    from simcore.workload.presets import generate
    from simcore.workload.samples import SAMPLES

    from .paths import ROOT

    scenario = Scenario()
    preset, seed, overrides = next((p, s, o) for f, p, s, o in SAMPLES if f == f"{scenario.sample}.csv")
    gen = generate(preset, seed, overrides)
    cluster = load_cluster(ROOT / "sample_workloads" / f"{preset}_cluster.yaml").cluster  # as the dashboard loads it
    run = simulate(gen.table, cluster, scenario.config("fitgpp"), same_state=("k8s", "lrtp"))
    steps = gantt_views.preemption_list(run.events_frame).head(n)
    records = [decision_for(run.decisions, chosen) for _, chosen in steps.iterrows()]
    assert all(r is not None for r in records)
    return records  # type: ignore[return-value]


#: "fitgpp did not take it: [tied on ...; ]<key value> <its value> against <theirs> (...<which way> is better...)"
CONTRAST = (
    r"(?P<policy>\w+) did not take it: (?:tied on [^;]*; )?(?P<key>{keys}) (?P<mine>.+?) against (?P<theirs>.+?) "
    r"\((?:[^()]*; )?(?:fewer|less|lower|earlier|more|higher|later) is better"
)


def assert_contrastive(text: str, record: dict, other: str = "k8s") -> None:
    """`text` (a decision's words) says what `other` would take on the record's state and, when that is
    another set, the key value that separated it from the chosen one with both values (different, in
    human units: an instant as a clock time); "the same" only when it is the same set."""
    alt = record["same_state"][other]
    taken = ("BE job " if len(alt["victims"]) == 1 else "BE jobs ") + ", ".join(alt["victims"])
    same = sorted(alt["victims"]) == sorted(record["victims"]) and alt["node"] == record["node"]
    line = next(x for x in text.splitlines() if x.startswith(f"On the same state, {other} would take"))
    if same:
        assert line.startswith(f"On the same state, {other} would take the same: {taken} on node {alt['node']}")
        return
    assert line.startswith(f"On the same state, {other} would take {taken} on node {alt['node']}"), line
    assert "would take the same" not in line
    labels = "|".join(re.escape(n.replace("_", " ")) for n, _ in record["key"])
    found = re.search(CONTRAST.format(keys=labels), line)
    assert found and found["policy"] == record["policy"], line
    assert found["mine"] != found["theirs"]
    if found["key"].endswith("start"):  # an instant of the run, never raw seconds
        assert found["mine"].startswith("day ") and found["theirs"].startswith("day "), line
