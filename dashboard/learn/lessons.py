"""Step-through lessons for Learn: tiny bundled scenarios to follow job by job.

A lesson is one workload and one cluster from ``sample_workloads/lessons/`` and a few
*variants* (a policy, or one knob changed) run on the same jobs, so a class can step through
the same instants under each and see what changes. Its setup says what the jobs are and never what
happens: each variant's outcome (and the lesson's summary) is shown once its questions are answered. The files are a handful of jobs on one to
five nodes of 4 GPUs, far inside every limit of :mod:`dashboard.shared.demo`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dashboard.learn import interruption_lessons as il
from dashboard.learn.exercises import Question
from simcore.core.downtime import NodeEvents
from simcore.core.model import ClusterSpec, JobTable, Queue, QueueSpec, SimConfig
from simcore.workload import load_cluster, load_workload

LESSON_DIR = Path(__file__).resolve().parents[2] / "sample_workloads" / "lessons"


@dataclass(frozen=True)
class Variant:
    """One way to run a lesson's jobs: a label for the selector, the full config, what happens under it
    (Markdown, shown once its questions are answered: it gives the answers), the down windows of the
    lesson's nodes in this variant (node, start, end, kind; none by default) and the teams' queues it runs
    with (None: none; DESIGN rule 11)."""

    label: str
    config: SimConfig
    outcome: str
    down: tuple[tuple[str, float, float, str], ...] = ()
    queues: QueueSpec | None = None


@dataclass(frozen=True)
class Lesson:
    key: str
    title: str
    workload: str  # file name in LESSON_DIR
    cluster: str  # file name in LESSON_DIR
    variants: tuple[Variant, ...]
    setup: str  # what the jobs are and what to predict (Markdown, our own text): never an answer
    summary: str = ""  # what the variants show side by side, once every variant is answered
    #: the lesson's own questions about one variant (runs by label, the variant's label), beside the usual ones
    ask: Callable[[Mapping[str, Any], str], tuple[Question, ...]] | None = None

    def variant(self, label: str) -> Variant:
        return next((v for v in self.variants if v.label == label), self.variants[0])

    @property
    def text(self) -> str:
        """All its words: the setup, each variant's outcome and the summary."""
        return "\n\n".join([self.setup, *(v.outcome for v in self.variants), self.summary])


#: the teams of lesson (h): (name, quota, borrow limit, weight); its variants change one value each
TEAMS = (("vision", 4.0, math.inf, 1.0), ("nlp", 2.0, math.inf, 1.0), ("research", 2.0, math.inf, 1.0))


def teams(**changed: tuple[float, float]) -> QueueSpec:
    """Lesson (h)'s queues with ``team=(borrow_limit, weight)`` changed."""
    return QueueSpec(tuple(Queue(n, g, *changed.get(n, (b, w))) for n, g, b, w in TEAMS))


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        key="hol",
        title="(a) Head-of-line blocking: FIFO, TE-first ordering, preemption",
        workload="hol_blocking.csv",
        cluster="one_node.yaml",
        variants=(
            Variant(
                "fifo",
                SimConfig(policy="fifo"),
                "Under **fifo** the TE job waits behind *both* BE jobs (head-of-line blocking).",
            ),
            Variant(
                "priority",
                SimConfig(policy="priority"),
                "**priority** puts TE jobs first in the queue, so the TE job only waits for job 1 to finish.",
            ),
            Variant(
                "fitgpp",
                SimConfig(policy="fitgpp"),
                "**fitgpp** preempts job 1: after the grace period the TE job starts, and job 1 restarts from "
                "its checkpoint when the TE job is done.",
            ),
        ),
        setup=(
            "One node with 4 GPUs. BE job 1 takes the whole node for an hour; BE job 2 (the whole node "
            "again) arrives a minute later; then TE job 3 arrives, wanting 1 GPU for 10 minutes. What does "
            "each policy do with TE job 3, and how long does it wait?"
        ),
    ),
    Lesson(
        key="victim",
        title="(b) Which victim: k8s against fitgpp on the same decision",
        workload="which_victim.csv",
        cluster="two_nodes.yaml",
        variants=(
            Variant(
                "k8s",
                SimConfig(policy="k8s"),
                "**k8s** gives back the longest-running jobs first while the TE job still fits, so on either "
                "node it stops the two young 1-GPU jobs, and it picks node-1, whose victims started later: "
                "**2 preemptions**.",
            ),
            Variant(
                "fitgpp",
                SimConfig(policy="fitgpp"),
                "**fitgpp** wants the fewest victims: job 1 or job 4 alone makes room, and job 1's place fits "
                "the TE job exactly (slack 0 against 0.5 on node-1): **1 preemption**.",
            ),
        ),
        setup=(
            "Two nodes with 4 GPUs, all busy with BE jobs. On node-0, job 1 (2 GPUs) started first, then "
            "jobs 2 and 3 (1 GPU each); on node-1, job 4 (2 GPUs) then jobs 5 and 6 (1 GPU, little CPU "
            "and memory, so some are left free). TE job 7 wants 2 GPUs for 10 minutes. Which jobs does each "
            "policy stop for it?"
        ),
        summary=(
            "Each victim waits out the TE job (30 s grace + 10 min + 60 s restore = 11.5 min), so BE loses "
            "23 min in all under k8s and 11.5 min under fitgpp: compare the preemptions and the BE slowdown "
            "in the table."
        ),
    ),
    Lesson(
        key="price",
        title="(c) The price of preemption: grace, restore and the three checkpoint modes",
        workload="price_of_preemption.csv",
        cluster="one_node.yaml",
        variants=(
            Variant(
                "checkpoint on_preempt",
                SimConfig(policy="fitgpp", checkpoint="on_preempt"),
                "With `on_preempt` the grace period saves everything: job 1 loses no work, and pays only the "
                "grace and the restore.",
            ),
            Variant(
                "checkpoint periodic (every 30 min)",
                SimConfig(policy="fitgpp", checkpoint="periodic"),
                "With `periodic` checkpoints only the last whole interval is kept: the work since it is thrown "
                "away and redone.",
            ),
            Variant(
                "checkpoint none",
                SimConfig(policy="fitgpp", checkpoint="none"),
                "With `none` nothing is kept: job 1 restarts from scratch and redoes everything it had done.",
            ),
        ),
        setup=(
            "BE job 1 trains on the whole node for 2 hours; after 45 minutes TE job 2 arrives, wanting 1 GPU. "
            "The policy is fitgpp in every variant; only the checkpoint mode changes. Predict what fitgpp does, "
            "then step through what it costs in each mode: a grace period (crossed bar) and a restore (dotted "
            "bar) are paid every time, and the work done since the last checkpoint is thrown away and redone."
        ),
    ),
    Lesson(
        key="fitdelay",
        title="(d) Pricing lost work: fitgpp against fitdelay without checkpoints",
        workload="lost_work.csv",
        cluster="one_node.yaml",
        variants=(
            Variant(
                "fitgpp",
                SimConfig(policy="fitgpp", checkpoint="none"),
                "**fitgpp** ranks the tightest fit first and takes job 1, throwing its hours away.",
            ),
            Variant(
                "fitdelay",
                SimConfig(policy="fitdelay", checkpoint="none"),
                "**fitdelay** counts the lost work in seconds and takes job 2.",
            ),
        ),
        setup=(
            "No checkpoints (`checkpoint = none`): a victim restarts from scratch. BE job 1 (1 GPU) "
            "has run for almost 3 hours, BE job 2 (3 GPUs) started a minute ago; TE job 3 wants 1 "
            "GPU. Which job does each policy stop?"
        ),
    ),
    Lesson(
        key="gang",
        title="(e) Stopping a gang: one GPU's room costs every worker",
        workload="gang_victim.csv",
        cluster="five_nodes.yaml",
        variants=(
            Variant(
                "k8s",
                SimConfig(policy="k8s", checkpoint="none"),
                "**k8s** counts a victim set in workers, 1 against 4: it stops job 5 twenty seconds before its "
                "end, throwing away 49.7 min of work on 4 GPUs (3.3 h of GPU time) that job 5 redoes after the "
                "TE job: it ends 61.2 min late.",
            ),
            Variant(
                "fitgpp (s = 1)",
                SimConfig(policy="fitgpp", checkpoint="none", s=1.0),
                "**fitgpp** with the size cap `s = 1` may only stop jobs no larger per worker than the TE job: "
                "job 5 (4 GPUs) is out, each 1-GPU worker of the gang passes, so it stops the whole gang, 4 "
                "workers on 4 nodes losing 39.7 min each (2.6 h of GPU time); 20 s later job 5 ends and the "
                "TE job takes its node anyway, so the gang was stopped for nothing; it ends 41.2 min late.",
            ),
            Variant(
                "fitdelay",
                SimConfig(policy="fitdelay", checkpoint="none"),
                "**fitdelay** sees that job 5 frees the room within the grace period and stops nobody: the TE "
                "job waits 20 s and nothing is lost.",
            ),
        ),
        setup=(
            "A *gang* is a job whose workers start, run and stop together (distributed training): "
            "stopping one worker stops them all, on every node, and with `checkpoint = none` all of "
            "them redo their work. Five nodes with 4 GPUs. TE services 1-4 hold 3 GPUs on node-0 to "
            "node-3; BE gang 6 (4 workers of 1 GPU) took the last GPU of each at 10 min, so on node-0 "
            "one of its workers is the only BE job; BE job 5 fills node-4 alone and ends at 50 min. "
            "At 49 min 40 s TE job 7 wants 1 GPU. What does each policy stop for it?"
        ),
    ),
    Lesson(
        key="unchosen",
        title="(f) Interruptions you did not choose: a node failure against a preemption",
        workload="price_of_preemption.csv",
        cluster="one_node.yaml",
        variants=tuple(
            Variant(
                il.unchosen_label(how, mode),
                SimConfig(policy="fitgpp", checkpoint=mode),
                il.UNCHOSEN_OUTCOMES[how, mode],
                down,
            )
            for mode in il.MODES
            for how, down in ((il.PREEMPTED, ()), (il.FAILED, il.FAILURE_AT_TE))
        ),
        setup=il.UNCHOSEN_SETUP,
        summary=il.UNCHOSEN_SUMMARY,
        ask=il.unchosen_questions,
    ),
    Lesson(
        key="interval",
        title="(g) How often to checkpoint: too often costs pauses, too rarely costs lost work",
        workload="checkpoint_interval.csv",
        cluster="one_node.yaml",
        variants=tuple(
            Variant(il.every(c), il.interval_config(c), il.INTERVAL_OUTCOMES[c], il.FAILURES) for c in il.INTERVALS
        ),
        setup=il.INTERVAL_SETUP,
        summary=il.INTERVAL_SUMMARY,
        ask=il.interval_questions,
    ),
    Lesson(
        key="quota",
        title="(h) Quota, borrowing and reclaim: teams sharing the cluster",
        workload="quota_reclaim.csv",
        cluster="two_nodes.yaml",
        variants=(
            Variant(
                "k8s",
                SimConfig(policy="k8s"),
                "Under **k8s**, with equal weights, nlp and research both borrow 1 GPU (share 1 each): a tie, "
                "so the policy's order decides and nlp's job 6 takes vision's freed GPUs at 30 min. At 40 min "
                "vision's TE job 8 is within its quota and reclaims: it stops job 6, nlp's job that started "
                "last on the node with room to make (nlp runs 5 GPUs, 3 above its quota).",
                queues=teams(),
            ),
            Variant(
                "k8s, research weight 2",
                SimConfig(policy="k8s"),
                "With research's **weight 2** its share halves (1 GPU above quota / 2 = 0.5, against nlp's 1): "
                "research's job 7 borrows the freed GPUs first, and it is job 7 that vision's TE job reclaims "
                "at 40 min.",
                queues=teams(research=(math.inf, 2.0)),
            ),
            Variant(
                "k8s, nlp borrow limit 1",
                SimConfig(policy="k8s"),
                "With nlp's **borrow limit 1** nlp may hold 3 GPUs at most and already does: its job 6 waits "
                "whatever its share, research's job 7 borrows the freed GPUs and is reclaimed at 40 min; job 6 "
                "starts only at 2 h, when nlp's own jobs end.",
                queues=teams(nlp=(1.0, 1.0)),
            ),
            Variant(
                "fifo",
                SimConfig(policy="fifo"),
                "**fifo** never preempts: vision's TE job waits 50 min, until nlp's borrowed job 6 ends. A "
                "quota is a guarantee only under a preemptive policy.",
                queues=teams(),
            ),
        ),
        setup=(
            "Three teams share two nodes of 4 GPUs, each through its queue: **vision** is guaranteed 4 GPUs "
            "(its quota), **nlp** and **research** 2 each. A team may *borrow* what the others leave idle, and "
            "a team within its quota gets its GPUs back by preempting the borrowers (*reclaim*). At first "
            "vision runs one 2-GPU job (job 1, 30 min), so nlp and research each borrow 1 GPU of vision's "
            "quota (3 GPUs each). At 10 min both add a 2-GPU job (6 and 7): no room. At 30 min job 1 ends: "
            "who borrows its 2 GPUs? The waiting team with the lower *share* (GPUs above quota / weight) "
            "goes first, ties by the policy's order; a team at its quota + borrow limit waits. At 40 min "
            "vision comes back with TE job 8 (2 GPUs). Whose job pays, under each variant?"
        ),
        summary=(
            "Weights and borrow limits decide who borrows, and so who pays when the owner comes back; the "
            "Queues tab of Explore shows the same on any workload (the ledger: who paid, who gained)."
        ),
    ),
)


def lesson(key: str) -> Lesson:
    """The lesson named ``key`` (the first one for an unknown key: keys come from a widget)."""
    return next((x for x in LESSONS if x.key == key), LESSONS[0])


def load(item: Lesson) -> tuple[JobTable, ClusterSpec]:
    """The lesson's jobs and cluster, read from its bundled files."""
    return load_workload(LESSON_DIR / item.workload).table, load_cluster(LESSON_DIR / item.cluster).cluster


def cluster_of(cluster: ClusterSpec, variant: Variant) -> ClusterSpec:
    """The lesson's cluster as ``variant`` runs on it: with its down windows, if it has any, shared by its
    queues, if it has some."""
    downed = cluster.with_node_events(NodeEvents.of(variant.down)) if variant.down else cluster
    return downed.with_queues(variant.queues)


def variant_configs(item: Lesson, cluster: ClusterSpec) -> dict[str, tuple[ClusterSpec, SimConfig]]:
    """Each variant's cluster (:func:`cluster_of` the lesson's ``cluster``) and config, by label."""
    return {v.label: (cluster_of(cluster, v), v.config) for v in item.variants}


def load_variant(item: Lesson, variant: Variant) -> tuple[JobTable, ClusterSpec]:
    """The lesson's jobs and the cluster ``variant`` runs on."""
    table, cluster = load(item)
    return table, cluster_of(cluster, variant)
