"""What each value of a policy's ordering key means, and the principle it serves: the one glossary.

Decision records name their key values (``Policy.key``) and the one that decided (``deciding``,
:func:`simcore.policies.decision.deciding`); the dashboard's *Why this victim?* and the table in
docs/policies.md (:func:`markdown_table`, checked by tests/test_explain.py) read the words here.
``unit`` says how a value reads to a person: ``count``, ``seconds`` (a duration), ``clock`` (an
instant of the run), ``norm`` (a sum of fractions of a node's capacity) or ``draw`` (a position);
:func:`value_text` writes a value so and :func:`better_words` says which way is better.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcore.core import fmt


@dataclass(frozen=True)
class Term:
    meaning: str
    principle: str
    unit: str


#: ``deciding`` when the chosen set ties the runner-up on every named value (DESIGN.md section 4)
TIE_BREAK = "tie_break"

TERMS: dict[str, Term] = {
    "victims": Term(
        "how many BE workers the set stops (one per single-node job, all the workers of a gang)",
        "fewest preemptions: every stopped job pays a grace period, a restore and maybe lost work",
        "count",
    ),
    "slack": Term(
        "how loosely the TE job fits once the set is gone: the room left on the node, as fractions of its "
        "CPU, memory and GPU capacity, summed (0 = a perfect fit)",
        "tightest fit = shortest re-scheduling interval: a victim shaped like the TE job gets its place back "
        "as soon as the TE job ends",
        "norm",
    ),
    "lost_work": Term(
        "the work the set's jobs would lose if signalled now (since their last save or start), summed",
        "least lost work: stop the jobs that throw away the least computation",
        "seconds",
    ),
    "delay": Term(
        "the BE delay the set causes: lost work + grace + restore per victim (+ reentry x slack with "
        "periodic checkpoints)",
        "least BE delay: stop the jobs whose stop costs BE the least time",
        "seconds",
    ),
    "past_preemptions": Term(
        "how often the set's jobs were already preempted, summed",
        "spread the pain: do not stop the same job again and again",
        "count",
    ),
    "earliest_start": Term(
        "when the earliest current run segment of the set's jobs started (later is better)",
        "stop the jobs that have run least since they (re)started",
        "clock",
    ),
    "earliest_victim_start": Term(
        "when the earliest current run segment of the set's jobs started (later is better)",
        "Kubernetes' rule: disturb the most recently started pods, spare the long-running ones",
        "clock",
    ),
    "min_remaining": Term(
        "the least remaining work among the set's jobs (larger is better)",
        "longest remaining time first: stop the jobs with the most work still to do",
        "seconds",
    ),
    "draw": Term(
        "the node's position among the feasible nodes, as the random draw picked it",
        "none: a uniform random choice (a baseline)",
        "draw",
    ),
    TIE_BREAK: Term(
        "every named value equal: job order (submit time, then id), then the lowest node index",
        "a fixed order so that runs are reproducible; no principle",
        "count",
    ),
}


def term(name: str) -> Term:
    """The glossary's entry for a key value; a policy registered from outside may bring values it lacks."""
    return TERMS.get(
        name, Term("a value of the policy's key, not in simcore/policies/glossary.py", "not described", "count")
    )


def label(name: str) -> str:
    """A key value's name as prose writes it: ``earliest_start`` -> ``earliest start``."""
    return name.replace("_", " ")


def value_text(name: str, value: float) -> str:
    """A key value in human units: durations and instants through :mod:`simcore.core.fmt`, never raw
    seconds; a count as it is; a normalised sum (slack) in three significant digits."""
    unit = term(name).unit
    if unit == "seconds":
        return fmt.duration(value)
    if unit == "clock":
        return fmt.clock(value)
    return f"{value:g}" if unit in ("count", "draw") else fmt.number(value)


#: per unit, the words for a smaller and a larger value being better
_BETTER = {
    "count": ("fewer is better", "more is better"),
    "seconds": ("less is better", "more is better"),
    "clock": ("earlier is better", "later is better"),
    "norm": ("lower is better", "higher is better"),
}


def better_words(name: str, better: str) -> str:
    """Which way a key value is better, in the words of its unit: "later is better" for a "max" instant."""
    if better == "drawn":
        return "drawn at random"
    low, high = _BETTER.get(term(name).unit, ("lower is better", "higher is better"))
    return low if better == "min" else high


def markdown_table() -> str:
    """The glossary as the Markdown table of docs/policies.md."""
    lines = ["| key value | meaning | principle |", "|---|---|---|"]
    lines += [f"| `{name}` | {t.meaning} | {t.principle} |" for name, t in TERMS.items()]
    return "\n".join(lines) + "\n"
