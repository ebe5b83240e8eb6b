"""The ``teams`` preset (issue 34; docs/workloads.md): three teams with different quotas and daily
arrival peaks, TE and BE in each, whose queues come with the cluster; borrowing and reclaim every day."""

from __future__ import annotations

import numpy as np
import pytest

from simcore.analysis import queue_metrics
from simcore.cli import main
from simcore.core.errors import UserError
from simcore.core.model import SimConfig
from simcore.core.queues import job_queue_names
from simcore.engine import simulate
from simcore.workload import load_workload
from simcore.workload.presets import generate
from simcore.workload.queues import load_queues

DAY = 86400.0


@pytest.fixture(scope="module")
def teams():
    return generate("teams", 0, {"jobs": 3000})


def test_three_teams_with_different_quotas_each_with_te_and_be(teams):
    spec = teams.cluster.queues
    assert spec is not None and spec.names == ["vision", "nlp", "research"]
    assert len({q.gpu for q in spec.queues}) == 3 and sum(q.gpu for q in spec.queues) == 128
    names = job_queue_names(teams.table)
    for name in spec.names:
        mine = names == name
        assert teams.table.is_te[mine].any() and (~teams.table.is_te[mine]).any(), name


def test_each_team_arrives_mostly_in_its_own_hours(teams):
    # vision is flat; nlp's rate is 4 x higher 9:00-18:00, research's 18:00-6:00
    names = job_queue_names(teams.table)
    hour = (teams.table.submit_time % DAY) // 3600
    day = (hour >= 9) & (hour < 18)
    night = (hour >= 18) | (hour < 6)
    assert np.mean(day[names == "nlp"]) > 0.6 > np.mean(day[names == "vision"])
    assert np.mean(night[names == "research"]) > 0.7 > np.mean(night[names == "vision"])


@pytest.mark.parametrize("policy", ["k8s", "fitgpp"])
def test_borrowing_and_reclaim_happen_every_day(teams, policy):
    # every day with arrivals but the first (the cluster starts empty: nobody needs to reclaim yet)
    r = simulate(teams.table, teams.cluster, SimConfig(policy=policy))
    days = set(range(1, int(teams.table.submit_time.max() // DAY) + 1))
    reclaims = {int(rec["time"] // DAY) for rec in queue_metrics.ledger_records(r) if rec["cause"] == "reclaim"}
    assert days <= reclaims
    use = queue_metrics.usage_over_time(r)
    borrowing = {int(t // DAY) for t in use.loc[use["borrowed"] > 0, "time"]}
    assert days | {0} <= borrowing


def test_the_same_seed_gives_the_same_workload(teams):
    again = generate("teams", 0, {"jobs": 3000})
    assert np.array_equal(again.table.submit_time, teams.table.submit_time)
    assert again.table.extra["queue"].tolist() == teams.table.extra["queue"].tolist()
    assert again.cluster == teams.cluster


def test_team_lists_must_match_and_let_every_job_start():
    with pytest.raises(UserError, match="parameter borrow_limit: 2 values for 3 teams"):
        generate("teams", 0, {"borrow_limit": "8,8"})
    with pytest.raises(UserError, match="team nlp may hold 6 GPUs .* less than a 8-GPU BE job"):
        generate("teams", 0, {"quota_gpu": "56,4,32", "borrow_limit": "72,2,96"})


def test_generate_writes_the_workload_and_its_queues_file(tmp_path, capsys):
    out = tmp_path / "t.csv"
    assert main(["generate", "--preset", "teams", "--seed", "3", "--out", str(out), "--set", "jobs=300"]) == 0
    queues = tmp_path / "t.queues.csv"
    assert f"--queues {queues}" in capsys.readouterr().out
    gen = generate("teams", 3, {"jobs": 300})
    assert load_queues(queues).spec == gen.cluster.queues
    assert job_queue_names(load_workload(out).table).tolist() == job_queue_names(gen.table).tolist()
    assert main(["run", str(out), "--policy", "fitgpp", "--queues", str(queues)]) == 0
    with pytest.raises(SystemExit):  # a preset without queues has none to write
        main(["generate", "--preset", "demo", "--out", str(tmp_path / "d.csv"), "--queues-out", "q.csv", "--bad"])
    assert main(["generate", "--preset", "demo", "--out", str(tmp_path / "d.csv"), "--queues-out", "q.csv"]) == 2
