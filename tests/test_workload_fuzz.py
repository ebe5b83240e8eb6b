"""Fuzzing the loaders: thousands of malformed inputs (raw bytes, mutated CSVs, arbitrary JSON,
cluster files) must each end in a successful load or the project's own WorkloadError."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
FUZZ = settings(max_examples=1200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


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
# this test's time (docs/testing.md#round-8-in-process).
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


@settings(max_examples=800, deadline=None)
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
