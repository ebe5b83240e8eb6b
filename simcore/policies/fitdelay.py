"""``fitdelay``: our own policy (beyond the paper), fitgpp where a preemption loses nothing, else checkpoint-aware.

fitgpp (our reconstruction of the paper's approach) ranks victim sets lexicographically:
fewest victims, then the tightest fit, and only then the work a signal now would lose. When
checkpoints are rare (``periodic``) or absent (``none``) that order throws away hours of work
to save a little room. fitdelay reads the ``checkpoint`` mode:

* ``on_preempt`` (a signal loses nothing): it *is* fitgpp, ``P`` and ``s`` caps included. Its
  delay key below then orders sets exactly as fitgpp's slack does (tested event for event).
* ``periodic`` and ``none`` (a signal loses work). It keeps fitgpp's search (1- and 2-victim
  sets exactly, a greedy larger set only when none exists), its ``s`` cap and fewest victims
  first, then takes the set with the least *BE delay*, in seconds, its victims will pay:

      delay = sum over victims of (work lost now + grace + restore on the next start) x workers
              + reentry x slack            (periodic only)

  where slack is fitgpp's tightest-fit measure (L1 norm of the normalised room left once the TE
  job has taken the victims' place) and ``reentry`` prices it: the expected wait to get back in
  per unit of room given up. Under ``none`` the room is not priced (it only breaks ties): a
  victim restarts from scratch, so the work it loses (hours) is certain while the wait is a
  guess of minutes; priced, it made fitdelay lose more work than k8s's youngest-first choice.
  There is no ``P`` cap here: the cheapest victim is often a job that has just restarted (it
  loses nothing), and the cap would send the TE job to one that throws work away.
  And it does not preempt at all while a running BE job whose departure makes room for the TE
  job finishes within the grace period: the TE job gets in no later by waiting, and no victim
  loses work, grace or restore (reason ``FREES_WITHIN_GRACE`` in the decision records).

The three checkpoint-mode rules were chosen by measuring variants on seeds other than the
study's (docs/RESULTS.md section 8 reports the study itself).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from simcore import units
from simcore.policies.base import Cap, PreemptionView
from simcore.policies.decision import FREES_WITHIN_GRACE, LARGER_THAN_S
from simcore.policies.fitgpp import FitSearch, fitgpp_caps, within_share


@dataclass(frozen=True)
class FitDelay(FitSearch):
    P: int = 2  # as fitgpp's; applies with checkpoint on_preempt only
    s: float = math.inf  # as fitgpp's
    reentry: float = 1800.0  # seconds of expected wait to get back in per unit of normalised room

    name: ClassVar[str] = "fitdelay"
    knobs: ClassVar[tuple[str, ...]] = ("P", "s", "reentry")
    help: ClassVar[str] = (
        "Our own policy (beyond the paper): fitgpp where a preemption loses nothing; with periodic or no "
        "checkpoints, among the sets with the fewest victims the one that delays BE least (lost work + grace + "
        "restore, + reentry x room given up with periodic), no P cap, and no preemption while a BE job frees the "
        "room within the grace period."
    )
    key: ClassVar[tuple[tuple[str, str], ...]] = (
        ("victims", "min"), ("delay", "min"), ("slack", "min"), ("past_preemptions", "min"), ("earliest_start", "max"),
    )  # fmt: skip

    def caps(self, view: PreemptionView) -> tuple[Cap, ...]:
        """``on_preempt``: fitgpp's caps. Else: none while a BE job frees the room within grace, then ``s``."""
        if view.config.checkpoint == "on_preempt":
            return fitgpp_caps(view, self.P, self.s)
        waits = np.full(len(view.candidates), not self._frees_within_grace(view))
        return ((FREES_WITHIN_GRACE, waits), (LARGER_THAN_S, within_share(view, self.s)))

    @staticmethod
    def _frees_within_grace(view: PreemptionView) -> bool:
        """Does a running BE job whose departure lets the TE job fit finish within the grace period?"""
        c = view.candidates
        restoring = np.maximum(0.0, c.seg_start + np.where(c.preemptions > 0, c.restore_next, 0.0) - view.now)
        soon = c.remaining + restoring <= view.config.grace
        if not soon.any():
            return False
        return bool((view.avail[c.node[soon]] + c.req[soon] >= view.te_req).all(axis=1).any())

    # -- its ranking: the key's values, and the delay they rank by -------------------------
    def _single_values(self, view: PreemptionView, pos: np.ndarray, slack: np.ndarray) -> tuple[np.ndarray, ...]:
        c = view.candidates
        w = c.workers[pos]
        delay = self._delay(view, (c.lost_now[pos] + c.restore_next[pos]) * w, slack, w)
        return w, delay, slack / units.NORM_SCALE, c.preemptions[pos], c.seg_start[pos]

    def _set_values(self, view: PreemptionView, idx: list[int], slack: float) -> tuple:
        c = view.candidates
        per_victim = float(((c.lost_now + c.restore_next) * c.workers)[idx].sum())
        n = c.size(idx)
        return (
            n,
            float(self._delay(view, per_victim, slack, n)),
            slack / units.NORM_SCALE,
            int(c.preemptions[idx].sum()),
            float(c.seg_start[idx].min()),
        )

    def _delay(self, view: PreemptionView, per_victim: Any, slack: Any, n: Any) -> Any:
        """Seconds of BE delay of a set of victims with n workers in all (`per_victim`: their lost work and
        restore, each x its workers). Rounded to the microsecond, so that equal delays reached
        by different sums tie exactly and fall to the next criterion (the slack)."""
        room = slack / units.NORM_SCALE  # the slack as fitgpp keeps it is rint(slack x 1e9)
        price = 0.0 if view.config.checkpoint == "none" else self.reentry
        return np.round(per_victim + n * view.config.grace + price * room, 6)


FITDELAY = FitDelay()
