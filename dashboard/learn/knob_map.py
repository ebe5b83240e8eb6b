"""The table mapping this simulator's knobs to what operators set in real schedulers, defined once
and rendered to the Learn page and to docs/policies.md (``tests/test_knob_map.py`` keeps the doc equal).

Every option name was checked in the product's own documentation or source (the sources are listed
under the table); "no direct equivalent" says so where we found none. Pure: no Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass

NONE = "no direct equivalent"
BEGIN = "<!-- knob-map:begin (generated from dashboard/learn/knob_map.py) -->"
END = "<!-- knob-map:end -->"


@dataclass(frozen=True)
class KnobRow:
    knob: str  # this simulator's knob (or rule), in backticks in the table
    meaning: str
    slurm: str
    kubernetes: str
    kueue: str
    kai: str  # NVIDIA KAI-Scheduler


PRODUCTS = ("Slurm", "Kubernetes", "Kueue", "KAI-Scheduler")

ROWS: tuple[KnobRow, ...] = (
    KnobRow(
        "TE / BE classes",
        "which jobs may preempt which",
        "`PriorityTier` of the partition or QOS (`PreemptType=preempt/partition_prio` or `preempt/qos`)",
        "a `PriorityClass` per class, set on pods by `priorityClassName`; `preemptionPolicy: Never` for a class that must not preempt",
        "workload priority (a priority class) with the ClusterQueue's `preemption` policies",
        "queue and workload priority; only preemptible (low-priority) workloads are victims",
    ),
    KnobRow(
        "policy (victim choice)",
        "which running BE jobs are taken",
        "`PreemptMode` says what happens to a victim, not which is taken; " + NONE + " for fitgpp's ranking",
        "kube-scheduler's DefaultPreemption, which our `k8s` models (one BE priority level, no budgets)",
        "`withinClusterQueue`, and `reclaimWithinCohort` (`Never`, `LowerPriority`, `Any`), say who may be taken",
        NONE + " for fitgpp's ranking",
    ),
    KnobRow(
        "grace",
        "seconds a victim keeps its GPUs to checkpoint",
        "`GraceTime` (per partition or QOS)",
        "`terminationGracePeriodSeconds` (pod spec, 30 s by default)",
        "the pods' `terminationGracePeriodSeconds`",
        "the pods' `terminationGracePeriodSeconds`",
    ),
    KnobRow(
        "checkpoint",
        "what a victim keeps: everything, whole intervals, nothing",
        "`PreemptMode=REQUEUE` (restart; the job's own checkpoints decide what is kept), `SUSPEND`, `CANCEL`",
        NONE + " (the application checkpoints on SIGTERM)",
        NONE + " (the application checkpoints)",
        NONE + " (the application checkpoints)",
    ),
    KnobRow("restore", "seconds to reload a checkpoint on restart", NONE, NONE, NONE, NONE),
    KnobRow(
        "min_runtime",
        "a BE job is not a victim until its run segment lasted this long",
        "`PreemptExemptTime`",
        NONE,
        NONE,
        "`preempt-min-runtime` and `reclaim-min-runtime` (per node pool or queue)",
    ),
    KnobRow("P", "max preemptions per BE job", NONE, NONE, NONE, NONE),
    KnobRow("s", "largest victim share, as a multiple of the TE job's", NONE, NONE, NONE, NONE),
)

#: where each name above was checked
SOURCES = (
    "Slurm: https://slurm.schedmd.com/preempt.html and slurm.conf (`GraceTime`, `PreemptExemptTime`, "
    "`PreemptMode`, `PreemptType`, `PriorityTier`)",
    "Kubernetes: https://kubernetes.io/docs/concepts/configuration/pod-priority-preemption/ "
    "(`PriorityClass`, `priorityClassName`, `preemptionPolicy`, graceful termination of victims)",
    "Kueue: the ClusterQueue API, `ClusterQueuePreemption` (`withinClusterQueue`, `reclaimWithinCohort`); "
    "we found no option named `PreemptionLimit`",
    "KAI-Scheduler: docs/developer/designs/min-runtime in github.com/NVIDIA/KAI-Scheduler "
    "(`preempt-min-runtime`, `reclaim-min-runtime`)",
)


def markdown() -> str:
    """The table and its sources as Markdown: the same text on Learn and in docs/policies.md."""
    head = "| knob here | meaning | " + " | ".join(PRODUCTS) + " |"
    rule = "|" + "---|" * (2 + len(PRODUCTS))
    knob = lambda r: r.knob if " " in r.knob else f"`{r.knob}`"  # noqa: E731  (a rule's name is prose)
    body = [f"| {knob(r)} | {r.meaning} | {r.slurm} | {r.kubernetes} | {r.kueue} | {r.kai} |" for r in ROWS]
    sources = ["", "Names checked in:", ""] + [f"- {s}" for s in SOURCES]
    return "\n".join([head, rule, *body, *sources])


def doc_block() -> str:
    """The generated block of docs/policies.md, markers included."""
    return f"{BEGIN}\n{markdown()}\n{END}"
