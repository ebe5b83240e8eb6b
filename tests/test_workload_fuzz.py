"""Fuzzing every reader of a file a user or visitor hands in: thousands of malformed inputs (raw
bytes, mutated CSVs, arbitrary JSON, cluster files; then every format's valid file with cells
replaced: the gang traces, the Alibaba pod and node lists, node lists, pool files, Parquet of any
column types, the dashboard upload with any options, sweep grid files) must each end in a
successful load or the project's own error (WorkloadError, UserError).

The first tests name their example counts; the later ones run the profile's (``ci``: 100,
``hunt``: 2,000 fresh ones: ``HYPOTHESIS_PROFILE=hunt``, docs/testing.md#fast-and-never-flaky)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.shared import uploads
from dashboard.shared.uploads import UPLOAD_DEFAULTS
from simcore.core.errors import UserError
from simcore.experiments.sweep.spec import build_spec, load_spec_file
from simcore.workload import WorkloadError, load_cluster, load_workload

VALID = (
    b"job_id,submit_time,duration,cpu,mem_gb,gpu,job_class,user\n"
    b"1,0,100,4,16,1,TE,ann\n"
    b"2,5.5,200,8,32,2,be,bob\n"
    b"3,7,30,1,1,0.5,BE,\n"
)
NASTY = [
    b"",
    b",",
    b";",
    b"\t",
    b'"',
    b'""',
    b"\n",
    b"\r\n",
    b"\r",
    b"\x00",
    b"\xff",
    b"\xc3",
    b"nan",
    b"-inf",
    b"1e999",
    b"-0",
    b"1_0",
    b"\xe2\x80\xae",
    b"TE",
    b"be",
    b"x" * 200,
    b"[",
    b"{",
    b"PAR1",
    b"\xef\xbb\xbf",
]
NAMES = ["w.csv", "w.json", "w.jsonl", "w.parquet", "upload", "w.txt"]
#: five times the profile's examples (ci 500, dev 100, hunt 10,000): the readers are cheap per example,
#: and the ``hunt`` profile searches far deeper than CI (docs/testing.md#fast-and-never-flaky)
FUZZ = settings(max_examples=5 * settings().max_examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def outcome(data: bytes, name: str, drop_invalid: bool) -> None:
    try:
        loaded = load_workload(data, name=name, drop_invalid=drop_invalid, max_bytes=1_000_000)
    except WorkloadError as err:
        assert str(err)
        return
    assert len(loaded.table) > 0
    assert (loaded.table.duration > 0).all() and (loaded.table.submit_time >= 0).all()


@FUZZ
@given(st.binary(max_size=400), st.sampled_from(NAMES), st.booleans())
def test_random_bytes(data: bytes, name: str, drop_invalid: bool) -> None:
    outcome(data, name, drop_invalid)


@st.composite
def mutated_csv(draw: st.DrawFn) -> bytes:
    data = bytearray(VALID)
    for _ in range(draw(st.integers(1, 6))):
        pos = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(st.sampled_from(NASTY) | st.binary(max_size=4))
        if op == "insert":
            data[pos:pos] = piece
        elif op == "delete":
            del data[pos : pos + draw(st.integers(1, 8))]
        else:
            data[pos : pos + len(piece)] = piece
    return bytes(data)


@FUZZ
@given(mutated_csv(), st.sampled_from(["w.csv", "upload"]), st.booleans())
def test_mutated_csv(data: bytes, name: str, drop_invalid: bool) -> None:
    outcome(data, name, drop_invalid)


json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)


def _containers(inner: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)


json_values = st.recursive(json_scalars, _containers, max_leaves=12)
# A record's field is checked by its type and value alone (a container is refused whatever it
# holds), so a few leaves reach what twelve do at a fraction of the drawing, which was most of
# this test's time (docs/history/test-suite.md#round-8-in-process).
field_values = st.one_of(
    st.recursive(json_scalars, _containers, max_leaves=3),
    st.sampled_from([0, 1, -1, 1.5, "TE", "be", "", "nan", 1e308, True]),
)
records = st.lists(
    st.dictionaries(
        st.sampled_from(["job_id", "submit_time", "duration", "cpu", "mem_gb", "gpu", "job_class", "user", "x"]),
        field_values,
    ),
    max_size=5,
)


@FUZZ
@given(st.one_of(records, json_values), st.booleans())
def test_arbitrary_json(doc: object, drop_invalid: bool) -> None:
    outcome(json.dumps(doc, allow_nan=True).encode(), "w.json", drop_invalid)


@settings(max_examples=4 * settings().max_examples, deadline=None)
@given(
    st.one_of(st.binary(max_size=300), json_values.map(lambda d: json.dumps({"nodes": d}).encode())),
    st.sampled_from(["c.yaml", "c.json", "c.csv"]),
)
def test_cluster_files(data: bytes, name: str) -> None:
    try:
        cluster = load_cluster(data, name=name).cluster
    except WorkloadError as err:
        assert str(err)
        return
    assert len(cluster.nodes) >= 1


# --- every other reader: cell-level mutations of valid files -------------------------------------
# Each seed file is valid; a mutation replaces some cells with values a careless export or a
# hostile visitor writes (huge numbers, dates a timestamp cannot hold, digits of other scripts,
# spreadsheet text), or shuffles the structure. Every outcome is a load or the project's own
# error (issue 31: a 400-digit number and a date before 1677 ended in tracebacks).

SAMPLES = Path(__file__).resolve().parent.parent / "sample_workloads"
HUGE = "9" * 400
CELLS = [
    "",
    " ",
    "0",
    "-1",
    "1.5",
    "1e3",
    "1e308",
    "1e400",
    "-1e400",
    "1e-400",
    "nan",
    "inf",
    "-0",
    HUGE,
    "-" + HUGE,
    "9" * 5000,
    "9223372036854775808",
    "٣",  # an Arabic-Indic digit: Python reads it as 3
    "1_0",
    "0x10",
    "TE",
    "BE",
    "HP",
    "Spot",
    "1500-01-01 00:00:00",
    "2300-01-01",
    "0001-01-01T00:00:00+14:00",
    "-0001-01-01",
    "99999-01-01",
    "2020-02-30 00:00:00",
    "2023-03-01 00:16:45+08:00",
    "NaT",
    "=1+1",
    '"',
    "a,b",
    "\u202e",
    "x" * 300,
]
#: (file name for the loader, its bytes): one valid file of every format a user or visitor hands in
SEEDS = {
    "w.csv": VALID,
    "job_info_df.csv": (SAMPLES / "traces" / "spot2026_job_info_df.csv").read_bytes(),
    "cluster_log.csv": (SAMPLES / "traces" / "helios_cluster_log.csv").read_bytes(),
    "trace_seren.csv": (SAMPLES / "traces" / "acme_trace_seren.csv").read_bytes(),
    "pai_task_table.csv": (SAMPLES / "traces" / "pai2020_pai_task_table.csv").read_bytes(),
    "pods.csv": (
        b"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
        b"p-run,8000,16384,1,1000,,LS,Running,0,5000,100\n"
        b"p-te,4000,2048,1,500,,BE,Failed,1000,1600,1100\n"
        b"p-big,16000,65536,8,1000,,LS,Succeeded,1200,9000,1200\n"
        b"p-pend,1000,1024,1,1000,,BE,Pending,1300,1400,\n"
    ),
}
FORMATS = ["auto", "csv", "json", "alibaba", "spot2026", "helios", "acme", "pai2020"]


@st.composite
def mutated_cells(draw: st.DrawFn, seed: bytes) -> bytes:
    """The seed file with 1-4 cells (header included) replaced, and maybe a row dropped or repeated."""
    rows = [line.split(",") for line in seed.decode().splitlines()]
    rows = rows[: draw(st.integers(2, min(len(rows), 8)))]
    for _ in range(draw(st.integers(1, 4))):
        row = draw(st.integers(0, len(rows) - 1))
        col = draw(st.integers(0, len(rows[row]) - 1))
        rows[row][col] = draw(st.sampled_from(CELLS) | st.text(max_size=6))
    if draw(st.booleans()):
        i = draw(st.integers(1, len(rows) - 1))
        rows.insert(i, rows[i]) if draw(st.booleans()) else rows.pop(i)
    return "\n".join(",".join(r) for r in rows).encode("utf-8", "surrogatepass") + b"\n"


@given(st.data(), st.sampled_from(sorted(SEEDS)), st.sampled_from(FORMATS), st.booleans())
def test_mutated_files_of_every_format(data: st.DataObject, name: str, fmt: str, drop_invalid: bool) -> None:
    content = data.draw(mutated_cells(SEEDS[name]))
    try:
        loaded = load_workload(content, name=name, fmt=fmt, drop_invalid=drop_invalid, max_bytes=1_000_000)
    except WorkloadError as err:
        assert str(err) and "Traceback" not in str(err)
        return
    t = loaded.table
    assert len(t) == 0 or ((t.duration > 0).all() and (t.submit_time >= 0).all() and np.isfinite(t.request).all())


OPTION_VALUES = st.sampled_from(["", "0", "1", "-1", "2.5", "137d", "1e400", HUGE, "9" * 5000, "nan", "inf", "x"])


@given(
    st.sampled_from(sorted(SEEDS)),
    st.dictionaries(st.sampled_from(sorted(UPLOAD_DEFAULTS)), OPTION_VALUES | st.text(max_size=5), max_size=4),
)
def test_dashboard_upload_with_any_options(name: str, options: dict[str, str]) -> None:
    """The sidebar's loader options are free text (a link's ``u.`` parameters): any of them, on
    any format, loads or is the project's error, never a traceback."""
    try:
        uploads.parse_workload_upload(name, SEEDS[name], options)
    except UserError as err:
        assert str(err) and "Traceback" not in str(err)


PARQUET_COLUMNS = ["job_id", "submit_time", "duration", "cpu", "mem_gb", "gpu", "job_class", "workers", "user"]
parquet_cells = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(),
    st.text(max_size=6),
    st.sampled_from(["TE", "be", "1", "1e400"]),
)


@given(
    st.dictionaries(
        st.sampled_from(PARQUET_COLUMNS),
        st.lists(parquet_cells, min_size=3, max_size=3).flatmap(
            lambda cells: st.sampled_from([cells, [c if isinstance(c, str) or c is None else str(c) for c in cells]])
        ),
        min_size=1,
    ),
    st.booleans(),
)
def test_parquet_files_of_any_column_types(columns: dict[str, list[object]], drop_invalid: bool) -> None:
    """A Parquet file whose columns hold any types pyarrow writes (mixed ones as text)."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = {}
    for name, cells in columns.items():
        try:
            arrays[name] = pa.array(cells)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            arrays[name] = pa.array([None if c is None else str(c) for c in cells])
    buffer = io.BytesIO()
    pq.write_table(pa.table(arrays), buffer)
    outcome(buffer.getvalue(), "w.parquet", drop_invalid)


CLUSTER_SEEDS = {
    "nodes.csv": b"name,cpu,mem_gb,gpu\nn0,64,512,8\nn1,32,256,4\n",
    "node_list.csv": b"sn,cpu_milli,memory_mib,gpu\nopenb-node-0,64000,262144,8\nopenb-node-1,96000,786432,0\n",
    "c.yaml": (SAMPLES / "demo_cluster.yaml").read_bytes(),
    "c.json": b'{"nodes": [{"name": "a", "count": 2, "cpu": 8, "mem_gb": 64, "gpu": 2}, {"name": "b", "cpu": 4}]}',
}


@given(
    st.data(),
    st.sampled_from(sorted(CLUSTER_SEEDS)),
    st.booleans(),
    st.none() | st.integers(-1, 3),
    st.none() | st.sampled_from([0.0, 8.0, 1e400]),
)
def test_mutated_cluster_files(
    data: st.DataObject, name: str, gpu_only: bool, first_n: int | None, per_node: float | None
) -> None:
    """Node lists (``name, cpu, mem_gb, gpu`` and the Alibaba node list with its filters) and pool
    files, cells replaced as above (in a pool file: any token)."""
    seed = CLUSTER_SEEDS[name]
    if name.endswith(".csv"):
        content = data.draw(mutated_cells(seed))
    else:
        tokens = seed.decode().replace("{", " { ").replace("}", " } ").replace(",", " , ").split(" ")
        for _ in range(data.draw(st.integers(1, 3))):
            tokens[data.draw(st.integers(0, len(tokens) - 1))] = data.draw(st.sampled_from(CELLS))
        content = " ".join(tokens).encode("utf-8", "surrogatepass")
    try:
        cluster = load_cluster(content, name=name, gpu_nodes_only=gpu_only, first_n=first_n, gpu_per_node=per_node)
    except WorkloadError as err:
        assert str(err) and "Traceback" not in str(err)
        return
    assert len(cluster.cluster.nodes) >= 1
    assert all(np.isfinite(n.capacity.as_array()).all() for n in cluster.cluster.nodes)


grid_values = st.sampled_from(CELLS) | st.integers() | st.floats() | st.lists(st.sampled_from(CELLS), max_size=3)


@given(
    st.dictionaries(
        st.sampled_from(["preset", "alibaba", "set", "grid", "seeds", "policies", "baseline", "bound", "x"]),
        st.one_of(
            grid_values,
            st.dictionaries(st.sampled_from(["jobs", "load", "grace", "P", "seed", "nodes", "s"]), grid_values),
            st.dictionaries(st.sampled_from(["jobs", "load", "grace", "P", "s"]), st.lists(grid_values, max_size=3)),
        ),
    ),
    st.sampled_from(["g.yaml", "g.json"]),
)
def test_sweep_grid_files(doc: dict[str, object], name: str) -> None:
    """A grid file (``simcore sweep FILE``) of any shape: its spec, or the project's error."""
    import tempfile

    import yaml

    text = json.dumps(doc, allow_nan=True) if name.endswith(".json") else yaml.safe_dump(doc)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text(text)
        try:
            spec = build_spec(**load_spec_file(path))
        except UserError as err:
            assert str(err) and "Traceback" not in str(err)
            return
    assert spec.seeds and spec.policies
