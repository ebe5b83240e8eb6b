"""``fitdelay``: our own policy (beyond the paper), fitgpp where a preemption loses nothing, else checkpoint-aware.

fitgpp (our reconstruction of the paper's approach) ranks victim sets lexicographically:
fewest victims, then the tightest fit, and only then the work a signal now would lose. When
checkpoints are rare (``periodic``), absent (``none``) or unreliable (``on_preempt`` with
``save_time > grace`` or ``save_failure > 0``) that order throws away hours of work to save a
little room. fitdelay reads the ``checkpoint`` mode and the saves' failure probability p
(:func:`simcore.core.saves.failure_probability`):

* ``on_preempt`` with p = 0 (a signal loses nothing): it *is* fitgpp, ``P`` and ``s`` caps
  included. Its delay key below then orders sets exactly as fitgpp's slack does (tested event
  for event).
* otherwise (a signal may lose work). It keeps fitgpp's search (1- and 2-victim sets exactly, a
  greedy larger set only when none exists), its ``s`` cap and fewest victims first, then takes
  the set with the least *BE delay*, in seconds, its victims will pay:

      delay = sum over victims of (expected work lost now + grace + restore on the next start) x workers
              + reentry x slack            (unless the loss is certain)

  where the expected loss is the work a signal now loses (``periodic``, ``none``), or with
  ``on_preempt`` p x the work since the victim's last successful save or start; slack is
  fitgpp's tightest-fit measure (L1 norm of the normalised room left once the TE job has taken
  the victims' place) and ``reentry`` prices it: the expected wait to get back in per unit of
  room given up. When the loss is certain (``none``, or ``on_preempt`` with p = 1, which then
  loses exactly what ``none`` does) the room is not priced (it only breaks ties): a victim
  restarts from scratch, so the work it loses (hours) is certain while the wait is a guess of
  minutes; priced, it made fitdelay lose more work than k8s's youngest-first choice.
  There is no ``P`` cap here: the cheapest victim is often a job that has just restarted (it
  loses nothing), and the cap would send the TE job to one that throws work away.
  And it does not preempt at all while a running BE job whose departure makes room for the TE
  job finishes within the grace period (any running BE job, also one ``min_runtime`` exempts):
  the TE job gets in no later by waiting, and no victim loses work, grace or restore (reason
  ``FREES_WITHIN_GRACE`` in the decision records).

The three checkpoint-mode rules were chosen by measuring variants on seeds other than the
study's (docs/RESULTS.md section 8 reports the study itself).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from simcore.core import units
from simcore.core.knobs import default
from simcore.core.saves import failure_probability
from simcore.policies.base import Cap, PreemptionView, sum_of
from simcore.policies.decision import FREES_WITHIN_GRACE
from simcore.policies.fitgpp import FitSearch, fitgpp_caps, share_cap


@dataclass(frozen=True)
class FitDelay(FitSearch):
    P: int = default("P")  # as fitgpp's; applies only while a signal loses nothing (on_preempt, saves never fail)
    s: float = default("s")  # as fitgpp's
    reentry: float = default("reentry")  # seconds of expected wait to get back in per unit of normalised room

    name: ClassVar[str] = "fitdelay"
    help: ClassVar[str] = (
        "Our own policy (beyond the paper): fitgpp where a preemption loses nothing; with periodic, no or "
        "unreliable checkpoints (save_time, save_failure), among the sets with the fewest victims the one that "
        "delays BE least (expected lost work + grace + restore, + reentry x room given up unless the loss is "
        "certain), no P cap, and no preemption while a BE job frees the room within the grace period."
    )
    key: ClassVar[tuple[tuple[str, str], ...]] = (
        ("victims", "min"),
        ("delay", "min"),
        ("slack", "min"),
        ("past_preemptions", "min"),
        ("earliest_start", "max"),
    )

    def caps(self, view: PreemptionView) -> tuple[Cap, ...]:
        """Lossless (``on_preempt``, saves never fail): fitgpp's caps. Else: none while a BE job frees the room
        within grace, then ``s``."""
        if lossless(view):
            return fitgpp_caps(view, self.P, self.s)
        if self._frees_within_grace(view):  # it waits: no candidate
            return ((FREES_WITHIN_GRACE, np.zeros(len(view.candidates), dtype=bool)),)
        return share_cap(view, self.s)

    @staticmethod
    def _frees_within_grace(view: PreemptionView) -> bool:
        """Does a running BE job whose departure lets the TE job fit finish within the grace period?
        Every running BE job counts, victim candidate or not: ``min_runtime`` and the caps decide
        who may be signalled, not whose finish frees room; a job on a node a victim search skips
        (draining, or by the time victims release) is not in the view (DESIGN-failures point 5)."""
        c = view.running_be
        if c.finish_at is not None:  # down time or checkpoint pauses: the real finish instant (DESIGN-failures point 9)
            soon = c.finish_at - view.now <= view.config.grace
        else:
            restoring = np.maximum(0.0, c.seg_start + np.where(c.preemptions > 0, c.restore_next, 0.0) - view.now)
            soon = c.remaining + restoring <= view.config.grace
        if not soon.any():
            return False
        return bool((view.avail[c.node[soon]] + c.req[soon] >= view.te_req).all(axis=1).any())

    # -- its ranking: the key's values, and the delay they rank by -------------------------
    def _single_values(self, view: PreemptionView, pos: np.ndarray, slack: np.ndarray) -> tuple[np.ndarray, ...]:
        c = view.candidates
        w = c.workers[pos]
        delay = self._delay(view, (c.expected_loss[pos] + c.restore_next[pos]) * w, slack, w)
        return w, delay, slack / units.NORM_SCALE, c.preemptions[pos], c.seg_start[pos]

    def _set_values(self, view: PreemptionView, idx: list[int], slack: float) -> tuple:
        c = view.candidates  # read as Python lists, as fitgpp's: a set has a few jobs, numpy calls cost more
        loss, restore, workers = c.column("expected_loss"), c.column("restore_next"), c.column("workers")
        past, start = c.column("preemptions"), c.column("seg_start")
        per_victim = sum_of([(loss[p] + restore[p]) * workers[p] for p in idx])  # the vectorised form's products
        n = c.size(idx)
        return (
            n,
            float(self._delay(view, per_victim, slack, n)),
            slack / units.NORM_SCALE,
            sum(past[p] for p in idx),
            min(start[p] for p in idx),
        )

    def _delay(self, view: PreemptionView, per_victim: Any, slack: Any, n: Any) -> Any:
        """Seconds of BE delay of a set of victims with n workers in all (`per_victim`: their lost work and
        restore, each x its workers). Rounded to the microsecond, so that equal delays reached
        by different sums tie exactly and fall to the next criterion (the slack)."""
        room = slack / units.NORM_SCALE  # the slack as fitgpp keeps it is rint(slack x 1e9)
        price = 0.0 if certain_loss(view) else self.reentry
        return np.round(per_victim + n * view.config.grace + price * room, 6)


def lossless(view: PreemptionView) -> bool:
    """Does a signal lose nothing (``on_preempt`` whose saves never fail)?"""
    return view.config.checkpoint == "on_preempt" and failure_probability(view.config) == 0.0


def certain_loss(view: PreemptionView) -> bool:
    """Does a signal surely lose all the work since the last save (``none``; ``on_preempt`` whose saves all fail)?"""
    return view.config.checkpoint == "none" or failure_probability(view.config) == 1.0


FITDELAY = FitDelay()
