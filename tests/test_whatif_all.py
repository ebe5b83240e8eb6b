"""simcore.analysis.whatif.all_waits: one run watching every job gives each job exactly the waits that a
run watching that job alone gives (the same observer and reason rules, restricted or not)."""

import pytest
from helpers import job, prop_cluster, te

from simcore.analysis.whatif import Wait, all_waits, blocking_reasons, waits_run, watched_run
from simcore.core.model import JobTable, SimConfig
from simcore.engine import simulate
from simcore.workload import presets

POLICIES = ["fifo", "priority", "k8s", "lrtp", "random", "fitgpp", "fitdelay"]


def _small(preset: str, jobs: int):
    gen = presets.generate(preset, 3, {"jobs": jobs})
    return gen.table, gen.cluster


@pytest.mark.parametrize(
    ("preset", "policy", "knobs"),
    [("demo", p, {}) for p in POLICIES]
    + [
        ("demo", "fitgpp", {"backfill": "none", "grace": 0}),
        ("demo", "fifo", {"backfill": "none"}),
        ("demo", "fitgpp", {"min_runtime": 600, "P": 1}),
        ("paper-gang", "fitgpp", {}),
        ("paper-gang", "fifo", {"backfill": "none"}),
    ],
)
def test_every_job_gets_the_waits_of_its_own_watched_run(preset, policy, knobs):
    table, cluster = _small(preset, 40)
    config = SimConfig(policy=policy, **knobs)
    every = all_waits(table, cluster, config)
    ids = [str(x) for x in simulate(table, cluster, config).jobs.job_id]
    assert list(every) == ids  # every simulated job, in the run's order
    assert sum(len(w) for w in every.values()) > 0  # the scenario has waits to compare
    for job_id in ids:
        assert every[job_id] == blocking_reasons(table, cluster, config, job_id), job_id


def test_the_watched_run_is_the_plain_run_and_a_subset_restricts_the_whole():
    table, cluster = _small("paper-gang", 40)
    config = SimConfig(policy="fitgpp")
    plain = simulate(table, cluster, config)
    result, every = waits_run(table, cluster, config)
    assert result.events_frame.equals(plain.events_frame) and result.jobs_frame.equals(plain.jobs_frame)
    some = [str(x) for x in plain.jobs.job_id[::7]]
    _, part = waits_run(table, cluster, config, some)
    assert part == {j: every[j] for j in some}
    assert watched_run(table, cluster, config, some[0])[1] == every[some[0]]


def test_hand_made_scenario_every_job_at_once():
    # fitgpp (the scenario of test_blocking's reserved_for_other). A (6) runs from 0; TE T (4, at 100)
    # signals A and waits for its grace until 130; C (2, at 110) fits in the 2 free GPUs, reserved for
    # T until 130. At 130 T and C start and A, released, needs 6 of the 2 left: no room until T ends at 180.
    jobs = [job("A", 0, 1000, 6), te("T", 100, 50, 4), job("C", 110, 10, 2)]
    every = all_waits(JobTable.from_jobs(jobs), prop_cluster(8), SimConfig(policy="fitgpp"))
    assert {j: [(w.start, w.end, w.reason, w.blocker) for w in waits] for j, waits in every.items()} == {
        "A": [(130, 180, "no_room", None)],
        "T": [(100, 130, "waiting_for_grace", "A")],
        "C": [(110, 130, "reserved_for_other", "T")],
    }
    assert every["T"][0] == Wait(
        100, 130, "waiting_for_grace", "its victims (A) are checkpointing in their grace period", "A"
    )
