"""Builders of tiny scenarios and the event-log comparison (DESIGN section 5 columns).

Written from DESIGN.md alone, never from the engine's code, so that tests built on it can
disagree with the engine.
"""

from __future__ import annotations

import numpy as np

from simcore.core.model import ClusterSpec, Job, JobClass, JobTable, Node, Resources, SimConfig


def job(
    job_id: str | int,
    submit: float,
    duration: float,
    gpu: float,
    *,
    cpu: float | None = None,
    mem: float | None = None,
    te: bool = False,
    queue: str | None = None,
    workers: int = 1,
) -> Job:
    """A job; cpu and mem default to the gpu count ("proportional" jobs on nodes built by
    :func:`prop_cluster`, so every dimension has the same normalised share); `queue`: its team's queue."""
    return Job(
        job_id=str(job_id),
        submit_time=float(submit),
        duration=float(duration),
        request=Resources(
            float(gpu if cpu is None else cpu),
            float(gpu if mem is None else mem),
            float(gpu),
        ),
        job_class=JobClass.TE if te else JobClass.BE,
        workers=workers,
        queue=queue,
    )


def te(job_id: str | int, submit: float, duration: float, gpu: float, **kw) -> Job:
    return job(job_id, submit, duration, gpu, te=True, **kw)


def prop_cluster(*gpus: float) -> ClusterSpec:
    """Nodes n0.. with capacity (cpu=g, mem_gb=g, gpu=g) for each g given."""
    return cluster_of(*[(g, g, g) for g in gpus])


def cluster_of(*caps: tuple[float, float, float]) -> ClusterSpec:
    """Nodes n0.. with the given (cpu, mem_gb, gpu) capacities."""
    return ClusterSpec(tuple(Node(f"n{i}", Resources(*map(float, c))) for i, c in enumerate(caps)))


def run(jobs: list[Job], cluster: ClusterSpec, **knobs):
    from simcore.engine import simulate

    return simulate(JobTable.from_jobs(jobs), cluster, SimConfig(**knobs))


# --------------------------------------------------------------------------- event logs

Event = tuple[float, str, str, str]
_PRE_PASS = ("finish", "release", "submit")


def events_of(result) -> list[Event]:
    ev = result.events_frame
    return [
        (float(t), str(j), str(e), "" if n is None else str(n)) for t, j, e, n in ev.itertuples(index=False, name=None)
    ]


def canonical(events: list[Event]) -> list[Event]:
    """DESIGN fixes the order of event *kinds* within an instant but not the order of two
    finishes (or two submits) at the same instant: sort such runs of consecutive rows with
    the same time and kind (finish/release/submit) by job_id. Decisions keep their order."""
    out: list[Event] = []
    i = 0
    while i < len(events):
        k = i + 1
        t, _, kind, _ = events[i]
        if kind in _PRE_PASS:
            while k < len(events) and events[k][0] == t and events[k][2] == kind:
                k += 1
            out.extend(sorted(events[i:k], key=lambda e: e[1]))
        else:
            out.append(events[i])
        i = k
    return out


def _fmt(events) -> str:
    return "\n".join(f"  {e!r}" for e in events)


def assert_events(result, expected: list[Event]) -> None:
    actual = canonical(events_of(result))
    exp = canonical([(float(t), str(j), e, n) for t, j, e, n in expected])
    if actual != exp:
        first = next(
            (i for i, (a, b) in enumerate(zip(actual, exp, strict=False)) if a != b), min(len(actual), len(exp))
        )
        raise AssertionError(f"event logs differ from row {first}\nexpected:\n{_fmt(exp)}\nactual:\n{_fmt(actual)}")


def assert_jobs(result, expected: dict[str, tuple]) -> None:
    """expected: job_id -> (first_start, finish, preemptions, lost_work, node)."""
    jf = result.jobs_frame
    got = {
        str(r.job_id): (float(r.first_start), float(r.finish), int(r.preemptions), float(r.lost_work), str(r.node))
        for r in jf.itertuples(index=False)
    }
    exp = {str(k): (float(a), float(b), int(c), float(d), str(e)) for k, (a, b, c, d, e) in expected.items()}
    assert got == exp, f"jobs frame differs\nexpected: {exp}\nactual:   {got}"
    # the derived columns follow the DESIGN section 5 formulas
    np.testing.assert_allclose(jf["wait"], jf["first_start"] - jf["submit_time"])
    np.testing.assert_allclose(jf["jct"], jf["finish"] - jf["submit_time"])
