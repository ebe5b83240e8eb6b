"""Predict, then reveal: questions asked about a run before its answer is shown, and fresh small
exercise scenarios drawn from a seed. Pure (no Streamlit).

A question's answer is read from the run it is about (the events and jobs frames of
:func:`dashboard.runs.compute.full_run`), never typed, so a lesson that changes changes its
answers. :func:`generate` draws a cluster of one or two 4-GPU nodes filled by BE jobs and one or
two TE jobs arriving later; it retries with the next sub-seed until both policies of the exercise
preempt, at most :data:`MAX_TRIES` times, so the work per seed is bounded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from dashboard.runs import compute
from simcore.analysis.bound import BOUND_LABEL, run_bound
from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable, Node, Resources, SimConfig
from simcore.engine import simulate

SEED_PARAM = "exercise"  # the Learn page's URL parameter holding the exercise's seed
SEED_MAX = 2**31 - 1
MAX_TRIES = 50  # sub-seeds tried per seed before giving up (never reached in tests/test_exercises.py)
MINUTE = 60.0
WAIT_TOLERANCE = (1.0, 0.05)  # a predicted wait is right within 1 minute or 5%, whichever is larger
NODE = Resources(cpu=32.0, mem_gb=256.0, gpu=4.0)
CPU_PER_GPU, MEM_PER_GPU = 8.0, 64.0
#: the policies an exercise compares (their victims are asked)
POLICIES = ("k8s", "fitgpp")


@dataclass(frozen=True)
class Question:
    """One prediction: a choice among ``options`` or a number (minutes), with the simulated answer."""

    key: str  # tells the question apart within its run (the widgets' keys)
    prompt: str
    kind: Literal["choice", "number"]
    options: tuple[str, ...]  # the choices (empty for a number)
    accepted: tuple[str, ...]  # right choices (any one of them), or the answer in minutes as text
    answer: str  # the answer in words
    explanation: str  # Markdown, shown after the visitor answers
    noun: str = "job"  # what a choice is ("job 3"); "" when the options say it themselves (a queue's name)

    def option_text(self, option: str | float) -> str:
        """A choice as the radio and the feedback show it."""
        return f"{self.noun} {option}".strip()


def is_right(question: Question, given: str | float) -> bool:
    """Whether ``given`` (an option, or a number of minutes) is the simulated answer."""
    if question.kind == "choice":
        return str(given) in question.accepted
    truth = float(question.accepted[0])
    return abs(float(given) - truth) <= max(WAIT_TOLERANCE[0], WAIT_TOLERANCE[1] * truth)


def questions(jobs: pd.DataFrame, events: pd.DataFrame, label: str) -> tuple[Question, ...]:
    """The questions about one run (``label`` names it): which job is preempted first, when the
    run preempts, how many BE workers it stops when it holds a gang, and how long its first TE job waits."""
    found = []
    preempts = events[events["event"] == "preempt"]
    if len(preempts):
        t = float(preempts["time"].iloc[0])
        # a gang writes one row per worker: each job once
        victims = tuple(dict.fromkeys(str(j) for j in preempts.loc[preempts["time"] == t, "job_id"]))
        running = _running_be(jobs, events[events["time"] <= t], t)
        several = " (any one of them counts)" if len(victims) > 1 else ""
        found.append(
            Question(
                key="victim",
                prompt=f"Under **{label}**, which running job is preempted first?",
                kind="choice",
                options=running,
                accepted=victims,
                answer=f"job {' and job '.join(victims)}{several}",
                explanation=(
                    f"At {fmt.clock(t)} {label} signals {_jobs(victims)}: of the BE jobs running then "
                    f"({_jobs(running)}), {'these are' if len(victims) > 1 else 'this is'} what its rule "
                    "picks to make room for the TE job that does not fit."
                ),
            )
        )
    if "workers" in jobs and (jobs["workers"] > 1).any():
        found.append(_workers_question(jobs, preempts, label))
    te = jobs[jobs["job_class"] == "TE"]
    if len(te):
        row = te.iloc[0]
        wait = float(row["wait"])
        submit = float(row["submit_time"])
        found.append(
            Question(
                key="te_wait",
                prompt=f"Under **{label}**, how long does TE job {row['job_id']} wait before it starts (minutes)?",
                kind="number",
                options=(),
                accepted=(repr(wait / MINUTE),),
                answer=fmt.duration(wait),
                explanation=(
                    f"TE job {row['job_id']} arrives at {fmt.clock(submit)} and first starts at "
                    f"{fmt.clock(submit + wait)}: it waits {fmt.duration(wait)}. Within "
                    f"{fmt.number(WAIT_TOLERANCE[0])} minute or {WAIT_TOLERANCE[1]:.0%} counts as right."
                ),
            )
        )
    return tuple(found)


def _workers_question(jobs: pd.DataFrame, preempts: pd.DataFrame, label: str) -> Question:
    """How many BE workers the run stops in all (a run with a gang: one signal stops every worker)."""
    stopped = len(preempts)  # one preempt row per worker
    be = jobs.loc[jobs["job_class"] == "BE", "workers"].astype(int)
    options = sorted({0, stopped, int(be.sum()), *be.tolist()})
    return Question(
        key="workers",
        prompt=f"Under **{label}**, how many BE workers are stopped in all?",
        kind="choice",
        options=tuple(map(str, options)),
        accepted=(str(stopped),),
        answer=_count(stopped, "worker"),
        explanation=(
            f"{label} signals {_count(preempts['job_id'].nunique(), 'job')} on "
            f"{_count(preempts['node'].nunique(), 'node')}, one preempt row per worker. A gang is stopped "
            "whole, so a victim set costs all the workers of every job in it, on every node they hold."
        ),
    )


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _running_be(jobs: pd.DataFrame, past: pd.DataFrame, t: float) -> tuple[str, ...]:
    """The BE jobs holding GPUs just before the events of ``t`` that preempt (in job order)."""
    before = past[past["event"] != "preempt"]
    last = before.groupby("job_id", sort=False)["event"].last()
    be = set(jobs.loc[jobs["job_class"] == "BE", "job_id"].astype(str))
    holding = {str(j) for j in last[last == "start"].index}
    return tuple(j for j in jobs["job_id"].astype(str) if j in holding & be)


def _jobs(ids: tuple[str, ...]) -> str:
    return ", ".join(f"job {j}" for j in ids)


# --- fresh exercises from a seed ------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Exercise:
    """A drawn scenario, its runs under :data:`POLICIES` and its limits."""

    seed: int
    tries: int  # sub-seeds drawn until both policies preempted
    table: JobTable
    cluster: ClusterSpec
    runs: dict[str, compute.Run]
    limits: pd.DataFrame  # per TE job: its wait under each policy, the pooled bound and alone


def parse_seed(raw: str) -> int:
    """The seed of a link's ``exercise`` parameter, range-checked."""
    try:
        seed = int(raw)
    except ValueError:
        raise UserError(f"URL parameter {SEED_PARAM}={raw!r}: the seed must be a whole number") from None
    if not 0 <= seed <= SEED_MAX:
        raise UserError(f"URL parameter {SEED_PARAM}={seed}: the seed must be between 0 and {SEED_MAX}")
    return seed


def generate(seed: int) -> Exercise:
    """The exercise of ``seed``: the first sub-seed whose scenario makes both policies preempt (the
    page computes it through :func:`dashboard.runs.data.computed`: in a worker, shared)."""
    if not 0 <= seed <= SEED_MAX:
        raise UserError(f"exercise seed {seed}: must be between 0 and {SEED_MAX}")
    for attempt in range(MAX_TRIES):
        table, cluster = draw(np.random.default_rng([seed, attempt]))
        runs = {p: compute.full_run(table, cluster, SimConfig(policy=p)) for p in POLICIES}
        if all((r.events["event"] == "preempt").any() for r in runs.values()):
            return Exercise(seed, attempt + 1, table, cluster, runs, limits(table, cluster, runs))
    raise UserError(f"exercise seed {seed}: no scenario with a preemption in {MAX_TRIES} draws; try another seed")


def draw(rng: np.random.Generator) -> tuple[JobTable, ClusterSpec]:
    """One or two nodes, each filled by BE jobs (its 4 GPUs split at random) arriving in the first
    5 minutes, then one or two TE jobs arriving while the BE jobs run. Times in whole minutes."""
    nodes = int(rng.integers(1, 3))
    cluster = ClusterSpec(nodes=tuple(Node(f"node-{i}", NODE) for i in range(nodes)))
    be_gpus = [g for _ in range(nodes) for g in _split(rng, int(NODE.gpu))]
    rng.shuffle(be_gpus)
    te_count = int(rng.integers(1, 3))
    submit = [float(rng.integers(0, 6)) * MINUTE for _ in be_gpus]
    submit = sorted(submit) + sorted(float(rng.integers(15, 60)) * MINUTE for _ in range(te_count))
    duration = [float(rng.integers(4, 17)) * 15 * MINUTE for _ in be_gpus]  # 1 to 4 h
    duration += [float(rng.integers(2, 9)) * 5 * MINUTE for _ in range(te_count)]  # 10 to 40 min
    gpus = [float(g) for g in be_gpus] + [float(rng.integers(1, 3)) for _ in range(te_count)]
    n = len(gpus)
    table = JobTable(
        job_id=np.array([str(i + 1) for i in range(n)], dtype=object),
        submit_time=np.array(submit),
        duration=np.array(duration),
        request=np.array([[g * CPU_PER_GPU, g * MEM_PER_GPU, g] for g in gpus]),
        is_te=np.array([i >= len(be_gpus) for i in range(n)]),
    )
    return table, cluster


def _split(rng: np.random.Generator, total: int) -> list[int]:
    """``total`` GPUs cut into 1 to ``total`` whole parts at random cut points."""
    cuts = sorted(int(c) for c in rng.choice(np.arange(1, total), size=int(rng.integers(0, total)), replace=False))
    edges = [0, *cuts, total]
    return [b - a for a, b in zip(edges, edges[1:], strict=False)]


def limits(table: JobTable, cluster: ClusterSpec, runs: dict[str, compute.Run]) -> pd.DataFrame:
    """Each TE job's wait (s) under each policy, under the pooled bound (simcore.analysis.bound: one node
    holding the whole cluster, free preemption) and alone on the cluster (no BE job at all: a
    lower bound on its wait under any policy)."""
    bound = run_bound(table, cluster, SimConfig(policy=POLICIES[0])).jobs_frame
    te = np.asarray(table.is_te)
    alone = simulate(table.subset(te), cluster, SimConfig(policy=POLICIES[0])).jobs_frame
    frame = pd.DataFrame({"TE job": [str(j) for j in table.job_id[te]]})
    for name, frame_of in [*((p, r.jobs) for p, r in runs.items()), (BOUND_LABEL, bound), ("TE jobs alone", alone)]:
        wait = frame_of.assign(job_id=frame_of["job_id"].astype(str)).set_index("job_id")["wait"]
        frame[f"wait under {name} (s)"] = [float(wait[j]) for j in frame["TE job"]]
    return frame
