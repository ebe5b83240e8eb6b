"""Why this set and not that one (issue 33): the sets a decision record holds when other policies are
asked on the same state (simcore.policies.alternatives) and the contrast read from them
(simcore.analysis.contrast), derived by hand on tiny scenarios, then checked as invariants on every
decision of demo and gang runs."""

from __future__ import annotations

import pytest
from helpers import job, prop_cluster, te
from helpers.decisions import full_cluster

from dashboard.learn import lessons
from simcore.analysis import contrast
from simcore.core.model import JobTable, SimConfig
from simcore.engine import simulate
from simcore.policies import decision
from simcore.policies.alternatives import FEWER_MAKE_ROOM, SAME_STATE, same_state_for
from simcore.policies.glossary import TERMS, better_words, label
from simcore.workload.presets import generate


def _first(jobs, cluster, policy: str, others: tuple[str, ...], **knobs) -> dict:
    table = jobs if isinstance(jobs, JobTable) else JobTable.from_jobs(jobs)
    return simulate(table, cluster, SimConfig(policy=policy, **knobs), same_state=others).decisions[0]


# The hand-made full cluster (tests/helpers/decisions.py): n0 holds 1 (3 GPUs) and 2 (1), both since 0;
# n1 holds 3 (2 GPUs, since 0) and 4 (2, since 2); TE T wants 2 GPUs at 10 s; checkpoint none, so the
# work a signal loses is the run time: 10 s for 1, 2, 3 and 8 s for 4. Every node is 4 of each unit.
# fitgpp's 1-victim sets: 4 on n1 (slack 0, 8 s lost), 3 on n1 (slack 0, 10 s) and 1 on n0 (3 GPUs
# freed, 1 of each unit left over: slack 3 x 1/4 = 0.75); 2 alone frees 1 GPU: no set.
# k8s on n1 gives back 3 (the oldest) and keeps 4 (since 2 s), on n0 gives back 2 and keeps 1 (since 0):
# 4 on n1. lrtp takes 1 on n0 (90 s left against 70 s for 4: tests/test_explain.py).
FULL = full_cluster(2)


def test_sets_hold_every_set_weighed_and_the_other_choices() -> None:
    d = _first(FULL, prop_cluster(4, 4), "fitgpp", ("k8s", "lrtp"), checkpoint="none")
    assert [(s["node"], s["job_id"], s["slack"], s["lost_work"], s["taken_by"]) for s in d["sets"]] == [
        ("n1", ["4"], 0.0, 8.0, ["fitgpp", "k8s"]),
        ("n1", ["3"], 0.0, 10.0, []),
        ("n0", ["1"], 0.75, 10.0, ["lrtp"]),
    ]
    assert all(s["weighed"] and s["excluded"] is None for s in d["sets"])
    # the per-node best sets are the record's own candidates, unchanged
    assert [(c["node"], c["job_id"]) for c in d["candidates"]] == [("n1", ["4"]), ("n0", ["1"])]


def test_the_contrast_names_the_separating_value_of_each_alternative() -> None:
    d = _first(FULL, prop_cluster(4, 4), "fitgpp", ("k8s", "lrtp"), checkpoint="none")
    norm = f"{contrast.NORM_WORDS}; lower is better"
    assert contrast.contrast_lines(d) == [
        f"Against node n0's best set (BE job 1), the runner-up: tied on victims (1); slack 0 against 0.75 ({norm}).",
        "Against BE job 3 on node n1: lost work 8 s against 10 s (less is better; the values before it tie).",
        "On the same state, k8s would take the same: BE job 4 on node n1 (earliest victim start decided).",
        "On the same state, lrtp would take BE job 1 on node n0 (min remaining decided); fitgpp did not take it: "
        f"slack 0 against 0.75 ({norm}; the values before it tie). Principle: {TERMS['slack'].principle}.",
    ]


# sample_workloads/lessons/which_victim.csv (tests/test_exercises.py derives it): k8s takes 5, 6 on node-1,
# fitgpp takes 1 on node-0. k8s's rule on node-0 gives back the oldest job, 1, and keeps 2, 3, so it never
# weighs 1 alone, though by its own key (1 victim) that set would rank first; fitgpp weighs 1-victim sets
# only (1 and 4 make room alone), so it never weighs 5, 6, which its key values at 2 victims.
VICTIM = lessons.lesson("victim")
VICTIM_JOBS, VICTIM_CLUSTER = lessons.load(VICTIM)


def test_a_set_the_rule_never_builds_is_said_so_and_the_set_it_builds_named() -> None:
    d = _first(VICTIM_JOBS, VICTIM_CLUSTER, "k8s", ("fitgpp",))
    fitgpps = next(s for s in d["sets"] if s["taken_by"] == ["fitgpp"])
    assert (fitgpps["node"], fitgpps["job_id"], fitgpps["weighed"], fitgpps["excluded"]) == (
        "node-0",
        ["1"],
        False,
        None,
    )
    assert (fitgpps["victims"], fitgpps["earliest_victim_start"]) == (1, 0.0)  # valued by k8s's own key
    assert contrast.contrast_lines(d)[-1] == (
        "On the same state, fitgpp would take BE job 1 on node node-0 (slack decided); k8s did not take it: "
        "its per-node rule does not build that set (by its key it would rank no worse): on node node-0 it weighs "
        "BE jobs 2, 3."
    )


def test_a_set_not_weighed_but_worse_by_the_key_is_told_by_the_key() -> None:
    d = _first(VICTIM_JOBS, VICTIM_CLUSTER, "fitgpp", ("k8s",))
    k8s = next(s for s in d["sets"] if s["taken_by"] == ["k8s"])
    assert (k8s["job_id"], k8s["weighed"], k8s["victims"]) == (["5", "6"], False, 2)
    assert contrast.contrast_lines(d)[-1] == (
        "On the same state, k8s would take BE jobs 5, 6 on node node-1 (earliest victim start decided); fitgpp did "
        f"not take it: victims 1 against 2 (fewer is better). Principle: {TERMS['victims'].principle}."
    )


def test_a_capped_set_is_told_by_its_cap_with_the_jobs_count() -> None:
    # two 4-GPU nodes, each full with one BE job (A since 0, B since 1). T1 (1 GPU) at 10: every value ties
    # but the earliest start, so fitgpp takes B (later); B releases at 40 (30 s grace), T1 runs until 45 and
    # B starts again at 45. At 200, T2: k8s takes B again (the latest start); fitgpp with P = 1 may not
    # (B was preempted once) and takes A.
    jobs = [job("A", 0, 1000, 4), job("B", 1, 1000, 4), te("T1", 10, 5, 1), te("T2", 200, 5, 1)]
    r = simulate(JobTable.from_jobs(jobs), prop_cluster(4, 4), SimConfig(policy="fitgpp", P=1), same_state="k8s")
    first, second = r.decisions
    assert (first["victims"], second["victims"], second["same_state"]["k8s"]["victims"]) == (["B"], ["A"], ["B"])
    capped = next(s for s in second["sets"] if s["taken_by"] == ["k8s"])
    assert (capped["weighed"], capped["excluded"], capped["past_preemptions"]) == (False, decision.CAPPED_BY_P, 1)
    assert contrast.contrast_lines(second)[-1].endswith(
        "fitgpp did not take it: its cap P keeps out jobs already preempted P times (BE job B: past preemptions 1)."
    )


def test_more_jobs_than_the_rule_takes_are_said_to_make_room_with_fewer() -> None:
    # random takes node-1's jobs in a random order with no reprieve (seed 0): 4 (2 GPUs) and 6, where
    # 4 alone makes room; fitgpp given those two jobs takes 4 alone, so it does not value the pair
    d = _first(VICTIM_JOBS, VICTIM_CLUSTER, "fitgpp", ("random",))
    drawn = next(s for s in d["sets"] if s["taken_by"] == ["random"])
    assert (drawn["job_id"], drawn["weighed"], drawn["excluded"], drawn["slack"]) == (
        ["4", "6"],
        False,
        FEWER_MAKE_ROOM,
        None,
    )
    assert contrast.contrast_lines(d)[-1].endswith("; fitgpp did not take it: fewer of its jobs make room.")


def test_same_state_for_asks_the_three_then_the_scenarios_own_never_itself() -> None:
    assert SAME_STATE == ("k8s", "lrtp", "fitgpp")
    assert same_state_for("fitgpp") == ("k8s", "lrtp")
    assert same_state_for("k8s", ["fitgpp", "fitdelay", "k8s"]) == ("lrtp", "fitgpp", "fitdelay")


# --- invariants on every decision of real runs ---------------------------------------------------------


def _directed(record: dict, entry: dict) -> tuple:
    """A set's key values, each negated when larger is better: smaller tuples are better."""
    return tuple(-entry[n] if better == "max" else entry[n] for n, better in record["key"])


RUNS = [
    ("demo", {"jobs": "300"}, policy, checkpoint)
    for policy in ("fitgpp", "k8s", "lrtp", "fitdelay")
    for checkpoint in ("on_preempt", "none")
] + [("paper-gang", {"jobs": "300"}, policy, "none") for policy in ("fitgpp", "k8s", "fitdelay")]


@pytest.mark.parametrize(("preset", "overrides", "policy", "checkpoint"), RUNS)
def test_every_decision_is_the_best_of_its_sets_and_every_difference_is_told(
    preset: str, overrides: dict, policy: str, checkpoint: str
) -> None:
    gen = generate(preset, 0, overrides)
    others = same_state_for(policy, ("fitdelay",))
    r = simulate(gen.table, gen.cluster, SimConfig(policy=policy, checkpoint=checkpoint), same_state=others)
    told = 0
    for d in (d for d in r.decisions if d["victims"]):
        sets, chosen = d["sets"], d["candidates"][0]
        assert (sets[0]["node"], sets[0]["job_id"], sets[0]["taken_by"][0]) == (
            chosen["node"],
            chosen["job_id"],
            policy,
        )
        weighed = [s for s in sets if s["weighed"]]
        assert all(_directed(d, sets[0]) <= _directed(d, s) for s in weighed)  # the choice is the best it weighed
        best = {(s["node"], tuple(s["job_id"])) for s in weighed}
        assert all((c["node"], tuple(c["job_id"])) in best for c in d["candidates"])  # each node's best is a set
        lines = contrast.contrast_lines(d)
        for other in others:
            alt = d["same_state"][other]
            if not alt["victims"]:
                continue
            assert any(other in s["taken_by"] and sorted(s["job_id"]) == sorted(alt["victims"]) for s in sets)
            line = next(x for x in lines if x.startswith(f"On the same state, {other} would take"))
            if sorted(alt["victims"]) == sorted(d["victims"]) and alt["node"] == d["node"]:
                assert f"{other} would take the same" in line
                continue
            assert "would take the same" not in line and f"{policy} did not take it: " in line
            c = contrast.compare(d, contrast.choice_of(d, other))
            if c.key is not None and c.key in dict(d["key"]):  # told by a key value: both values, which is better
                told += 1
                side = better_words(c.key, dict(d["key"])[c.key])
                assert f"{label(c.key)} " in line and " against " in line and side in line
                assert _directed(d, chosen) < _directed(d, {**c.alternatives[0].values})
            else:  # told by why not: a cap, fewer jobs, or the set its rule builds on that node
                assert c.why_not is not None and (
                    contrast.CAP_WORDS.get(c.why_not, "") in line or "per-node rule" in line
                )
    assert told > 0 or policy == "fitdelay"


def test_a_drawn_choice_says_it_was_drawn() -> None:
    gen = generate("demo", 0, {"jobs": "200"})
    r = simulate(gen.table, gen.cluster, SimConfig(policy="random"), same_state=("k8s",))
    d = next(d for d in r.decisions if d["victims"])
    n = len(d["candidates"])
    assert contrast.contrast_lines(d) == [f"random drew node {d['node']} at random among {n} feasible nodes."]
    assert contrast.in_brief(d) == f"random drew node {d['node']} at random among {n} feasible nodes"
