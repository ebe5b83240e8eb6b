"""Why this set and not that one: a decision record read by contrast (pure).

A decision is explained against each alternative a reader thinks of, by the policy's own key: the
first key value where the chosen set and the alternative differ separates them (the values before it
tie), told with both values in human units (:func:`simcore.policies.glossary.value_text`). The
alternatives are the other nodes' best sets (the record's ``candidates``, the runner-up first), the
other sets weighed on the chosen node, and what each policy asked on the same state would take (the
record's ``same_state`` and ``sets``, :mod:`simcore.policies.alternatives`). A set the policy did not
weigh is told apart by why: a cap keeps one of its jobs out, fewer of its jobs make room, or its
rule never builds it on that node (the set it built there is named). Used by the dashboard's *Why
this victim?*, the report and ``simcore explain``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from simcore.policies import decision
from simcore.policies.alternatives import FEWER_MAKE_ROOM
from simcore.policies.glossary import TIE_BREAK, better_words, label, term, value_text

#: why_not of a set the policy values as good as its choice, yet its rule does not build
NOT_BUILT = "its rule does not build this set"
#: why_not of a set the policy's key does not value (a drawn key, a policy outside the evaluator)
NOT_RANKED = "its key does not rank this set"

#: a cap's reason (:mod:`simcore.policies.decision`) as it reads for one set
CAP_WORDS = {
    decision.CAPPED_BY_P: "its cap P keeps out jobs already preempted P times",
    decision.LARGER_THAN_S: "its cap s keeps out jobs larger than s times the TE job",
    decision.FREES_WITHIN_GRACE: "it stops nobody while a BE job frees the room within the grace period",
    FEWER_MAKE_ROOM: "fewer of its jobs make room",
}


@dataclass(frozen=True)
class Alternative:
    """A set the chosen one is compared with: where, whose, and the policy's key values of it."""

    node: str
    jobs: tuple[str, ...]
    values: Mapping[str, Any] | None  # by key value name; None: not valued
    weighed: bool  # the policy's search weighed it
    excluded: str | None  # why the policy could not take it (a cap, FEWER_MAKE_ROOM), else None


@dataclass(frozen=True)
class Contrast:
    """The chosen set against alternatives told apart alike: by one key value, or by why not."""

    alternatives: tuple[Alternative, ...]
    key: str | None  # the first key value that differs (TIE_BREAK when none does); None: see why_not
    tied: tuple[str, ...]  # the key values tied before it
    why_not: str | None  # with key None: a cap's reason, FEWER_MAKE_ROOM, NOT_BUILT or NOT_RANKED


def _names(record: Mapping[str, Any]) -> list[str]:
    return [name for name, _ in record["key"]]


def _chosen(record: Mapping[str, Any]) -> Mapping[str, Any]:
    return record["candidates"][0]


def separate(record: Mapping[str, Any], values: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    """The first key value where `values` differ from the chosen set's (TIE_BREAK when none does),
    and the key values tied before it."""
    chosen, names = _chosen(record), _names(record)
    key = next((n for n in names if values[n] != chosen[n]), TIE_BREAK)
    return key, tuple(names if key == TIE_BREAK else names[: names.index(key)])


def compare(record: Mapping[str, Any], alt: Alternative) -> Contrast:
    """The chosen set against one alternative (module docstring)."""
    if alt.excluded is not None:
        return Contrast((alt,), None, (), alt.excluded)
    if alt.values is None or record["key"][0][1] == "drawn":
        return Contrast((alt,), None, (), NOT_RANKED)
    key, tied = separate(record, alt.values)
    if not alt.weighed and not _worse(record, key, alt.values):
        return Contrast((alt,), None, (), NOT_BUILT)
    return Contrast((alt,), key, tied, None)


def _worse(record: Mapping[str, Any], key: str, values: Mapping[str, Any]) -> bool:
    """Is a set with these values worse than the chosen one at `key` by the key's direction?"""
    if key == TIE_BREAK:
        return False
    better, mine = dict(record["key"])[key], _chosen(record)[key]
    return values[key] > mine if better == "min" else values[key] < mine


def alternative(entry: Mapping[str, Any], names: Sequence[str]) -> Alternative:
    """A record's set (a ``candidates`` or ``sets`` entry) as an alternative, by the key value `names`."""
    valued = all(entry.get(n) is not None for n in names)
    return Alternative(
        entry["node"],
        tuple(entry["job_id"]),
        {n: entry[n] for n in names} if valued else None,
        bool(entry.get("weighed", True)),
        entry.get("excluded"),
    )


def _grouped(record: Mapping[str, Any], alts: Sequence[Alternative]) -> list[Contrast]:
    """One contrast per way of being told apart, in the order first met."""
    groups: dict[tuple[Any, ...], Contrast] = {}
    for alt in alts:
        c = compare(record, alt)
        at = (c.key, c.tied, c.why_not)
        seen = groups.get(at)
        groups[at] = c if seen is None else Contrast((*seen.alternatives, alt), c.key, c.tied, c.why_not)
    return list(groups.values())


def against_nodes(record: Mapping[str, Any]) -> list[Contrast]:
    """The runner-up node's best set alone, then the other nodes' best sets, grouped."""
    names = _names(record)
    others = [alternative(c, names) for c in record["candidates"][1:]]
    if not others:
        return []
    return [compare(record, others[0]), *_grouped(record, others[1:])]


def against_same_node(record: Mapping[str, Any]) -> list[Contrast]:
    """The other sets the policy weighed on the chosen node (recorded ``sets``), grouped."""
    names, chosen = _names(record), _chosen(record)
    here = [
        alternative(s, names)
        for s in record.get("sets", ())
        if s["weighed"] and s["node"] == chosen["node"] and list(s["job_id"]) != list(chosen["job_id"])
    ]
    return _grouped(record, here)


def choice_of(record: Mapping[str, Any], other: str) -> Alternative | None:
    """What `other` would take on the same state, as an alternative valued by the record's policy
    (None: it takes no victim there)."""
    alt = record["same_state"][other]
    if not alt["victims"]:
        return None
    mine = sorted(alt["victims"])
    entry = next(s for s in record["sets"] if other in s["taken_by"] and sorted(s["job_id"]) == mine)
    return alternative(entry, _names(record))


# --- in words -----------------------------------------------------------------------------------------


def jobs_text(ids: Sequence[str]) -> str:
    return ("BE job " if len(ids) == 1 else "BE jobs ") + ", ".join(ids)


def _values(name: str, values: Sequence[Any]) -> str:
    """One value, or the least and the greatest of several."""
    distinct = sorted(set(values))
    if len(distinct) == 1:
        return value_text(name, distinct[0])
    return f"{value_text(name, distinct[0])} to {value_text(name, distinct[-1])}"


#: what a normalised value (slack) counts, beside its number
NORM_WORDS = "room left over, in fractions of the node's capacity, summed"


def reason_words(record: Mapping[str, Any], c: Contrast, ties: bool = True, brief: bool = False) -> str:
    """How the chosen set and the contrast's alternatives are told apart, e.g. "past preemptions 0
    against 1 (fewer is better)" or "its cap P keeps out jobs already preempted P times"; the tied
    values listed with `ties`, else only said to tie; `brief` (a table cell): which way is better only."""
    chosen = _chosen(record)
    if c.key is None:
        return _why_not(record, c)
    tied = ", ".join(f"{label(n)} ({value_text(n, chosen[n])})" for n in c.tied)
    head = f"tied on {tied}; " if tied and ties else ""
    if c.key == TIE_BREAK:
        return f"{head}the tie-break chose: {term(TIE_BREAK).meaning}"
    theirs = _values(c.key, [a.values[c.key] for a in c.alternatives if a.values is not None])
    notes = [NORM_WORDS] if term(c.key).unit == "norm" and not brief else []
    notes.append(better_words(c.key, dict(record["key"])[c.key]))
    if c.tied and not ties and not brief:
        notes.append("the values before it tie")
    return f"{head}{label(c.key)} {value_text(c.key, chosen[c.key])} against {theirs} ({'; '.join(notes)})"


def _why_not(record: Mapping[str, Any], c: Contrast) -> str:
    """Why the policy did not take a set it did not rank below its choice: a cap, fewer of its jobs
    making room, its rule not building it, or a draw."""
    alt = c.alternatives[0]
    if c.why_not == NOT_BUILT:
        built = _built_on(record, alt.node)
        return (
            f"its per-node rule does not build that set (by its key it would rank no worse): on node {alt.node} "
            f"it weighs {built}"
            if built
            else f"it weighs no set on node {alt.node}"
        )
    words = CAP_WORDS.get(c.why_not or "", c.why_not or "")
    if c.why_not == decision.CAPPED_BY_P and alt.values is not None and "past_preemptions" in alt.values:
        return f"{words} ({jobs_text(alt.jobs)}: past preemptions {value_text('past_preemptions', alt.values['past_preemptions'])})"
    return words


def _built_on(record: Mapping[str, Any], node: str) -> str:
    """The sets the policy weighed on `node`, in words ("" when none)."""
    sets = record.get("sets") or record["candidates"]
    return "; ".join(jobs_text(s["job_id"]) for s in sets if s["node"] == node and s.get("weighed", True))


def _where(alts: Sequence[Alternative], best: bool) -> str:
    """The alternatives by node (and jobs): "node n0's best set (BE job 3)" or, for several, by node."""
    if len(alts) == 1:
        a = alts[0]
        return f"node {a.node}'s best set ({jobs_text(a.jobs)})" if best else f"{jobs_text(a.jobs)} on node {a.node}"
    if best:
        return "the best sets of nodes " + ", ".join(a.node for a in alts)
    return "the other sets on node " + f"{alts[0].node} (" + "; ".join(jobs_text(a.jobs) for a in alts) + ")"


def node_lines(record: Mapping[str, Any]) -> list[str]:
    """A sentence per contrast with the other nodes' best sets (the runner-up named), then with the other
    sets on the chosen node."""
    lines = []
    for i, c in enumerate(against_nodes(record)):
        runner_up = ", the runner-up" if i == 0 else ""
        lines.append(f"Against {_where(c.alternatives, True)}{runner_up}: {reason_words(record, c, i == 0)}.")
    for c in against_same_node(record):
        lines.append(f"Against {_where(c.alternatives, False)}: {reason_words(record, c, False)}.")
    return lines


def policy_line(record: Mapping[str, Any], other: str) -> str:
    """What `other` would take on the same state, and, when it differs, why the record's policy did not."""
    alt = record["same_state"][other]
    if not alt["victims"]:
        return f"On the same state, {other} would take no victim: {alt['reason']}."
    own = f"{label(alt['deciding'])} decided" if alt["deciding"] else "the only node it weighed"
    took = f"{jobs_text(alt['victims'])} on node {alt['node']} ({own})"
    if sorted(alt["victims"]) == sorted(record["victims"]) and alt["node"] == record["node"]:
        return f"On the same state, {other} would take the same: {took}."
    theirs = choice_of(record, other)
    assert theirs is not None  # it took victims
    c = compare(record, theirs)
    principle = f" Principle: {term(c.key).principle}." if c.key not in (None, TIE_BREAK) else ""
    return (
        f"On the same state, {other} would take {took}; {record['policy']} did not take it: "
        f"{reason_words(record, c, False)}.{principle}"
    )


def contrast_lines(record: Mapping[str, Any]) -> list[str]:
    """Every contrast of a decision that took victims, a sentence each: the nodes, the sets on the chosen
    node, then each policy asked on the same state (none when the record holds no ``same_state``)."""
    if not record["victims"]:
        return []
    if record["key"][0][1] == "drawn":
        n = len(record["candidates"])
        return [
            f"{record['policy']} drew node {record['node']} at random among {n} feasible node{'s' if n > 1 else ''}."
        ]
    if len(record["candidates"]) < 2 and not record.get("sets"):
        return [f"It was the only set {record['policy']} weighed: no other node's removal made room."]
    lines = node_lines(record)
    return lines + [policy_line(record, other) for other in record.get("same_state", {})]


def in_brief(record: Mapping[str, Any]) -> str:
    """The decision's contrast in one clause for a story step: against the runner-up, and against each
    policy asked on the same state that would take another set."""
    if record["key"][0][1] == "drawn":
        return contrast_lines(record)[0].rstrip(".")
    cs = against_nodes(record)
    if not cs:
        return f"{record['policy']} chose it: the only victim set it weighed"
    parts = [f"{record['policy']} chose it over {_where(cs[0].alternatives, True)}: {reason_words(record, cs[0])}"]
    for other, alt in record.get("same_state", {}).items():
        theirs = choice_of(record, other) if alt["victims"] else None
        if theirs is not None and (theirs.node, sorted(theirs.jobs)) != (record["node"], sorted(record["victims"])):
            why = reason_words(record, compare(record, theirs), False)
            parts.append(f"over {other}'s choice, {_where([theirs], False)}: {why}")
    return "; ".join(parts)
