"""Saves that can fail: the knobs ``save_time`` and ``save_failure`` of ``checkpoint = on_preempt``.

With ``on_preempt`` a preempted job saves its work during the grace period. The save fails
surely when it needs longer than the grace period (``save_time > grace``), else with
probability ``save_failure``. A failed save loses the work since the job's last successful
save or start (docs/policies.md, "Saves that fail"). The outcomes are drawn from a generator of
their own, the first child stream of ``seed`` (``numpy.random.SeedSequence(seed,
spawn_key=(0,))``), so they never move the ``random`` policy's draws: one ``random()`` per
signalled job, in signal order, the save failing when the draw is below ``save_failure``;
drawn only when the outcome is not sure (``0 < save_failure < 1`` and ``save_time <= grace``).
Under ``periodic`` and ``none`` there is no save on the signal and both knobs are ignored.
"""

from __future__ import annotations

import numpy as np

from simcore.core.model import SimConfig

#: the spawn key of the saves' generator: the first child stream of ``seed``
SAVE_STREAM = (0,)


def failure_probability(config: SimConfig) -> float:
    """Probability that the save on a preemption signal fails: 0 unless ``checkpoint = on_preempt``,
    1 when ``save_time > grace``, else ``save_failure``."""
    if config.checkpoint != "on_preempt":
        return 0.0
    return 1.0 if config.save_time > config.grace else config.save_failure


def save_rng(seed: int) -> np.random.Generator:
    """The saves' generator for ``seed`` (independent of the ``random`` policy's ``default_rng(seed)``)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=SAVE_STREAM))


class SaveDraws:
    """The outcome of each save of a run, asked once per signalled job in signal order."""

    def __init__(self, config: SimConfig) -> None:
        self.p = failure_probability(config)
        self._rng = save_rng(config.seed) if 0.0 < self.p < 1.0 else None  # sure outcomes draw nothing

    def failed(self) -> bool:
        """Does the save of the job signalled now fail?"""
        if self._rng is None:
            return self.p >= 1.0
        return bool(self._rng.random() < self.p)
