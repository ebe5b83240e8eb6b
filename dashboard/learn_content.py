"""The regime facts of the Learn page (DESIGN.md section 7), each with the Explore scenario
that shows it. Scenarios are built as :class:`Scenario` values so a test can check that every
link parses back without a warning."""

from __future__ import annotations

from dataclasses import dataclass, field

from dashboard.scenario import Scenario
from simcore.model import SimConfig


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

#: The Learn page's paragraph on the two controls of our own (README "Beyond the paper").
BEYOND_PAPER = (
    "Two controls go beyond the paper. **`min_runtime`** (every preemptive policy; Slurm calls it "
    "`PreemptExemptTime`) exempts a BE job from preemption until its current run segment has lasted "
    "that many seconds, so a job that has just (re)started is not thrown out again at once; a TE job "
    "that finds no other victim waits, and preempts the moment the exemption ends. **`fitdelay`** is our "
    "own policy: like fitgpp it takes the fewest victims, but among those sets it picks the one that delays "
    "BE least, counting in seconds the work a preemption would lose (which depends on the `checkpoint` "
    "mode), the grace and restore time, and `reentry` seconds per unit of room the victims give up beyond "
    "what the TE job needs (a bigger victim waits longer to get back in). fitgpp ranks the lost work only "
    "third, so without checkpoints it throws away hours of work to save a little room; fitdelay weighs "
    "both in one unit, and with `on_preempt` (nothing lost) it chooses like fitgpp. Its measured effect "
    "in each regime, and where it does not win, is section 8 of docs/RESULTS.md."
)
PAPER = Scenario(source="generate", preset="paper", seeds=3)

REGIME_FACTS: tuple[RegimeFact, ...] = (
    RegimeFact(
        "**Where the paper's picture appears**: a busy cluster (offered load 1.0) whose BE work is "
        "mostly whole-node training, 30% of jobs TE (the `paper` preset, 16 nodes × 8 GPUs). Against "
        "fifo, fitgpp cuts the TE p95 slowdown by about 99%, while the BE median rises by about 14% "
        "and the BE p95 by about 20%.",
        "Open the paper regime (3 seeds, 4,000 jobs each)",
        PAPER,
    ),
    RegimeFact(
        "**Ordering alone is not enough**: `priority` (TE first, no preemption) leaves the TE p95 "
        "slowdown about 4× fitgpp's, because a TE job still waits for a running whole-node BE job "
        "to finish. Preemption is what makes TE latency low.",
        "Compare priority with fitgpp (demo preset, 5 seeds)",
        Scenario(source="generate", preset="demo", seeds=5, policies=("fifo", "priority", "fitgpp")),
    ),
    RegimeFact(
        "**How you preempt matters for BE**: the naive preemptors `k8s`, `lrtp` and `random` cost BE "
        "jobs about 7-8 points more at the median and 11-12 at p95 than fitgpp, which picks victims "
        "that fit the TE job tightly and caps preemptions per job (`P`).",
        "Compare all six policies (paper preset, 3 seeds)",
        Scenario(source="generate", preset="paper", seeds=3, policies=ALL_SIX),
    ),
    RegimeFact(
        "**Under strict head-of-line blocking the picture changes**: with `backfill = none` (classic "
        "HPC FIFO), TE-first ordering alone fills the holes strict FIFO leaves, and BE jobs improve "
        "too.",
        "Open the paper regime with backfill = none",
        Scenario(source="generate", preset="paper", seeds=3, knobs=SimConfig(backfill="none")),
    ),
    RegimeFact(
        "**Protecting big jobs removes the benefit**: with `s` small enough that whole-node BE jobs "
        "are never victims (here s = 2: a victim may take at most twice the TE job's dominant share), "
        "fitgpp has nothing to preempt in this regime and degenerates to priority.",
        "Compare priority with fitgpp at s = 2",
        Scenario(
            source="generate", preset="paper", seeds=3, policies=("fifo", "priority", "fitgpp"), knobs=SimConfig(s=2.0)
        ),
    ),
    RegimeFact(
        "**Small runs are noisy**: the `demo` preset (400 jobs on 4 nodes) shows the TE side of the "
        "picture, but the BE differences between fitgpp and the naive preemptors are within the "
        "seed-to-seed spread at this size. Look at the ± on the cards.",
        "Open the demo preset with 10 seeds",
        Scenario(source="generate", preset="demo", seeds=10, policies=("fifo", "priority", "k8s", "lrtp", "fitgpp")),
    ),
    RegimeFact(
        "**Without checkpoints, lost work decides**: with `checkpoint = none` a preempted job restarts "
        "from scratch, so fitgpp, which ranks lost work only third, loses far more work than k8s, which "
        "always preempts the most recently started jobs. Our `fitdelay` prices lost work and the room its "
        "victims give up in the same unit of seconds (see above).",
        "Compare k8s, fitgpp and fitdelay with checkpoint = none",
        Scenario(source="generate", preset="paper", seeds=3, policies=("fifo", "k8s", "fitgpp", "fitdelay"),
                 knobs=SimConfig(checkpoint="none")),  # fmt: skip
    ),
    RegimeFact(
        "**Overload depends on length**: with load ≥ 1 the queue grows over the trace, so every "
        "number depends on the number of jobs; report it with the result. Here the paper regime with "
        "twice the jobs.",
        "Open the paper regime with 8,000 jobs",
        Scenario(source="generate", preset="paper", gen=(("jobs", "8000"),)),
    ),
)
