"""Lessons (f) and (g) of Learn: interruptions nobody chose (DESIGN rule 12), their variants, setups, outcomes and
questions; pure (no Streamlit).

(f) puts a node failure beside a preemption of the same job at the same instant, under each
checkpoint mode: a preemption warns its victim (the grace period, ``on_preempt``'s save), a failure
does not, and only periodic checkpoints keep work whatever stops the job. (g) runs one job through
the same two failures at five checkpoint intervals, each checkpoint pausing it: often costs pauses,
rarely costs lost work, so the finish has a best interval, near Young/Daly's sqrt(2 x cost x M).
Every answer is read from the variants' runs (:class:`dashboard.runs.compute.Run`), never typed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from dashboard.learn.exercises import Question
from simcore.core import fmt
from simcore.core.model import SimConfig

JOB = "1"  # the BE job both lessons follow

# --- (f) a failure against a preemption ----------------------------------------------------------
MODES = ("on_preempt", "periodic", "none")
PREEMPTED, FAILED = "preempted", "node fails"
#: node-0 fails when the TE job arrives (45 min), down as long as the grace period: the TE job starts at the
#: same instant in both variants, so only what job 1 keeps differs
FAILURE_AT_TE = (("node-0", 2700.0, 2730.0, "failure"),)
KEEPS = {
    "on_preempt": "saves only when it is signalled: a preemption's grace period is its chance; a failure gives none",
    "periodic": "keeps its last checkpoint (every 30 min) whatever stops it",
    "none": "keeps nothing: it starts again from scratch",
}
UNCHOSEN_SETUP = (
    "The jobs of lesson (c): BE job 1 trains on the whole node for 2 hours, and at 45 minutes TE job 2 arrives "
    "wanting 1 GPU for 10 minutes. In the **preempted** variants fitgpp chooses to stop job 1: a signal, then the "
    "grace period. In the **node fails** variants nobody chooses anything: node-0 fails at 45 minutes and is down "
    "exactly as long as the grace period, and job 1 stops at once, with no signal and no grace. Either way job 1 "
    "then waits for the TE job and pays the 60 s restore when it starts again. Under each checkpoint mode, what "
    "does job 1 lose to each interruption?"
)
#: what job 1 keeps and loses, and when it finishes (checked by hand in tests/test_lesson_interruptions.py)
UNCHOSEN_OUTCOMES = {
    (PREEMPTED, "on_preempt"): (
        "Preempted, job 1 saves in its grace period: it loses no work and finishes at day 1 02:11:30, late only by "
        "the grace, the TE job's 10 minutes and the restore."
    ),
    (FAILED, "on_preempt"): (
        "The failure sends no signal, so `on_preempt` never saves: job 1 loses all 45.0 min and starts again from "
        "scratch after the TE job, finishing at day 1 02:56:30."
    ),
    (PREEMPTED, "periodic"): (
        "Preempted, job 1 keeps its checkpoint at 30 minutes and loses the 15.0 min since (`periodic` does not save "
        "in the grace period): it finishes at day 1 02:26:30."
    ),
    (FAILED, "periodic"): (
        "When its node fails job 1 keeps the same checkpoint at 30 minutes and loses the same 15.0 min: it finishes "
        "at day 1 02:26:30, as when preempted."
    ),
    (PREEMPTED, "none"): (
        "Preempted, job 1 keeps nothing: it loses all 45.0 min, restarts from scratch and finishes at day 1 02:56:30."
    ),
    (FAILED, "none"): (
        "When its node fails job 1 keeps nothing either: it loses all 45.0 min and finishes at day 1 02:56:30, as "
        "when preempted."
    ),
}
UNCHOSEN_SUMMARY = (
    "`on_preempt` protects only against the interruptions that warn (a preemption's grace period is its chance to "
    "save); `periodic` keeps the last checkpoint whatever stops the job; `none` keeps nothing either way."
)


def unchosen_label(how: str, mode: str) -> str:
    """A variant's label: ``node fails, checkpoint periodic``."""
    return f"{how}, checkpoint {mode}"


def _job(run: Any) -> Any:
    jobs = run.jobs
    return jobs[jobs["job_id"].astype(str) == JOB].iloc[0]


def _lost(run: Any) -> float:
    return float(_job(run)["lost_work"])


def _stopped(run: Any) -> float:
    """When job 1 was first stopped (its preemption signal, or its node's failure)."""
    ev = run.events
    return float(ev[(ev["job_id"].astype(str) == JOB) & ev["event"].isin(("preempt", "fail"))]["time"].iloc[0])


def _mode(label: str) -> str:
    return label.rsplit("checkpoint ", 1)[-1]


def unchosen_questions(runs: Mapping[str, Any], label: str) -> tuple[Question, ...]:
    """Lesson (f)'s questions about the variant ``label``: the work job 1 loses, and which of the two
    interruptions costs it more under the variant's checkpoint mode."""
    run, mode = runs[label], _mode(label)
    options = tuple(fmt.duration(x) for x in sorted({_lost(r) for r in runs.values()}))
    lost, how = _lost(run), PREEMPTED if label.startswith(PREEMPTED) else FAILED
    found = [
        Question(
            key="lost",
            prompt=f"Under **{label}**, how much of BE job {JOB}'s work is lost?",
            kind="choice",
            options=options,
            accepted=(fmt.duration(lost),),
            answer=f"{fmt.duration(lost)} lost",
            explanation=(
                f"Job {JOB} had run {fmt.duration(_stopped(run))} when it was stopped "
                f"({'preempted' if how == PREEMPTED else 'its node failed'}). With `checkpoint = {mode}` a job "
                f"{KEEPS[mode]}. It kept {fmt.duration(_stopped(run) - lost)}, so "
                f"{fmt.duration(lost)} of work is redone after the TE job."
            ),
        )
    ]
    pair = {h: runs.get(unchosen_label(h, mode)) for h in (PREEMPTED, FAILED)}
    if all(r is not None for r in pair.values()):
        finish = {h: float(_job(r)["finish"]) for h, r in pair.items()}
        choices = ("being preempted", "its node failing", "the same")
        answer = choices[2] if finish[PREEMPTED] == finish[FAILED] else choices[int(finish[FAILED] > finish[PREEMPTED])]
        found.append(
            Question(
                key="worse",
                prompt=f"With `checkpoint = {mode}`, what costs job {JOB} more: being preempted or its node failing?",
                kind="choice",
                options=choices,
                accepted=(answer,),
                answer=answer,
                explanation=(
                    f"Preempted, job {JOB} loses {fmt.duration(_lost(pair[PREEMPTED]))} and finishes at "
                    f"{fmt.clock(finish[PREEMPTED])}; when its node fails it loses {fmt.duration(_lost(pair[FAILED]))} "
                    f"and finishes at {fmt.clock(finish[FAILED])}. Both pay the 60 s restore and wait for the same "
                    f"TE job; only what the mode kept differs. With `{mode}` the job {KEEPS[mode]}."
                ),
            )
        )
    return tuple(found)


# --- (g) the checkpoint interval ------------------------------------------------------------------
INTERVALS = (600.0, 1200.0, 1800.0, 3600.0, 7200.0)
COST = 300.0  # each checkpoint pauses the job 5 minutes
#: node-0 fails at 50 min and at 2 h 30 min, down a minute each time
FAILURES = (("node-0", 3000.0, 3060.0, "failure"), ("node-0", 9000.0, 9060.0, "failure"))
INTERVAL_SETUP = (
    "BE job 1 trains on the whole node for 4 hours and checkpoints periodically; each checkpoint pauses it "
    f"{fmt.duration(COST)} (`checkpoint_cost`: it holds its GPUs and makes no progress; a checkpoint counts once "
    "its pause is over). node-0 fails twice, at 50 minutes and at 2 h 30 min, down a minute each time; after "
    "each failure the job restarts from its last counted checkpoint and pays the 60 s restore. Checkpoint often "
    "and the pauses (green) add up; checkpoint rarely and each failure throws away more work (hatched). Which "
    "interval finishes job 1 first?"
)
#: each interval's pauses, lost work and finish (checked by hand in tests/test_lesson_interruptions.py)
INTERVAL_OUTCOMES = {
    600.0: (
        "Every 10 minutes: 23 pauses (115.0 min), and the two failures throw away only 13.0 min of work: it "
        "finishes at day 1 06:12:00."
    ),
    1200.0: (
        "Every 20 minutes: 13 pauses (65.0 min). The failure at 50 minutes comes the instant the second pause would "
        "end, so that checkpoint never counts: 40.0 min of work lost in all; it finishes at day 1 05:47:00."
    ),
    1800.0: (
        "Every 30 minutes: 7 pauses (35.0 min) and 43.0 min of work lost: the earliest finish, at day 1 05:22:00."
    ),
    3600.0: (
        "Every hour: 3 pauses (15.0 min), but the first failure comes before any checkpoint and the second 33 "
        "minutes after one: 83.0 min of work lost; it finishes at day 1 05:42:00."
    ),
    7200.0: (
        "Every 2 hours: 1 pause (5.0 min), but both failures find no checkpoint: 2.5 h of work lost; it finishes "
        "last, at day 1 06:37:00."
    ),
}
INTERVAL_SUMMARY = (
    "From every 10 to every 30 minutes the finish comes earlier as the pauses shrink; beyond, it comes later as "
    "each failure throws more work away. The best interval here, 30 minutes, is near Young and Daly's "
    "sqrt(2 x cost x M), M the run time per failure: 40.0 min."
)


def every(interval: float) -> str:
    """A variant's label: ``every 30.0 min``."""
    return f"every {fmt.duration(interval)}"


def interval_config(interval: float) -> SimConfig:
    return SimConfig(policy="fifo", checkpoint="periodic", checkpoint_interval=interval, checkpoint_cost=COST)


def pauses(run: Any) -> int:
    """The checkpoint pauses job 1 took (counted or cut short by a failure)."""
    seg = run.segments
    return int(seg[(seg["job_id"].astype(str) == JOB) & (seg["kind"] == "checkpoint")]["start"].nunique())


def _n(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def young_daly(run: Any) -> float:
    """sqrt(2 x cost x M), M the job's run time per failure in ``run`` (inf without failures)."""
    fails = int(_job(run)["failures"]) if "failures" in run.jobs else 0
    ran = float(_job(run)["finish"]) - sum(end - start for _, start, end, _ in FAILURES)  # it restarts at once
    return math.sqrt(2 * COST * ran / fails) if fails else math.inf


def interval_questions(runs: Mapping[str, Any], label: str) -> tuple[Question, ...]:
    """Lesson (g)'s questions about the variant ``label``: its checkpoint pauses, and which interval
    finishes job 1 first (every variant's finish, pauses and lost work as the deciding values)."""
    run = runs[label]
    counts = tuple(str(n) for n in sorted({pauses(r) for r in runs.values()}))
    finish = {name: float(_job(r)["finish"]) for name, r in runs.items()}
    best = min(finish, key=lambda name: (finish[name], name))
    each = "; ".join(
        f"{name}: finishes at {fmt.clock(finish[name])} ({_n(pauses(r), 'pause')}, {fmt.duration(_lost(r))} lost)"
        for name, r in runs.items()
    )
    return (
        Question(
            key="pauses",
            prompt=f"Under **{label}**, how many checkpoint pauses does job {JOB} take?",
            kind="choice",
            options=counts,
            accepted=(str(pauses(run)),),
            answer=_n(pauses(run), "pause"),
            explanation=(
                f"{_n(pauses(run), 'pause')} of {fmt.duration(COST)} hold the node for {fmt.duration(pauses(run) * COST)} "
                f"without progress, and the two failures throw away {fmt.duration(_lost(run))} of work since the "
                f"last counted checkpoint: job {JOB} finishes at {fmt.clock(finish[label])}."
            ),
        ),
        Question(
            key="best",
            prompt=f"Which checkpoint interval finishes job {JOB} first?",
            kind="choice",
            options=tuple(runs),
            accepted=(best,),
            answer=best,
            explanation=(
                f"{each}. Shorter intervals pay more pauses, longer ones lose more work at each failure, so the "
                f"finish is earliest in between. Young and Daly's first-order rule sqrt(2 x cost x M), M the run "
                f"time per failure, gives {fmt.duration(young_daly(runs[best]))} here."
            ),
        ),
    )
