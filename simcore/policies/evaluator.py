"""The preemption evaluator: what every preemptive policy shares, written once.

In the manner of kube-scheduler's preemption (one evaluator, a plugin per policy), a policy
(:class:`PreemptivePolicy`) writes only its caps, its per-node victim rule and its ordering
key (named values, each better when ``"min"`` or ``"max"``). The evaluator:

1. keeps the candidates every cap allows (the caps are also the reasons decision records give);
2. on each node where removing all of them makes the TE job fit (in node order), asks the
   per-node rule for the victim sets it weighs there and keeps the node's best by the key;
3. chooses the node whose best set is best by the key, then the rule's tie-breaks, then the
   lowest node index; a key ``"drawn"`` instead draws one feasible node uniformly from the
   run's generator (drawn from only when some node is feasible), and asks only that node;
4. returns the victims in signal order (job order), which fixes the engine's event order.

A rule may also search every node at once, vectorised (:meth:`PreemptivePolicy.all_nodes`):
when that search finds any set, those sets are all the options and the per-node rule is not
asked (fitgpp: its 1-victim sets, which beat any larger set). Asked to explain, the evaluator
returns the same choice and each node's best set, best first (:mod:`simcore.policies.decision`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter, mul
from typing import ClassVar, NamedTuple

import numpy as np

from simcore.core import knobs
from simcore.policies.base import Cap, Explained, NodeOption, Policy, Preemption, PreemptionView


class VictimSet(NamedTuple):
    """A victim set the per-node rule weighs: its victims, the named values of the key, its tie-breaks."""

    victims: Sequence[int]  # positions into view.candidates, in any order
    values: tuple  # one per entry of the policy's key, as decision records show them
    ties: tuple = ()  # compared after the values and before the node index (smaller first)


class VictimSets(NamedTuple):
    """Victim sets of one size on many nodes at once, as columns (a vectorised per-node rule)."""

    victims: np.ndarray  # (sets x size) positions into view.candidates
    node: np.ndarray
    values: tuple[np.ndarray, ...]  # one column per entry of the policy's key
    ties: tuple[np.ndarray, ...] = ()


@dataclass(frozen=True)
class PreemptivePolicy:
    """A preemptive policy as a plugin of the evaluator; subclasses are frozen dataclasses.

    Its own knobs are the ones :data:`simcore.core.knobs.KNOBS` declares for it by name (``used_by``,
    e.g. fitgpp's ``P`` and ``s``): each is a dataclass field defaulting to the knob's default
    (:func:`simcore.core.knobs.default`), checked against the knob's range when the policy is built;
    :func:`simcore.policies.get_policy` builds it with their values from a run's config."""

    name: ClassVar[str]
    help: ClassVar[str]
    key: ClassVar[tuple[tuple[str, str], ...]]  # (name, "min" | "max" | "drawn"), which is better
    preemptive: ClassVar[bool] = True
    fifo_order: ClassVar[bool] = False  # queue by submit time only (else TE first)

    def __post_init__(self) -> None:
        own = knobs.own_knobs(self.name)
        fields = tuple(f.name for f in dataclasses.fields(self))
        if set(fields) != set(own):  # a field no knob declares would never be set from a run's config
            raise TypeError(f"policy {self.name!r}: fields {fields} are not its knobs {own} (simcore.core.knobs)")
        for name in own:
            knobs.KNOBS[name].check(getattr(self, name))

    # -- what a policy writes ---------------------------------------------------------------
    def caps(self, view: PreemptionView) -> tuple[Cap, ...]:
        """Masks of the candidates it may take, each with the reason told when it leaves none."""
        return ()

    def on_node(self, view: PreemptionView, k: int, here: list[int]) -> Iterable[VictimSet]:
        """The victim sets it weighs on node k, from `here` (positions of the allowed candidates on k,
        in job order, removing all of which makes the TE job fit); none when it takes no set there.
        The TE job fits on no node as things are (the engine asks only then), so a set is never empty
        and a lone candidate in `here` is in every set that makes the TE job fit."""
        raise NotImplementedError

    def all_nodes(self, view: PreemptionView, pos: np.ndarray) -> VictimSets | None:
        """Optional: sets found on every node at once (from the allowed candidates `pos`), tried
        first; when there are any, the per-node rule is not asked."""
        return None

    # -- what the engine asks: the evaluator ------------------------------------------------
    def victims(self, view: PreemptionView) -> Preemption | None:
        return choose(self, view)

    def explain(self, view: PreemptionView) -> Explained:
        return explain(self, view)


def size_and_least(view: PreemptionView, victims: list[int], name: str) -> VictimSet:
    """A set valued by the workers it stops and the least of column `name` over its victims (k8s's and
    lrtp's keys: fewest victims, then that least value)."""
    c = view.candidates
    col = c.column(name)
    return VictimSet(victims, (c.size(victims), min([col[p] for p in victims])))


def effective_caps(policy: PreemptivePolicy | Policy, view: PreemptionView) -> tuple[Cap, ...]:
    """The policy's caps as they apply to this view: with queues a cap limits only the candidates of the
    preemptor's own queue (TE first); reclaim candidates are limited by ``min_runtime`` alone (DESIGN-queues
    point 9)."""
    caps = policy.caps(view)
    qv = view.quota
    if qv is None or not caps or qv.all_own:
        return caps
    others = ~qv.owns
    return tuple((why, mask | others) for why, mask in caps)


def allowed(policy: PreemptivePolicy, view: PreemptionView) -> np.ndarray:
    """Positions of the candidates every cap allows."""
    caps = effective_caps(policy, view)
    if not caps:
        return np.arange(len(view.candidates))
    keep = caps[0][1]
    for _, mask in caps[1:]:
        keep = keep & mask
    return keep.nonzero()[0]  # np.flatnonzero's result without its two wrappers (a search is a few microseconds)


def choose(policy: PreemptivePolicy, view: PreemptionView) -> Preemption | None:
    """The node and victims (in signal order), or None when no node is feasible."""
    return _weigh(policy, view)[0]


def explain(policy: PreemptivePolicy, view: PreemptionView) -> Explained:
    """The same choice as :func:`choose`, and every node weighed with its best set, best first."""
    chosen, options = _weigh(policy, view)
    return Explained(chosen, options())


def weighed(policy: PreemptivePolicy, view: PreemptionView) -> tuple[NodeOption, ...]:
    """Every victim set the search weighed, not only each node's best, best first by the key (the
    choice first): what a reader compares the choice with (:mod:`simcore.policies.alternatives`).
    Not for a drawn key, which ranks nodes, not sets (its options are :func:`explain`'s)."""
    if _drawn(policy):
        raise ValueError(f"policy {policy.name!r}: a drawn key weighs nodes, not sets")
    pos = allowed(policy, view)
    if len(pos) == 0:
        return ()
    batch = policy.all_nodes(view, pos)
    if batch is not None:
        values = batch.values
        return tuple(
            _option(view, int(batch.node[i]), batch.victims[i], [c[i].item() for c in values])
            for i in _order(policy, batch)
        )
    found = sorted(_per_node(policy, view, pos, every=True), key=itemgetter(0))
    return tuple(_option(view, k, s.victims, s.values) for _, k, s in found)


#: the options of a choice, built only when asked (the engine asks only to explain)
Options = Callable[[], tuple[NodeOption, ...]]


def _no_options() -> tuple[NodeOption, ...]:
    return ()


def _weigh(policy: PreemptivePolicy, view: PreemptionView) -> tuple[Preemption | None, Options]:
    """The one pipeline of :func:`choose` and :func:`explain`: the choice, and every node weighed
    with its best set, best first (the choice's node first)."""
    pos = allowed(policy, view)
    if len(pos) == 0:
        return None, _no_options
    if _drawn(policy):
        drawn = _draw(policy, view, pos)
        if drawn is None:
            return None, _no_options
        d, feasible, pre = drawn
        # every feasible node, its key the draw that picks it; no set is drawn on the others
        return pre, lambda: (
            NodeOption(pre.node, pre.victims, (d,)),
            *(NodeOption(k, (), (i,)) for i, k in enumerate(feasible) if i != d),
        )
    batch = policy.all_nodes(view, pos)
    if batch is not None:
        order = _order(policy, batch)

        def batch_options() -> tuple[NodeOption, ...]:
            firsts = order[np.sort(np.unique(batch.node[order], return_index=True)[1])]  # each node's best, best first
            values = batch.values
            return tuple(
                _option(view, int(batch.node[i]), batch.victims[i], [c[i].item() for c in values]) for i in firsts
            )

        i = int(order[0])
        return Preemption(int(batch.node[i]), _signal_order(view, batch.victims[i])), batch_options
    found = _per_node(policy, view, pos)
    if not found:
        return None, _no_options
    _, node, best = min(found, key=itemgetter(0))  # the keys end with the node: no two are equal
    return Preemption(node, _signal_order(view, best.victims)), lambda: tuple(
        _option(view, k, s.victims, s.values) for _, k, s in sorted(found, key=itemgetter(0))
    )


def _option(view: PreemptionView, k: int, victims: Iterable[int], values: Iterable) -> NodeOption:
    return NodeOption(k, _signal_order(view, victims), tuple(values))


def _drawn(policy: PreemptivePolicy) -> bool:
    return policy.key[0][1] == "drawn"


def _signs(policy: PreemptivePolicy) -> tuple[int, ...]:
    """Per entry of the key, -1 for a "max" one, else 1: a value times its sign is smaller when better
    (x -1 flips the sign bit exactly, as negation does; one C-level ``map`` per set, no Python loop)."""
    return tuple(-1 if better == "max" else 1 for _, better in policy.key)


def _per_node(
    policy: PreemptivePolicy, view: PreemptionView, pos: np.ndarray, every: bool = False
) -> list[tuple[tuple, int, VictimSet]]:
    """(full key, node, set) of each feasible node's best set; with `every`, of every set weighed."""
    out = []
    signs, rule, qv = _signs(policy), policy.on_node, view.quota
    for k, here in _feasible_nodes(view, pos):
        best: tuple[tuple, VictimSet] | None = None
        for s in rule(view, k, here):
            if len(s.values) != len(signs):
                raise ValueError(f"policy {policy.name!r}: a set's values {s.values} do not match its key {policy.key}")
            if qv is not None and not (qv.enough(s.victims) and qv.eligible(s.victims)):
                continue  # with queues eligibility and the quota condition are part of feasibility
            key = (*map(mul, s.values, signs), *s.ties, k)
            if every:
                out.append((key, k, s))
            elif best is None or key < best[0]:
                best = (key, s)
        if best is not None:
            out.append((best[0], k, best[1]))
    return out


def _feasible_nodes(view: PreemptionView, pos: np.ndarray) -> list[tuple[int, list[int]]]:
    """Each node (ascending) where removing every candidate in `pos` makes the TE job fit, with its
    candidates from `pos` in job order. In Python over the candidates' lists: a search sees a few
    dozen candidates, where each numpy call (an ``add.at``, a sort, two searches) costs more than
    the whole loop; the sums are the same integers."""
    c = view.candidates
    node_of, req = c.column("node"), c.column("req")
    held: dict[int, list[int]] = {}  # node -> its candidates; `pos` ascends, so in job order
    room: dict[int, list[int]] = {}  # node -> its units once they are gone
    for p in pos.tolist():
        k = node_of[p]
        if k in held:
            held[k].append(p)
            t = room[k]
        else:
            held[k] = [p]
            t = view.avail_on(k)
        r = req[p]
        room[k] = [t[0] + r[0], t[1] + r[1], t[2] + r[2]]  # plus(), written out: once per candidate and search
    fits, qv = view.fits, view.quota
    if qv is None:
        return [(k, held[k]) for k in sorted(held) if fits(room[k])]
    return [(k, held[k]) for k in sorted(held) if fits(room[k]) and qv.enough(held[k])]


def _order(policy: PreemptivePolicy, batch: VictimSets) -> np.ndarray:
    """The sets of a batch, best first by the directed key, the tie-breaks, then the node."""
    directed = [-col if better == "max" else col for col, (_, better) in zip(batch.values, policy.key, strict=True)]
    # np.lexsort: the last key is the primary one
    return np.lexsort((batch.node, *reversed(batch.ties), *reversed(directed)))


def _draw(policy: PreemptivePolicy, view: PreemptionView, pos: np.ndarray) -> tuple[int, list[int], Preemption] | None:
    """The draw among the feasible nodes, those nodes, and the set the per-node rule takes on the drawn
    node; None when no node is feasible (nothing drawn) or the drawn node gives no set (queues)."""
    feasible = _feasible_nodes(view, pos)
    if not feasible:
        return None
    d = int(view.rng.integers(len(feasible)))
    k, here = feasible[d]
    chosen = next(iter(policy.on_node(view, k, here)), None)
    if chosen is None:  # with queues: its additions, skipping ineligible ones, ended without a set (draws spent)
        return None
    return d, [n for n, _ in feasible], Preemption(k, _signal_order(view, chosen.victims))


def _signal_order(view: PreemptionView, victims: Iterable[int]) -> tuple[int, ...]:
    """Victims are signalled in job order, so the events of one decision come in a fixed order."""
    rank = view.candidates.rank
    return tuple(sorted((int(p) for p in victims), key=lambda p: rank[p]))
