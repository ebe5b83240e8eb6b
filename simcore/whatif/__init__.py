"""Per-job what-if: a job's story, why it waited, counterfactuals and "when would my job start".

Everything here re-simulates with :func:`simcore.engine.simulate` (deterministic: the same inputs
give the same run), so each answer is exact for the workload as given. Never imports a UI.

- :func:`job_story`: a job's life in words (:class:`StoryStep`);
- :func:`blocking_reasons`, :func:`reason_at`: why it waited (:class:`Wait`, codes in :data:`WAIT_REASONS`).
"""

from simcore.whatif.reasons import WAIT_REASONS, Wait, blocking_reasons, reason_at
from simcore.whatif.story import STEP_KINDS, StoryStep, job_story

__all__ = [
    "STEP_KINDS",
    "WAIT_REASONS",
    "StoryStep",
    "Wait",
    "blocking_reasons",
    "job_story",
    "reason_at",
]
