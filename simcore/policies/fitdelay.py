"""``fitdelay``: our own policy (beyond the paper), fitgpp's victims ranked by the BE delay they cause.

fitgpp (our reconstruction of the paper's approach) ranks victim sets lexicographically:
fewest victims, then the tightest fit, and only then the work a signal now would lose. When
checkpoints are rare (``periodic``) or absent (``none``) that order throws away hours of work
to save a little room. fitdelay keeps fitgpp's search (1- and 2-victim sets exactly, a greedy
larger set only when none exists), its ``s`` cap and its first criterion (fewest victims), then
takes the set with the least *BE delay*, in seconds, its victims will pay:

    delay = sum over victims of (work lost now + grace + restore on the next start)
            + reentry x slack

where slack is fitgpp's tightest-fit measure (L1 norm of the normalised room left once the TE
job has taken the victims' place) and the knob ``reentry`` prices it in seconds: the expected
wait to get back in per unit of room given up (room the TE job does not need goes to other
jobs, so a larger victim waits longer for room of its size). Ties fall back to fitgpp's order.
It has no ``P`` cap: a job that has just restarted is cheap to preempt again, and the cap
sent fitgpp to larger victims once the small ones had used it up; ``min_runtime`` is the
knob that bounds repeated preemption. With ``checkpoint = on_preempt`` nothing is lost, so it
ranks exactly like fitgpp without the cap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from simcore import units
from simcore.policies.base import Cap, PreemptionView
from simcore.policies.decision import LARGER_THAN_S
from simcore.policies.fitgpp import FitSearch, within_share


@dataclass(frozen=True)
class FitDelay(FitSearch):
    s: float = math.inf  # as fitgpp's
    reentry: float = 1800.0  # seconds of expected wait to get back in per unit of normalised room

    name: ClassVar[str] = "fitdelay"
    knobs: ClassVar[tuple[str, ...]] = ("s", "reentry")
    help: ClassVar[str] = (
        "Our own policy (beyond the paper): among the sets with the fewest victims, preempt the one that delays "
        "BE least: lost work + grace + restore + reentry x the room its victims give up. It keeps fitgpp's small "
        "victims but spares jobs that would lose hours of work; no P cap (min_runtime bounds repeats)."
    )
    key: ClassVar[tuple[tuple[str, str], ...]] = (
        ("victims", "min"), ("delay", "min"), ("slack", "min"), ("past_preemptions", "min"), ("earliest_start", "max"),
    )  # fmt: skip

    def caps(self, view: PreemptionView) -> tuple[Cap, ...]:
        """No ``P`` cap (see the module docstring): only the ``s`` cap."""
        return ((LARGER_THAN_S, within_share(view, self.s)),)

    # -- its ranking: the key's values, and the delay they rank by -------------------------
    def _single_values(self, view: PreemptionView, pos: np.ndarray, slack: np.ndarray) -> tuple[np.ndarray, ...]:
        c = view.candidates
        delay = self._delay(view, c.lost_now[pos] + c.restore_next[pos], slack, 1)
        ones = np.ones(len(pos), dtype=np.int64)
        return ones, delay, slack / units.NORM_SCALE, c.preemptions[pos], c.seg_start[pos]

    def _set_values(self, view: PreemptionView, idx: list[int], slack: float) -> tuple:
        c = view.candidates
        per_victim = float((c.lost_now[idx] + c.restore_next[idx]).sum())
        return (
            len(idx),
            float(self._delay(view, per_victim, slack, len(idx))),
            slack / units.NORM_SCALE,
            int(c.preemptions[idx].sum()),
            float(c.seg_start[idx].min()),
        )

    def _delay(self, view: PreemptionView, per_victim: Any, slack: Any, n: int) -> Any:
        """Seconds of BE delay of a set of n victims. Rounded to the microsecond, so that equal delays reached
        by different sums tie exactly and fall to the next criterion."""
        room = slack / units.NORM_SCALE  # the slack as fitgpp keeps it is rint(slack x 1e9)
        return np.round(per_victim + n * view.config.grace + self.reentry * room, 6)


FITDELAY = FitDelay()
