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

from dataclasses import dataclass
from typing import Any

import numpy as np

from simcore import units
from simcore.policies.base import Cap, PreemptionView
from simcore.policies.decision import LARGER_THAN_S
from simcore.policies.fitgpp import FitGpp


@dataclass(frozen=True)
class FitDelay(FitGpp):
    name: str = "fitdelay"
    knobs: tuple[str, ...] = ("s", "reentry")
    help: str = (
        "Our own policy (beyond the paper): among the sets with the fewest victims, preempt the one that delays "
        "BE least: lost work + grace + restore + reentry x the room its victims give up. It keeps fitgpp's small "
        "victims but spares jobs that would lose hours of work; no P cap (min_runtime bounds repeats)."
    )
    key: tuple[tuple[str, str], ...] = (
        ("victims", "min"), ("delay", "min"), ("slack", "min"), ("past_preemptions", "min"), ("earliest_start", "max"),
    )  # fmt: skip

    def caps(self, view: PreemptionView) -> tuple[Cap, ...]:
        """No ``P`` cap (see the module docstring): only the ``s`` cap."""
        return ((LARGER_THAN_S, self._within_share(view)),)

    def _ones(self, view: PreemptionView, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray, list] | None:
        c = view.candidates
        node = c.node[pos]
        total = view.avail[node] + c.req[pos]
        ok = (total >= view.te_req).all(axis=1)
        if not ok.any():
            return None
        pos, node, total = pos[ok], node[ok], total[ok]
        slack = units.norm_round(units.l1(total - view.te_req, view.inv_cap[node]))
        delay = self._delay(view, c.lost_now[pos] + c.restore_next[pos], slack, 1)
        past, start = c.preemptions[pos], c.seg_start[pos]
        order = np.lexsort((node, c.rank[pos], -start, past, slack, delay))
        return pos, order, [("delay", delay), ("slack", slack), ("past_preemptions", past), ("earliest_start", start)]

    def _named(self, key: tuple) -> tuple[float, ...]:
        return (key[0], key[1], self._value("slack", key[2]), key[3], -key[4])

    def _key(self, view: PreemptionView, k: int, s: tuple[int, ...]) -> tuple:
        c = view.candidates
        idx = list(s)
        slack = self._slack(view, k, view.avail[k] + c.req[idx].sum(axis=0))
        per_victim = float((c.lost_now[idx] + c.restore_next[idx]).sum())
        return (
            len(s),
            float(self._delay(view, per_victim, slack, len(s))),
            slack,
            int(c.preemptions[idx].sum()),
            -float(c.seg_start[idx].min()),
            tuple(sorted(int(c.rank[p]) for p in s)),
            k,
        )

    @staticmethod
    def _delay(view: PreemptionView, per_victim: Any, slack: Any, n: int) -> Any:
        """Seconds of BE delay of a set of n victims. Rounded to the microsecond, so that equal delays reached
        by different sums tie exactly and fall to the next criterion."""
        room = slack / units.NORM_SCALE  # the slack as fitgpp keeps it is rint(slack x 1e9)
        return np.round(per_victim + n * view.config.grace + view.config.reentry * room, 6)


FITDELAY = FitDelay()
