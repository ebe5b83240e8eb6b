"""Queues as inputs (DESIGN-queues points 1-3): the workload column ``queue``, the queues file (CSV
or YAML) and its errors naming file, row and column, the check of every job's queue, jobs above
their queue's limit (unschedulable with their reason) and the overcommit warning."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import job, prop_cluster

from simcore.core.model import JobTable, SimConfig
from simcore.core.queues import (
    ABOVE_QUEUE_LIMIT,
    DEFAULT_QUEUE,
    FITS_NO_NODE,
    Queue,
    QueueSpec,
    job_queue_names,
    job_queues,
    overcommit_warning,
)
from simcore.engine import simulate
from simcore.workload import WorkloadError, load_workload
from simcore.workload.queues import check_job_queues, load_queues

HEADER = "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class"


def queues_csv(tmp_path, text: str, name: str = "q.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def refused(path) -> str:
    with pytest.raises(WorkloadError) as err:
        load_queues(path)
    return str(err.value)


# --------------------------------------------------------------------------- the workload column


def test_the_queue_column_is_text_stripped_and_empty_means_default():
    data = f"{HEADER},queue\n1,0,10,1,1,1,BE, vision \n2,0,10,1,1,1,TE,\n3,0,10,1,1,1,BE,1\n4,0,10,1,1,1,BE,01\n"
    table = load_workload(data.encode(), name="w.csv").table
    # "1" and "01" stay two names: the column is read as text
    assert job_queue_names(table).tolist() == ["vision", DEFAULT_QUEUE, "1", "01"]


def test_json_numbers_in_the_queue_column_are_read_as_text():
    data = b'[{"job_id": "a", "submit_time": 0, "duration": 5, "cpu": 1, "mem_gb": 1, "gpu": 1, "job_class": "BE", "queue": 1}]'
    assert job_queue_names(load_workload(data, name="w.json").table).tolist() == ["1"]


def test_without_the_column_every_job_is_in_the_default_queue():
    table = load_workload(f"{HEADER}\n1,0,10,1,1,1,BE\n".encode(), name="w.csv").table
    assert job_queue_names(table).tolist() == [DEFAULT_QUEUE]


# --------------------------------------------------------------------------- the queues file


def test_a_csv_queues_file_with_defaults_and_inf(tmp_path):
    path = queues_csv(tmp_path, "queue,gpu,borrow_limit,weight\n vision ,64,32,1\nnlp,40,,2\nresearch,inf,0,\n")
    spec = load_queues(path).spec
    assert spec.queues == (
        Queue("vision", 64.0, 32.0, 1.0),
        Queue("nlp", 40.0, math.inf, 2.0),  # empty borrow_limit: unlimited
        Queue("research", math.inf, 0.0, 1.0),  # empty weight: 1
    )


def test_a_yaml_queues_file_alone_or_under_queues(tmp_path):
    for text in (
        "queues:\n  - {queue: a, gpu: 8}\n  - {queue: b, gpu: 4, borrow_limit: 0, weight: 2}\n",
        "- {queue: a, gpu: 8}\n- {queue: b, gpu: 4, borrow_limit: 0, weight: 2}\n",
    ):
        spec = load_queues(queues_csv(tmp_path, text, "q.yaml")).spec
        assert spec.queues == (Queue("a", 8.0), Queue("b", 4.0, 0.0, 2.0))


def test_every_problem_names_the_file_the_row_and_the_column(tmp_path):
    text = "queue,gpu,borrow_limit,weight\nnlp,40,,2\nnlp,4,1,1\nbad,-1,x,0\n,2,,\nz,,,\nw,1,1,inf\n"
    msg = refused(queues_csv(tmp_path, text))
    assert f"{tmp_path / 'q.csv'}: refused: 7 problem(s)" in msg
    for line in (
        "row 3, column queue: duplicate queue 'nlp' (first at row 2)",
        "row 4, column gpu: must be >= 0 and <= 1e+09, or inf (got '-1')",
        "row 4, column borrow_limit: not a number: 'x' (GPUs >= 0, or inf)",
        "row 4, column weight: must be a finite number > 0 (at most 1e+09; got '0')",
        "row 5, column queue: empty (a queue name is required)",
        "row 6, column gpu: empty (a number of GPUs >= 0, or inf, is required)",
        "row 7, column weight: must be a finite number > 0 (at most 1e+09; got 'inf')",
    ):
        assert line in msg


def test_unknown_and_missing_columns_are_refused(tmp_path):
    msg = refused(queues_csv(tmp_path, "queue,gpu,color\na,1,red\n"))
    assert "row 1 (the header), column color: unknown column (known: queue, gpu, borrow_limit, weight)" in msg
    msg = refused(queues_csv(tmp_path, "queue,borrow_limit\na,1\n"))
    assert "row 1 (the header), column gpu: required column missing" in msg
    msg = refused(queues_csv(tmp_path, "- {queue: a, gpu: 1, colour: red}\n", "q.yaml"))
    assert "entry 1, column colour: unknown column" in msg


def test_yaml_booleans_are_not_numbers(tmp_path):
    assert "entry 1, column gpu: true/false is not a number" in refused(
        queues_csv(tmp_path, "- {queue: a, gpu: true}\n", "q.yaml")
    )


def test_amounts_are_rounded_to_thousandths_with_a_note(tmp_path):
    loaded = load_queues(queues_csv(tmp_path, "queue,gpu,borrow_limit\na,8.0004,0.0006\n"))
    q = loaded.spec.queues[0]
    assert (q.quota_units, q.borrow_units) == (8000, 1)
    assert loaded.notes == [f"{tmp_path / 'q.csv'}: 2 quota or borrow limit value(s) rounded to thousandths of a GPU"]


# --------------------------------------------------------------------------- jobs and queues


def test_a_job_whose_queue_is_not_in_the_file_is_named_by_its_row(tmp_path):
    data = f"{HEADER},queue\n1,0,10,1,1,1,BE,a\n2,0,10,1,1,1,BE,zzz\n3,0,10,1,1,1,BE,\n"
    loaded = load_workload(data.encode(), name="w.csv")
    spec = QueueSpec.of([("a", 4)])
    with pytest.raises(WorkloadError) as err:
        check_job_queues(spec, loaded, "w.csv", "q.csv")
    msg = str(err.value)
    assert "w.csv: refused: 2 job(s) name a queue that q.csv does not define (known: a)" in msg
    assert "row 3, column queue: queue 'zzz' is not in the queues file q.csv" in msg
    assert "row 4, column queue: queue 'default' is not in the queues file q.csv" in msg
    with pytest.raises(ValueError, match="'default', 'zzz'"):  # the engine refuses them too
        simulate(loaded.table, prop_cluster(8).with_queues(spec), SimConfig())


def test_a_queue_without_jobs_is_allowed():
    jobs = JobTable.from_jobs([job("1", 0, 10, 1)])
    r = simulate(jobs, prop_cluster(8).with_queues(QueueSpec.of([("default", 4), ("idle", 4)])), SimConfig())
    assert r.queues is not None and r.queues.names == ["default", "idle"]


def test_a_job_above_its_queue_s_limit_is_unschedulable_with_its_reason():
    # a (4 GPUs) is above queue small's 2 + 1; b (16 GPUs) fits no node and keeps rule 8's reason;
    # c (2 x 2 GPUs = 4) is above 3 too: a gang counts every worker
    jobs = JobTable.from_jobs(
        [
            job("a", 0, 10, 4, queue="small"),
            job("b", 0, 10, 16, queue="small"),
            job("c", 0, 10, 2, queue="small", workers=2),
            job("d", 0, 10, 3, queue="small"),
        ]
    )
    r = simulate(jobs, prop_cluster(8, 8).with_queues(QueueSpec.of([("small", 2, 1)])), SimConfig())
    assert r.unschedulable == ("a", "b", "c")
    assert r.unschedulable_reasons == (ABOVE_QUEUE_LIMIT, FITS_NO_NODE, ABOVE_QUEUE_LIMIT)
    assert r.jobs.job_id.tolist() == ["d"]


def test_overcommitted_quotas_give_a_warning():
    cluster = prop_cluster(8, 8)
    assert overcommit_warning(QueueSpec.of([("a", 8), ("b", 8), ("c", math.inf)]), cluster) is None
    warning = overcommit_warning(QueueSpec.of([("a", 10), ("b", 8)]), cluster)
    assert warning == (
        "the queues' quotas add up to 18 GPUs, more than the cluster's 16: "
        "they are overcommitted and cannot all be met at once"
    )


def test_a_queue_spec_checks_its_values():
    with pytest.raises(ValueError, match="unique"):
        QueueSpec.of([("a", 1), ("a", 2)])
    with pytest.raises(ValueError, match="weight"):
        Queue("a", 1, 1, 0)
    with pytest.raises(ValueError, match="gpu"):
        Queue("a", -1)
    assert np.array_equal(
        job_queues(QueueSpec.of([("a", 1)]), JobTable.from_jobs([job("x", 0, 1, 1, queue=" a")])), [0]
    )
