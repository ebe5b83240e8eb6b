"""The model: knob parsing and validation, cluster naming, job tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from simcore.core.model import KNOB_HELP, ClusterSpec, JobTable, SimConfig


def test_defaults_match_design_table():
    c = SimConfig()
    assert (c.grace, c.checkpoint, c.checkpoint_interval, c.restore) == (30.0, "on_preempt", 1800.0, 60.0)
    assert (c.backfill, c.placement, c.P, c.s, c.tau, c.seed) == ("greedy", "best_fit", 2, math.inf, 0.0, 0)
    assert set(KNOB_HELP) == set(c.knobs())


def test_with_knobs_parses_strings():
    c = SimConfig().with_knobs({"P": "1", "s": "4", "grace": "0", "checkpoint": "periodic", "seed": "7"})
    assert (c.P, c.s, c.grace, c.checkpoint, c.seed) == (1, 4.0, 0.0, "periodic", 7)
    assert SimConfig().with_knobs({"s": "inf"}).knobs()["s"] == "inf"


@pytest.mark.parametrize(
    "knobs, words",
    [
        ({"P": "1.5"}, "knob P: '1.5' is not a whole number"),
        ({"grace": "abc"}, "knob grace: 'abc' is not a number"),
        ({"grace": "-1"}, "knob grace: must be a finite number >= 0"),
        ({"checkpoint": "sometimes"}, "knob checkpoint: must be one of on_preempt, periodic, none"),
        ({"placement": "random"}, "knob placement: must be one of best_fit, first_fit, worst_fit"),
        ({"s": "0"}, "knob s: must be a number > 0"),
        ({"nope": "1"}, "unknown knob 'nope'"),
        ({"policy": "fifo"}, "unknown knob 'policy'"),
    ],
)
def test_bad_knobs_say_which_and_why(knobs, words):
    with pytest.raises(ValueError) as e:
        SimConfig().with_knobs(knobs)
    assert words in str(e.value)


def test_pool_and_uniform_node_names():
    spec = ClusterSpec.from_pools(
        [{"count": 2, "cpu": 8, "mem_gb": 32, "gpu": 1, "name": "a"}, {"count": 1, "cpu": 4, "mem_gb": 16, "gpu": 0}]
    )
    assert spec.names == ["a-0", "a-1", "pool1-0"]
    assert spec.capacity_matrix().tolist() == [[8, 32, 1], [8, 32, 1], [4, 16, 0]]
    assert ClusterSpec.uniform(3, 1, 1, 1).names == ["n0", "n1", "n2"]
    with pytest.raises(ValueError):
        ClusterSpec(())


def test_job_table_frame_round_trip_keeps_class_case_insensitive():
    df = pd.DataFrame(
        {
            "job_id": [1, 2],
            "submit_time": [0, 5],
            "duration": [10, 20],
            "cpu": [1, 2],
            "mem_gb": [3, 4],
            "gpu": [0.5, 1],
            "job_class": ["te", "Be"],
            "user": ["u", "v"],
        }
    )
    t = JobTable.from_frame(df)
    assert t.is_te.tolist() == [True, False]
    assert t.request.tolist() == [[1, 3, 0.5], [2, 4, 1]]
    back = t.to_frame()
    assert back["job_class"].tolist() == ["TE", "BE"] and back["user"].tolist() == ["u", "v"]
    assert np.array_equal(back["gpu"].to_numpy(), df["gpu"].to_numpy())


def test_job_table_subset_keeps_every_column_of_the_rows_kept():
    """subset() (the engine's unschedulable jobs left out, the bound's, a lesson's TE jobs alone)
    keeps the masked rows of every column, the optional ones (extra, workers) included, in order."""
    table = JobTable(
        job_id=np.array(["a", "b", "c"], dtype=object),
        submit_time=np.array([0.0, 1.0, 2.0]),
        duration=np.array([5.0, 6.0, 7.0]),
        request=np.array([[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [3.0, 6.0, 3.0]]),
        is_te=np.array([True, False, True]),
        extra={"user": np.array(["u", "v", "w"], dtype=object)},
        workers=np.array([1, 4, 2], dtype=np.int64),
    )
    kept = table.subset(np.array([True, False, True]))
    assert kept.to_frame().equals(table.to_frame().iloc[[0, 2]].reset_index(drop=True))
