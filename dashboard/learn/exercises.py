"""Predict, then reveal: questions asked about a run before its answer is shown, and fresh small
exercise scenarios drawn from a seed. Pure (no Streamlit).

A question's answer is read from the run it is about (the events and jobs frames of
:func:`dashboard.runs.compute.full_run`), never typed, so a lesson that changes changes its
answers; its explanation, shown once answered, is read from the run's decision records and the
TE job's waits (:class:`Evidence`): the key value that decided the victims, against each other set and
each other policy's choice on the same state (:mod:`simcore.analysis.contrast`), or the rule that made
the TE job wait. A choice offers every BE job running when the TE job asks, and "nobody": a question
with fewer than two choices is not asked. :func:`generate` draws a cluster of one or two 4-GPU nodes
filled by BE jobs and one or two TE jobs arriving later; it retries with the next sub-seed until both
policies of the exercise preempt and each victim question offers at least two running jobs, at most
:data:`MAX_TRIES` times, so the work per seed is bounded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from dashboard.runs import compute
from dashboard.shared import decision_text
from simcore.analysis import contrast, whatif
from simcore.analysis.bound import BOUND_LABEL, run_bound
from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable, Node, Resources, SimConfig
from simcore.engine import simulate
from simcore.policies import POLICIES as POLICY_REGISTRY
from simcore.policies.alternatives import same_state_for

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
    explanation: str  # Markdown, shown after the visitor answers: the rule or key that decided, with its values
    record: Mapping[str, Any] | None = None  # the decision it is about, its sets shown after the answer


def is_right(question: Question, given: str | float) -> bool:
    """Whether ``given`` (an option, or a number of minutes) is the simulated answer."""
    if question.kind == "choice":
        return str(given) in question.accepted
    truth = float(question.accepted[0])
    return abs(float(given) - truth) <= max(WAIT_TOLERANCE[0], WAIT_TOLERANCE[1] * truth)


#: the victim question's option for "no job is preempted: the TE job waits"
NOBODY = "nobody"


@dataclass(frozen=True, eq=False)
class Evidence:
    """What a run's answers are explained with: its policy, the TE job the questions are about (None: no
    TE job), the run's decision records (other policies asked on the same states) and that job's waits."""

    policy: str
    te_job: str | None
    records: tuple[dict[str, Any], ...]
    waits: tuple[whatif.Wait, ...]


def evidence(table: JobTable, cluster: ClusterSpec, config: SimConfig, others: Sequence[str]) -> Evidence:
    """The run of ``config`` with its decisions recorded, ``others`` asked on every state, and the waits
    of the TE job the questions are about: the first one a decision took victims for, else the first
    one that waited, else the first one."""
    result = simulate(table, cluster, config, same_state=tuple(others))
    jobs = result.jobs_frame
    te = jobs[jobs["job_class"] == "TE"]
    took = [str(d["te_job"]) for d in result.decisions if d["victims"]]
    waited = te.loc[te["wait"] > 0, "job_id"].astype(str).tolist()
    first = [*took, *waited, *te["job_id"].astype(str).tolist()]
    if not first:
        return Evidence(config.policy, None, result.decisions, ())
    waits = whatif.blocking_reasons(table, cluster, config, first[0])
    return Evidence(config.policy, first[0], result.decisions, waits)


def evidences(table: JobTable, cluster: ClusterSpec, configs: Mapping[str, SimConfig]) -> dict[str, Evidence]:
    """The :func:`evidence` of each run (by label), the runs' preemptive policies (and k8s, lrtp,
    fitgpp) asked on every state of each."""
    names = [c.policy for c in configs.values() if POLICY_REGISTRY[c.policy].preemptive]
    return {label: evidence(table, cluster, c, same_state_for(c.policy, names)) for label, c in configs.items()}


def jobs_table(table: JobTable) -> pd.DataFrame:
    """The jobs as a visitor predicts from them: class, arrival, run time and request (per worker, with
    the workers of a gang), times in human units."""
    frame = table.to_frame()
    shown = pd.DataFrame(
        {
            "job": frame["job_id"].astype(str),
            "class": frame["job_class"],
            "arrives": frame["submit_time"].map(fmt.clock),
            "run time": frame["duration"].map(fmt.duration),
            "GPUs": frame["gpu"].map(fmt.setting),
            "CPU": frame["cpu"].map(fmt.setting),
            "memory (GiB)": frame["mem_gb"].map(fmt.setting),
        }
    )
    return shown.assign(workers=frame["workers"]) if "workers" in frame and (frame["workers"] > 1).any() else shown


def questions(jobs: pd.DataFrame, events: pd.DataFrame, label: str, ev: Evidence) -> tuple[Question, ...]:
    """The questions about one run (``label`` names it; ``ev`` its :func:`evidence`): which running job it
    preempts for the TE job the questions are about (every BE job running then, or nobody: at least
    two choices, else not asked), how many BE workers it stops when it holds a gang, and how long
    that TE job waits."""
    if ev.te_job is None:
        return ()
    found = []
    record = decision_text.decision_of_te_job(ev.records, ev.te_job)
    row = jobs[jobs["job_id"].astype(str) == ev.te_job].iloc[0]
    submit, wait = float(row["submit_time"]), float(row["wait"])
    t = float(record["time"]) if record is not None else submit
    running = _running_be(jobs, events[events["time"] <= t], t)
    if running and (record is not None or wait > 0):
        found.append(_victim_question(label, ev, t, running, record))
    if "workers" in jobs and (jobs["workers"] > 1).any():
        found.append(_workers_question(jobs, events[events["event"] == "preempt"], label))
    stretches = " ".join(f"From {fmt.clock(w.start)} to {fmt.clock(w.end)}: {w.text}." for w in ev.waits)
    found.append(
        Question(
            key="te_wait",
            prompt=f"Under **{label}**, how long does TE job {ev.te_job} wait before it starts (minutes)?",
            kind="number",
            options=(),
            accepted=(repr(wait / MINUTE),),
            answer=fmt.duration(wait),
            explanation=(
                f"TE job {ev.te_job} arrives at {fmt.clock(submit)} and first starts at "
                f"{fmt.clock(submit + wait)}: it waits {fmt.duration(wait)}. {stretches} Within "
                f"{fmt.number(WAIT_TOLERANCE[0])} minute or {WAIT_TOLERANCE[1]:.0%} counts as right."
            ),
        )
    )
    return tuple(found)


def _victim_question(
    label: str, ev: Evidence, t: float, running: tuple[str, ...], record: Mapping[str, Any] | None
) -> Question:
    """Which running BE job the run ``label`` preempts for its TE job at ``t`` (its decision ``record``), or nobody."""
    te_job, policy = ev.te_job, ev.policy
    victims = tuple(record["victims"]) if record is not None and record["victims"] else ()
    several = " (any one of them counts)" if len(victims) > 1 else ""
    if victims:
        assert record is not None  # it took victims
        answer = f"job {' and job '.join(victims)}{several}"
        lines = contrast.contrast_lines(record)
        why = (
            f"At {fmt.clock(t)} {policy} takes {_jobs(victims)} on node {record['node']} for TE job {te_job}. "
            "Why this set and not another, by its own key (every set it weighed is in the table below):\n\n"
            + "\n".join(f"- {line}" for line in lines)
        )
    elif record is not None:
        answer = f"nobody: TE job {te_job} waits"
        why = f"At {fmt.clock(t)} {policy} looks for victims for TE job {te_job} and takes none: {record['reason']}."
    else:
        answer = f"nobody: TE job {te_job} waits"
        why = f"{policy} never looks for victims: it does not preempt, so TE job {te_job} waits for room."
    return Question(
        key="victim",
        prompt=(
            f"Under **{label}**, TE job {te_job} finds no room at {fmt.clock(t)}. Which running job is preempted "
            "for it?"
        ),
        kind="choice",
        options=(*running, NOBODY),
        accepted=victims or (NOBODY,),
        answer=answer,
        explanation=why,
        record=record if victims else None,
    )


def choice_label(option: str) -> str:
    """A victim question's option as the page shows it."""
    return "nobody: the TE job waits" if option == NOBODY else f"job {option}"


def plausible(question: Question) -> tuple[str, ...]:
    """The running jobs a victim question offers (its choices but "nobody")."""
    return tuple(o for o in question.options if o != NOBODY)


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
    evidence: dict[str, Evidence]  # per policy: what its answers are explained with
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
    """The exercise of ``seed``: the first sub-seed whose scenario makes both policies preempt, with at
    least two running BE jobs to choose from in each victim question (:func:`worth_asking`); the page
    computes it through :func:`dashboard.runs.data.computed`: in a worker, shared."""
    if not 0 <= seed <= SEED_MAX:
        raise UserError(f"exercise seed {seed}: must be between 0 and {SEED_MAX}")
    for attempt in range(MAX_TRIES):
        table, cluster = draw(np.random.default_rng([seed, attempt]))
        runs = {p: compute.full_run(table, cluster, SimConfig(policy=p)) for p in POLICIES}
        if not all((r.events["event"] == "preempt").any() for r in runs.values()):
            continue
        found = evidences(table, cluster, {p: SimConfig(policy=p) for p in POLICIES})
        asked = {p: questions(r.jobs, r.events, p, found[p]) for p, r in runs.items()}
        if all(worth_asking(qs) for qs in asked.values()):
            return Exercise(seed, attempt + 1, table, cluster, runs, found, limits(table, cluster, runs))
    raise UserError(
        f"exercise seed {seed}: no scenario with a preemption and two jobs to choose from in {MAX_TRIES} draws; "
        "try another seed"
    )


def worth_asking(asked: Sequence[Question]) -> bool:
    """Does a run's victim question offer at least two running BE jobs (besides "nobody")?"""
    return any(q.key == "victim" and len(plausible(q)) >= 2 for q in asked)


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
