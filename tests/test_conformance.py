"""Conformance: our `fifo` reproduces, job for job, the FIFO schedules that three
independent simulators agree on (../shared/conformance/README.md).

The greedy file's `nodes` column is documented as "always 1", but its values range over
1..16: it is the 1-based index of the node each job ran on (first fit), and it matches our
node column (n0..n15) as nodes - 1 for every job, so it is asserted too.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.engine import simulate

SHARED = Path(__file__).resolve().parents[2] / "shared"
CONF = SHARED / "conformance"

pytestmark = pytest.mark.skipif(not (CONF / "wl10k.csv").is_file(), reason=f"conformance data not found in {CONF}")


@pytest.fixture(scope="module")
def workload() -> JobTable:
    df = pd.read_csv(CONF / "wl10k.csv")
    assert len(df) == 10_000
    return JobTable.from_frame(df)


def _mismatches(merged: pd.DataFrame, ours: str, theirs: str) -> str:
    bad = merged[merged[ours] != merged[theirs]]
    head = bad.head(8)[["job_id", "submit_time", theirs, ours]].to_string(index=False)
    return f"{len(bad)} jobs with {ours} != {theirs}; first ones:\n{head}"


@pytest.mark.parametrize(
    ("backfill", "expected_file"),
    [("none", "expected_fifo_strict_first_fit.csv"), ("greedy", "expected_fifo_greedy_first_fit.csv")],
)
def test_fifo_matches_reference_schedules(workload, backfill, expected_file):
    cluster = ClusterSpec.uniform(16, 64, 512, 8)
    r = simulate(workload, cluster, SimConfig(policy="fifo", backfill=backfill, placement="first_fit"))
    assert list(r.unschedulable) == []
    exp = pd.read_csv(CONF / expected_file, dtype={"job_id": str})
    jf = r.jobs_frame
    assert len(jf) == len(exp) == 10_000
    m = exp.merge(jf.drop(columns=["submit_time"]), on="job_id", how="left", validate="one_to_one")
    assert m["first_start"].notna().all(), "jobs missing from our jobs frame"
    assert (m["first_start"] == m["start_time"]).all(), _mismatches(m, "first_start", "start_time")
    assert (m["finish"] == m["finish_time"]).all(), _mismatches(m, "finish", "finish_time")
    assert (jf["preemptions"] == 0).all()
    if "nodes" in exp.columns:
        m["node_index"] = m["node"].str.slice(1).astype(int) + 1
        assert (m["node_index"] == m["nodes"]).all(), _mismatches(m, "node_index", "nodes")
