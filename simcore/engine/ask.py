"""Asking the policy for victims: the candidates, the view it sees, the preemption budget and
the decision records (DESIGN.md section 4). Mixed into :class:`simcore.engine.loop._Run` (through
:class:`~simcore.engine.gang.GangRun`, whose TE gangs ask the same way), whose state it reads; the
engine owns the mechanics, the policy only chooses, from a read-only view.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from simcore.core.model import SimConfig
from simcore.engine.budget import PreemptionBudget
from simcore.engine.cluster import ClusterState
from simcore.engine.jobstate import JobState
from simcore.engine.nodes_down import NodesDown
from simcore.engine.quota import QuotaState
from simcore.engine.running import RunningTable
from simcore.engine.timeline import Timeline
from simcore.policies import Candidates, Policy, Preemption, PreemptionView, alternatives, decision
from simcore.policies.base import Explained, QuotaView


class PolicyAsk:
    """The run's calls to its policy; the state is :class:`simcore.engine.loop._Run`'s."""

    cfg: SimConfig
    policy: Policy
    others: tuple[Policy, ...]  # the same_state policies, asked on every recorded view
    cl: ClusterState
    js: JobState
    running: RunningTable
    timeline: Timeline
    exempt: np.ndarray | None  # never offered as victims (a what-if)
    min_runtime: float
    rng: np.random.Generator
    down: NodesDown | None  # the nodes' down time (rule 12), None without
    all_skipped: bool  # the last candidates were all on nodes a victim search skips (rule 12)
    budget: PreemptionBudget | None
    decisions: list[dict] | None
    names: tuple[list[str], list[str]]  # job ids and node names, when decisions are recorded
    now: float
    quota: QuotaState | None  # a run with queues: the usage per queue (simcore.engine.teams)
    searching: int  # a run with queues: the candidates of the search being asked (simcore.engine.teams)

    def _ask_policy(self, te: int) -> tuple[int, list[int]] | None:
        """The policy's victims for TE job `te` as (node, victim jobs in signal order), or None."""
        cands, everyone = self._candidates_lazily(None)
        view = self._view(te, read_only(self.cl.avail), cands, everyone)
        if self._budget_spent(te, view):
            return None
        pre = self.policy.victims(view) if self.decisions is None else self._decide(te, view)
        if pre is None:
            return None
        if self.budget is not None:
            self.budget.spend(self.now)
        return pre.node, [int(cands.job[p]) for p in pre.victims]

    def _candidates(self, among: np.ndarray | None = None) -> tuple[Candidates, Candidates | None]:
        """The victim candidates now (of the running BE jobs `among`, None: all), and every running BE
        job when the candidates leave some out (for what their finishes free: fitdelay), else None."""
        cands, everyone = self._candidates_lazily(among)
        return cands, everyone() if everyone is not None else None

    def _candidates_lazily(self, among: np.ndarray | None) -> tuple[Candidates, Callable[[], Candidates] | None]:
        """:meth:`_candidates`, every running BE job as a function that makes them (a policy's view
        reads them on first use: most never do, and they cost as much as the candidates)."""
        running = self.running.jobs()
        offered = running if among is None else among
        if self.exempt is not None:
            offered = offered[~np.isin(offered, self.exempt)]
        cands = self.js.candidates(offered, self.now, self.min_runtime)
        shown = len(cands) if not self.js.gang_nodes else len(set(cands.job.tolist()))  # a gang: an entry per node
        skip = self._skipped()
        self.all_skipped = False
        if skip is not None:  # no victim (nor a job whose finish frees room: fitdelay) on a node a search skips
            offered_any = len(cands) > 0
            cands = cands.take(np.flatnonzero(~skip[cands.node]))
            self.all_skipped = offered_any and not len(cands)
        if shown == len(running):
            return cands, None
        return cands, partial(_every_running, self.js, running, self.now, skip)

    def _skipped(self) -> np.ndarray | None:
        """Mask of the nodes a victim search skips now (DESIGN-failures point 5), None when none is."""
        return None if self.down is None else self.down.skipped(self.now, self.cl.closed)

    def _view(
        self,
        te: int,
        avail: np.ndarray,
        cands: Candidates,
        everyone: Candidates | Callable[[], Candidates] | None,
        quota: QuotaView | None = None,
    ) -> PreemptionView:
        """What the policy sees for (a worker of) job `te` on the read-only room `avail` (`quota`: with queues)."""
        cl = self.cl
        return PreemptionView(
            self.now, self.js.req[te], cl.cap, cl.inv_cap, avail, cands, self.cfg, self.rng, everyone, quota
        )

    def _budget_spent(self, te: int, view: PreemptionView) -> bool:
        """Is the preemption budget spent (once per TE job, before the policy is asked)? Then a pass
        is due when it frees up, and the decision is recorded with the policy not asked (nothing drawn)."""
        if self.budget is None:
            return False
        frees_at = self.budget.frees_at(self.now)
        if frees_at is None:
            return False
        if frees_at < math.inf:
            self.timeline.budget_wake_at(frees_at)
        self._record(te, view, Explained(None, ()), decision.BUDGET_SPENT)
        return True

    def _decide(self, te: int, view: PreemptionView) -> Preemption | None:
        """Ask the policy to explain its choice, and record the decision."""
        explained = self.policy.explain(view)
        self._record(te, view, explained, decision.ON_CLOSED_NODES if self.all_skipped else None)
        return explained.preemption

    def _record(
        self, te: int, view: PreemptionView, explained: Explained, why: str | None = None, offered: int | None = None
    ) -> None:
        """Keep the decision record, when decisions are recorded; `why` overrides the reason told;
        `offered`: the running BE jobs the search weighed before ``min_runtime`` (None: every one)."""
        if self.decisions is None:
            return
        ids, nodes = self.names
        running = len(self.running) if offered is None else offered  # before min_runtime: the reason tells them apart
        record = decision.record(self.policy, view, explained, ids[te], ids, nodes, running, why)
        if self.others and why is None:  # a spent budget asks no policy
            record |= alternatives.asked(self.policy, self.others, view, explained, ids[te], ids, nodes, running)
        if self.quota is not None:
            record.update(self._record_fields(te, self.searching))
        self.decisions.append(record)

    def _record_fields(self, j: int, which: int) -> dict[str, Any]:
        raise NotImplementedError  # simcore.engine.teams.TeamRun: what a run with queues adds to a record


def _every_running(js: JobState, running: np.ndarray, now: float, skip: np.ndarray | None) -> Candidates:
    """Every running BE job at `now` as candidates, but those on nodes a search skips (mask `skip`)."""
    everyone = js.candidates(running, now, 0.0)
    return everyone if skip is None else everyone.take(np.flatnonzero(~skip[everyone.node]))


def read_only(a: np.ndarray) -> np.ndarray:
    """A read-only view: a policy sees the engine's arrays without a copy and cannot change them."""
    v = a.view()
    v.flags.writeable = False
    return v
