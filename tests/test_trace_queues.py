"""The gang-trace adapters' team column as each job's queue (issue 34, DESIGN-queues point 1): Helios'
``vc``, the spot-GPU trace's HP/Spot split as two queues (or its ``organization``), a user's jobs on
request; the quotas from a queues file (the traces state none); on hand-made rows and the samples."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.paths import ROOT

from simcore.analysis import queue_metrics
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, QueueSpec, SimConfig
from simcore.core.queues import job_queue_names
from simcore.engine import simulate
from simcore.workload import WorkloadError, load_workload
from simcore.workload.queues import check_job_queues
from simcore.workload.traces import TraceOptions
from simcore.workload.traces.formats import HELIOS_HEADER, SEREN_HEADER, SPOT_HEADER

SAMPLES = ROOT / "sample_workloads" / "traces"


def _file(header: tuple[str, ...], *rows: str) -> bytes:
    return ("\n".join([",".join(header), *rows]) + "\n").encode()


# organizations 13 and 57; the third job is Spot in lower case; a CPU-only HP job (left out)
SPOT = _file(
    SPOT_HEADER,
    "1,13,A10,20,1,1,100,3600,HP",
    "2,57,A10,15,1,4,200,7200,Spot",
    "3,57,A10,12,8,1,300,600,spot",
    "4,58,A10,4,0,1,400,50,HP",
)
# vc JK holds jobs 10 and 13 (13: a user's CPU-only job, left out); vc hb job 11; vc pD job 12
HELIOS = _file(
    HELIOS_HEADER,
    "10,uXB,vcJK,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-09 19:41:01,3600,0",
    "11,uVM,vchb,16,64,2,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0",
    "12,uzq, vcpD ,2,6,1,COMPLETED,2020-06-09 18:42:01,2020-06-09 18:42:01,2020-06-09 18:43:01,60,0",
    "13,uzq,vcJK,0,8,1,COMPLETED,2020-06-09 18:43:01,2020-06-09 18:43:01,2020-06-09 18:44:01,60,0",
)
SEREN = _file(
    SEREN_HEADER,
    "1,uA,2,16,32,sft,COMPLETED,2023-06-01 00:00:00,2023-06-01 00:00:00,2023-06-01 01:00:00,3600,normal,57600",
    "2,uB,1,1,4,eval,COMPLETED,2023-06-01 00:01:00,2023-06-01 00:01:00,2023-06-01 00:11:00,600,normal,600",
)


def test_spot_jobs_are_in_the_hp_and_spot_queues() -> None:
    loaded = load_workload(SPOT, name="job_info_df.csv")
    assert job_queue_names(loaded.table).tolist() == ["HP", "Spot", "Spot"]  # "spot" spelled as the trace does
    assert any("queue = the trace's job_type column: 2 queues (HP, Spot)" in n for n in loaded.notes)
    by_org = load_workload(SPOT, name="s.csv", trace_options=TraceOptions(queue_map="organization")).table
    assert job_queue_names(by_org).tolist() == ["13", "57", "57"]  # the CPU-only job 4 left out
    none = load_workload(SPOT, name="s.csv", trace_options=TraceOptions(queue_map="none")).table
    assert "queue" not in none.extra and job_queue_names(none).tolist() == ["default"] * 3


def test_helios_jobs_are_in_their_virtual_clusters() -> None:
    loaded = load_workload(HELIOS, name="c.csv")
    assert job_queue_names(loaded.table).tolist() == ["vcJK", "vchb", "vcpD"]  # blanks stripped; job 13 left out
    by_user = load_workload(HELIOS, name="c.csv", trace_options=TraceOptions(queue_map="user")).table
    assert job_queue_names(by_user).tolist() == ["uXB", "uVM", "uzq"]


def test_acme_has_no_team_column_but_a_user_on_request() -> None:
    assert "queue" not in load_workload(SEREN, name="seren.csv").table.extra
    by_user = load_workload(SEREN, name="seren.csv", trace_options=TraceOptions(queue_map="user")).table
    assert job_queue_names(by_user).tolist() == ["uA", "uB"]
    with pytest.raises(UserError, match="--trace-queue-map vc: the acme format has user, none"):
        load_workload(SEREN, name="seren.csv", trace_options=TraceOptions(queue_map="vc"))


def test_a_queues_file_must_name_every_vc() -> None:
    loaded = load_workload(HELIOS, name="c.csv")
    with pytest.raises(WorkloadError, match="1 job\\(s\\) name a queue that q.csv does not define") as err:
        check_job_queues(QueueSpec.of([("vcJK", 8), ("vchb", 8)]), loaded, "c.csv", "q.csv")
    assert "job '12', column queue: queue 'vcpD' is not in the queues file q.csv" in str(
        err.value
    )  # by id: no row kept


def test_the_spot_sample_runs_with_hp_reclaiming_from_spot() -> None:
    """On the synthetic spot-GPU sample: HP (TE) jobs within their quota take GPUs back from the Spot
    (BE) jobs borrowing them, and never the other way round."""
    table = load_workload(SAMPLES / "spot2026_job_info_df.csv").table
    assert set(job_queue_names(table).tolist()) == {"HP", "Spot"}
    cluster = ClusterSpec.uniform(4, 96, 512, 8).with_queues(QueueSpec.of([("HP", 16), ("Spot", 16)]))
    result = simulate(table, cluster, SimConfig(policy="k8s"))
    ledger = queue_metrics.ledger_records(result)
    assert ledger, "no reclaim on the sample"
    for row in ledger:
        assert row["queue"] == "HP" and row["job_class"] == "TE"
        assert set(row["victim_queues"]) == {"Spot"} and row["cause"] == "reclaim"
    spot = np.asarray(job_queue_names(table)) == "Spot"
    assert not table.is_te[spot].any() and table.is_te[~spot].all()  # the split is the class map's too
