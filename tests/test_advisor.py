"""The checkpoint advisor (:mod:`simcore.experiments.advisor`, ``simcore checkpoint-advice``) against cases whose
optimum is known in closed form.

The case: one BE job of 3000 s alone on one node that fails after every 1000 s up (down 100 s),
restore 0, checkpoint_cost k = 10. With interval c a checkpoint counts once its pause ends, and the
failure at the end of an up period keeps only the checkpoints whose pauses ended strictly before
it: floor(1000 / (c + k)) of them when (c + k) does not divide 1000. So each up period keeps
c x floor(1000 / (c + k)) seconds of work, and the job ends in the period where the rest fits.
"""

from __future__ import annotations

import json
import math

import pytest
from helpers import job, prop_cluster

from simcore.cli import main
from simcore.core.downtime import NodeEvents
from simcore.core.model import JobTable, SimConfig
from simcore.experiments import advisor

UP, DOWN, K = 1000.0, 100.0, 10.0
CLUSTER = prop_cluster(1).with_node_events(
    NodeEvents.of([("n0", UP + i * (UP + DOWN), (i + 1) * (UP + DOWN), "failure") for i in range(10)])
)
JOB = JobTable.from_jobs([job("A", 0, 3000, 1)])
CONFIG = SimConfig(policy="fifo", restore=0, checkpoint_cost=K)

# interval -> (finish, failures, run time), derived in the module docstring's terms:
#  95: keeps 9 x 95 = 855 per period; after 3 periods 2565; then 435 s of work and 4 pauses (2660, 2755,
#      2850, 2945): 3300 + 475 = 3775, run time 3 x 1000 + 475
#  152: 6 x 152 = 912; 2736; then 264 s and 1 pause (2888): 3300 + 274 = 3574
#  195: 4 x 195 = 780; 2340; then 660 s and 3 pauses: 3300 + 690 = 3990
#  245: 3 x 245 = 735; 2205; then 795 s and 3 pauses: 3300 + 825 = 4125
#  320: 3 x 320 = 960; 2880; then 120 s, no pause (3200 > 3000): 3300 + 120 = 3420
#  495: 1 x 495 per period (the second pause begins at the failure); 2475 after 5; then 525 s and one
#       pause (2970): 5 x 1100 + 535 = 6035
EXPECTED = {
    95.0: (3775.0, 3, 3475.0),
    152.0: (3574.0, 3, 3274.0),
    195.0: (3990.0, 3, 3690.0),
    245.0: (4125.0, 3, 3825.0),
    320.0: (3420.0, 3, 3120.0),
    495.0: (6035.0, 5, 5535.0),
}


def _advice(intervals):
    return advisor.advise([(JOB, CLUSTER, 0)], CONFIG, intervals)


def test_each_interval_gives_the_closed_form_finish_and_interruptions():
    a = _advice(list(EXPECTED))
    for row in a.table.itertuples(index=False):
        finish, failures, run = EXPECTED[row.interval]
        assert row.BE_slowdown_p50 == pytest.approx(finish / 3000)
        assert (row.interruptions, row.mean_time_between_interruptions) == (failures, pytest.approx(run / failures))


def test_regular_failures_make_the_best_interval_differ_from_young_daly_and_say_why():
    # the best of 95 .. 495 is 320 (3420 s); M pooled over every run is (3475 + 3690 + 3825 + 3120 + 5535)
    # / (3 + 3 + 3 + 3 + 5) s, and Young/Daly sqrt(2 k M) ~ 152 s, nearest to 195: they differ, and the
    # interruptions are regular (every run time between failures is 1000 s: coefficient of variation 0)
    a = _advice([95, 195, 245, 320, 495])
    m = (3475 + 3690 + 3825 + 3120 + 5535) / 17
    assert a.best_interval == 320.0
    assert a.mean_time_between_interruptions == pytest.approx(m)
    assert a.young_daly == pytest.approx(math.sqrt(2 * K * m))
    assert not a.agree and any("regular, not memoryless" in why for why in a.reasons)


def test_they_agree_when_the_best_interval_is_the_one_nearest_to_young_daly():
    # of 95, 152, 495 the best is 152 (3574 s); M = (3475 + 3274 + 5535) / 11, Young/Daly ~ 149: nearest 152
    a = _advice([95, 152, 495])
    m = (3475 + 3274 + 5535) / 11
    assert (a.best_interval, a.agree, a.reasons) == (152.0, True, ())
    assert a.young_daly == pytest.approx(math.sqrt(2 * K * m))


def test_young_daly_and_its_edges():
    assert advisor.young_daly(10, 1000) == pytest.approx(math.sqrt(20_000))
    assert advisor.young_daly(10, math.inf) == math.inf and advisor.young_daly(0, 500) == 0.0
    # no interruption at all: the longest interval is best, Young/Daly has nothing to say
    a = advisor.advise([(JOB, prop_cluster(1), 0)], CONFIG, [100, 1000])
    assert a.best_interval == 1000.0 and a.young_daly == math.inf and "no BE job was interrupted" in a.reasons[0]


def test_the_command_prints_the_table_and_writes_the_json(tmp_path, capsys):
    wl, ev, out = tmp_path / "wl.csv", tmp_path / "down.csv", tmp_path / "advice.json"
    wl.write_text("job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\nA,0,3000,1,1,1,BE\n")
    ev.write_text(
        "node,start,end,kind\n" + "".join(f"n0,{1000 + 1100 * i},{1100 + 1100 * i},failure\n" for i in range(10))
    )
    cluster = ["--nodes", "1", "--node-cpu", "1", "--node-mem-gb", "1", "--node-gpu", "1", "--node-events", str(ev)]
    knobs = ["--set", "restore=0", "--set", "checkpoint_cost=10"]
    rc = main(["checkpoint-advice", str(wl), *cluster, *knobs, "--intervals", "95,195,320", "--json", str(out)])
    text = capsys.readouterr().out
    assert rc == 0 and "best interval found: 320 s" in text and "Young/Daly: sqrt(2 x 10 x M)" in text
    data = json.loads(out.read_text())
    assert [r["interval"] for r in data["intervals"]] == [95.0, 195.0, 320.0]
    assert data["best_interval"] == 320.0 and data["young_daly"] == pytest.approx(
        math.sqrt(20 * (3475 + 3690 + 3120) / 9)
    )
    assert set(data["intervals"][0]) == set(advisor.COLUMNS)


def test_the_command_runs_every_seed_of_a_preset(tmp_path, capsys):
    out = tmp_path / "advice.json"
    args = ["checkpoint-advice", "demo", "--policy", "fitgpp", "--seeds", "2", "--set", "jobs=40"]
    rc = main(
        [*args, "--set", "mtbf=20000", "--set", "checkpoint_cost=30", "--intervals", "600,3600", "--json", str(out)]
    )
    assert rc == 0
    data = json.loads(out.read_text())
    assert data["runs"] == 4 and data["policy"] == "fitgpp" and len(data["intervals"]) == 2
    assert main(["checkpoint-advice", "demo", "--nodes", "3"]) == 2
    assert "brings its own cluster" in capsys.readouterr().err
