"""The regime facts of the Learn page (DESIGN.md section 7), each with the Explore scenario
that shows it; their numbers come from :mod:`dashboard.learn.learn_numbers`. Scenarios are built as :class:`Scenario` values so a test can check that every
link parses back without a warning."""

from __future__ import annotations

from dataclasses import dataclass, field

from dashboard.learn.learn_numbers import LearnNumbers
from dashboard.shared.scenario import Scenario
from simcore.core import fmt
from simcore.core.model import SimConfig


@dataclass(frozen=True)
class RegimeFact:
    text: str
    link_label: str
    scenario: Scenario = field(default_factory=Scenario)

    @property
    def query(self) -> dict[str, str | list[str]]:
        # "source" always, so even a default scenario reads as a link, not as an empty URL
        return {"source": self.scenario.source, **self.scenario.to_query()}


ALL_SIX = ("fifo", "priority", "k8s", "lrtp", "random", "fitgpp")

#: The Learn page's paragraph on the two controls of our own (docs/policies.md "Beyond the paper").
BEYOND_PAPER = (
    "Two controls go beyond the paper. **`min_runtime`** (every preemptive policy; Slurm calls it "
    "`PreemptExemptTime`) exempts a BE job from preemption until its current run segment has lasted "
    "that many seconds, so a job that has just (re)started is not thrown out again at once; a TE job "
    "that finds no other victim waits, and preempts the moment the exemption ends. **`fitdelay`** is our "
    "own policy. Where a preemption loses nothing (`checkpoint = on_preempt`) it is fitgpp, `P` cap "
    "included. Where it loses work, it takes the fewest victims like fitgpp, but among those sets it picks "
    "the one that delays BE least, counting in seconds the work a preemption would lose, the grace and "
    "restore time and, with `periodic` checkpoints, `reentry` seconds per unit of room the victims give up "
    "beyond what the TE job needs (a bigger victim waits longer to get back in); it has no `P` cap there (a "
    "job that has just restarted loses nothing), and it preempts nobody while a running BE job that would "
    "make room finishes within the grace period (the TE job gets in no later). fitgpp ranks the lost work "
    "only third, so without checkpoints it throws away hours of work to save a little room. Its measured "
    "effect in each regime, and where it does not win, is section 8 of docs/RESULTS.md."
)
#: The Learn page's explanation of what a preemption costs (the mechanics of DESIGN.md section 2).
MECHANICS = """
When a TE job does not fit, a preemptive policy picks running BE jobs as **victims** and the
engine signals them. What happens next is the same for every policy:

- **Grace period** (`grace`, seconds): the victim stops making progress at the signal but keeps
  its GPUs for the grace period, its chance to write a checkpoint. The TE job waits for it. In
  the Gantt this is the crossed grey bar after the black ×.
- **Checkpoint** (`checkpoint`): what the victim keeps. `on_preempt`: the grace period saves
  everything, nothing is lost. `periodic`: only the last whole checkpoint interval
  (`checkpoint_interval`, every 30 min by default) is kept, the work since then is lost.
  `none`: everything is lost and the job restarts from scratch. Lost work has to be run again.
- **Restore** (`restore`, seconds): when the victim starts again it first reloads its
  checkpoint, holding its GPUs without progress (the dotted yellow bar), in every mode.

So one preemption costs the victim grace + restore + lost work + the time it waits in the queue
for room again. Lesson (c) below shows the three checkpoint modes on the same preemption.
"""
PAPER = Scenario(source="generate", preset="paper", seeds=3)


def regime_facts(n: LearnNumbers) -> tuple[RegimeFact, ...]:
    """The facts, every number in them taken from ``n`` (the rows behind docs/RESULTS.md)."""
    te, b50, b95 = n.fitgpp_trio
    study = f"{n.seeds} seeds of {n.jobs:,} jobs"
    return (
        RegimeFact(
            "**Where the paper's picture appears**: a busy cluster (offered load 1.0) whose BE work is "
            "mostly whole-node training, 30% of jobs TE (the `paper` preset, 16 nodes × 8 GPUs). Against "
            f"fifo ({study}), fitgpp changes the TE p95 slowdown by {fmt.pct(te)}, the BE median by "
            f"{fmt.pct(b50)} and the BE p95 by {fmt.pct(b95)}.",
            "Open the paper regime (3 seeds, 4,000 jobs each)",
            PAPER,
        ),
        RegimeFact(
            f"**Ordering alone is not enough**: `priority` (TE first, no preemption) leaves the TE p95 "
            f"slowdown at {fmt.number(n.priority_te_p95)}, {fmt.number(n.priority_te_p95 / n.fitgpp_te_p95)}× fitgpp's "
            f"{fmt.number(n.fitgpp_te_p95)}, because a TE job still waits for a running whole-node BE job to "
            "finish. Preemption is what makes TE latency low.",
            "Compare priority with fitgpp (demo preset, 5 seeds)",
            Scenario(source="generate", preset="demo", seeds=5, policies=("fifo", "priority", "fitgpp")),
        ),
        RegimeFact(
            "**How you preempt matters for BE**: the naive preemptors `k8s`, `lrtp` and `random` cost BE "
            f"jobs {fmt.tenths(n.naive_gap_p50[0])}-{fmt.tenths(n.naive_gap_p50[1])} points more change against fifo at "
            f"the median and {fmt.tenths(n.naive_gap_p95[0])}-{fmt.tenths(n.naive_gap_p95[1])} at p95 than fitgpp, which "
            "picks victims that fit the TE job tightly and caps preemptions per job (`P`).",
            "Compare all six policies (paper preset, 3 seeds)",
            Scenario(source="generate", preset="paper", seeds=3, policies=ALL_SIX),
        ),
        RegimeFact(
            "**Without checkpoints, lost work decides**: with `checkpoint = none` a preempted job restarts "
            "from scratch, and the BE median slowdown changes against fifo by "
            + ", ".join(f"{fmt.pct(v)} ({p})" for p, v in n.none_be_p50_pct.items())
            + (", the largest BE effect of any setting in docs/RESULTS.md" if n.none_is_largest else "")
            + ". fitgpp, which ranks lost work only "
            f"third, throws away {n.none_lost_fitgpp / 3600:,.0f} hours of job run time per run against "
            f"{n.none_lost_k8s / 3600:,.0f} for k8s, which preempts the most recently started jobs, and "
            f"its BE change against fifo is {fmt.signed(n.none_gap_p50)} points (median) and {fmt.signed(n.none_gap_p95)} "
            "(p95) worse than k8s's. Our `fitdelay` prices lost work and the room its victims give up in "
            "the same unit of seconds (see above; lesson (d) shows one such decision).",
            "Compare k8s, fitgpp and fitdelay with checkpoint = none",
            Scenario(
                source="generate",
                preset="paper",
                seeds=3,
                policies=("fifo", "k8s", "fitgpp", "fitdelay"),
                knobs=SimConfig(checkpoint="none"),
            ),
        ),
        RegimeFact(
            "**Under strict head-of-line blocking the picture changes**: with `backfill = none` (classic "
            "HPC FIFO), TE-first ordering alone fills the holes strict FIFO leaves, so `priority` changes "
            f"the BE median by {fmt.pct(n.priority_none_be_p50_pct)} against fifo (with greedy backfill: "
            f"{fmt.pct(n.priority_be_p50_pct)}).",
            "Open the paper regime with backfill = none",
            Scenario(source="generate", preset="paper", seeds=3, knobs=SimConfig(backfill="none")),
        ),
        RegimeFact(
            "**Protecting big jobs removes most of the benefit**: with `s` = 2 (a victim may take at most "
            "twice the TE job's dominant share) whole-node BE jobs are rarely victims; fitgpp preempts "
            f"{fmt.number(n.s2_preemptions)} times per run instead of {fmt.number(n.fitgpp_preemptions)}, and its TE p95 "
            f"change against fifo, {fmt.pct(n.s2_te_p95_pct)}, is close to priority's "
            f"{fmt.pct(n.priority_te_p95_pct)}.",
            "Compare priority with fitgpp at s = 2",
            Scenario(
                source="generate",
                preset="paper",
                seeds=3,
                policies=("fifo", "priority", "fitgpp"),
                knobs=SimConfig(s=2.0),
            ),
        ),
        RegimeFact(
            "**Small runs are noisy**: the `demo` preset (400 jobs on 4 nodes) shows the TE side of the "
            "picture, but the BE differences between fitgpp and the naive preemptors are within the "
            "seed-to-seed spread at this size. Look at the ± on the cards.",
            "Open the demo preset with 10 seeds",
            Scenario(
                source="generate", preset="demo", seeds=10, policies=("fifo", "priority", "k8s", "lrtp", "fitgpp")
            ),
        ),
        RegimeFact(
            "**Overload depends on length**: with load ≥ 1 the queue grows over the trace, so every "
            "number depends on the number of jobs; report it with the result. Here the paper regime with "
            "twice the jobs.",
            "Open the paper regime with 8,000 jobs",
            Scenario(source="generate", preset="paper", gen=(("jobs", "8000"),)),
        ),
    )
