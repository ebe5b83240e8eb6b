"""Teaching the policy (issue 19): the deciding key value of a decision record, the one glossary
of key values, and the same-state counterfactual (another policy's victim search on the very
view the chosen policy saw), checked by hand and against views captured from the engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import events_of, job, prop_cluster, te
from helpers.decisions import first, full_cluster, record_run
from helpers.paths import ROOT

import simcore.engine.loop as loop
from dashboard.shared import decision_text, gantt_views
from dashboard.shared.scenario import Scenario
from simcore.core.model import JobTable, SimConfig
from simcore.engine import simulate
from simcore.policies import POLICIES
from simcore.policies.glossary import TERMS, TIE_BREAK, markdown_table
from simcore.workload import load_cluster
from simcore.workload.presets import generate
from simcore.workload.samples import SAMPLES


@pytest.mark.parametrize(
    ("policy", "t_gpu", "deciding"),
    [
        ("fitgpp", 2, "slack"),  # both 1 victim; slack 0 on n1 against 0.75 on n0
        ("fitgpp", 4, "lost_work"),  # both 2 victims, slack 0; lost 18 on n1 against 20 on n0
        ("k8s", 2, "earliest_victim_start"),  # 1 victim each; 4 started at 2, 1 at 0
        ("lrtp", 2, "min_remaining"),  # 1 victim each; 90 s left on n0 against 70 s on n1
    ],
)
def test_deciding_by_hand(policy: str, t_gpu: float, deciding: str) -> None:
    assert first(policy, t_gpu=t_gpu)["deciding"] == deciding


def test_deciding_is_null_with_one_option_or_no_victims() -> None:
    one = record_run([*full_cluster(2)[:2], full_cluster(2)[4]], prop_cluster(4), policy="fitgpp").decisions
    assert [(d["victims"], d["deciding"]) for d in one] == [(["1"], None)]  # only 1 (3 GPUs) makes room
    capped = record_run(full_cluster(2), prop_cluster(4, 4), policy="fitgpp", P=0).decisions
    assert capped and all(d["deciding"] is None and not d["victims"] for d in capped)


def test_a_full_tie_is_decided_by_the_tie_break() -> None:
    # two identical BE jobs on two identical nodes: every named value ties, job order picks job A
    jobs = [job("A", 0, 100, 2), job("B", 0, 100, 2), te("T", 10, 5, 2)]
    d = record_run(jobs, prop_cluster(2, 2), policy="fitgpp").decisions[0]
    assert d["victims"] == ["A"] and d["deciding"] == TIE_BREAK


def test_same_state_by_hand() -> None:
    # on the first decision's view lrtp takes 1 on n0 (test_lrtp_by_hand), fitgpp 4 on n1
    table, config = JobTable.from_jobs(full_cluster(2)), SimConfig(policy="fitgpp", checkpoint="none")
    d = simulate(table, prop_cluster(4, 4), config, same_state="lrtp").decisions[0]
    assert (d["node"], d["victims"]) == ("n1", ["4"])
    assert d["same_state"] == {"lrtp": first("lrtp")}  # nothing was preempted before: the two runs share this state


def test_same_state_equals_the_other_policy_on_captured_views(monkeypatch: pytest.MonkeyPatch) -> None:
    """Capture every view the engine passes to fitgpp and ask k8s on it, independently of the records."""
    seen: list[tuple[float, str | None, list[int]]] = []

    class Capturing:
        def __init__(self, inner):
            self.inner = inner

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def explain(self, view):
            # the engine's arrays move on after this call: ask k8s now, with a copy of the generator
            pre = POLICIES["k8s"].victims(view)
            seen.append(
                (
                    view.now,
                    None if pre is None else pre.node,
                    [] if pre is None else sorted(int(view.candidates.job[p]) for p in pre.victims),
                )
            )
            return self.inner.explain(view)

    real = loop.get_policy
    monkeypatch.setattr(
        loop,
        "get_policy",
        lambda name, config: Capturing(real(name, config)) if name == "fitgpp" else real(name, config),
    )
    gen = generate("demo", 1, {})
    r = simulate(gen.table, gen.cluster, SimConfig(policy="fitgpp"), same_state="k8s")
    ids, nodes = gen.table.job_id.astype(str).tolist(), list(gen.cluster.names)
    assert len(seen) == len(r.decisions) > 50
    differ = 0
    for (now, node, victims), d in zip(seen, r.decisions, strict=True):
        alt = d["same_state"]["k8s"]
        assert alt["time"] == now == d["time"] and alt["policy"] == "k8s" and alt["te_job"] == d["te_job"]
        assert alt["node"] == (None if node is None else nodes[node])
        assert sorted(alt["victims"]) == sorted(ids[j] for j in victims)
        differ += bool(d["victims"]) and sorted(alt["victims"]) != sorted(d["victims"])
    assert differ >= 5  # real disagreements were checked, not only agreements


@pytest.mark.parametrize(
    ("policy", "others"), [("fitgpp", ("random",)), ("random", ("fitgpp", "k8s")), ("k8s", ("fitdelay", "lrtp"))]
)
def test_asking_on_the_same_state_changes_nothing(policy: str, others: tuple[str, ...]) -> None:
    gen = generate("demo", 1, {"jobs": 200})
    config = SimConfig(policy=policy, seed=3)
    asked = simulate(gen.table, gen.cluster, config, same_state=others)
    plain = simulate(gen.table, gen.cluster, config, record_decisions=True)
    assert events_of(asked) == events_of(plain)
    # the records' own fields are the plain run's, byte for byte; the asked ones come beside them
    assert [{k: v for k, v in d.items() if k not in ("same_state", "sets")} for d in asked.decisions] == list(
        plain.decisions
    )
    assert all(list(d["same_state"]) == list(others) for d in asked.decisions)
    assert all(d["same_state"][o]["policy"] == o for d in asked.decisions for o in others)


def test_every_key_value_has_a_meaning() -> None:
    names = {name for p in POLICIES.values() for name, _ in p.key}
    assert names | {TIE_BREAK} == set(TERMS)
    assert {t.unit for t in TERMS.values()} <= {"count", "seconds", "clock", "norm", "draw"}


def test_docs_hold_the_glossary() -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "policies.md").read_text(encoding="utf-8")
    assert markdown_table() in text, "docs/policies.md: paste simcore.policies.glossary.markdown_table()"


def test_the_default_sample_shows_fitgpp_differ_from_k8s_at_once() -> None:
    """The Explore page opens on a sample where, stepping through fitgpp's first preemptions on the
    Gantt, a visitor meets decisions where k8s would take other victims on the same state."""
    scenario = Scenario()
    assert "fitgpp" in scenario.policies and "k8s" in scenario.policies
    # the sample file is this draw, byte for byte (tests/test_presets.py checks the committed bytes)
    preset, seed, overrides = next((p, s, o) for f, p, s, o in SAMPLES if f == f"{scenario.sample}.csv")
    gen = generate(preset, seed, overrides)
    cluster = load_cluster(ROOT / "sample_workloads" / f"{preset}_cluster.yaml").cluster  # as the dashboard loads it
    r = simulate(gen.table, cluster, scenario.config("fitgpp"), same_state="k8s")
    steps = gantt_views.preemption_list(r.events_frame).head(5)
    differ = 0
    for _, step in steps.iterrows():
        d = decision_text.decision_for(r.decisions, step)
        assert d is not None
        differ += sorted(d["same_state"]["k8s"]["victims"]) != sorted(d["victims"])
    assert differ >= 2
