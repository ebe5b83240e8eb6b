"""Per-job what-if: a job's story, why it waited, counterfactuals and "when would my job start".

Everything here re-simulates with :func:`simcore.engine.simulate` (deterministic: the same inputs
give the same run), so each answer is exact for the workload as given. Never imports a UI.

- :func:`job_story`: a job's life in words (:class:`StoryStep`);
- :func:`blocking_reasons`, :func:`reason_at`: why it waited (:class:`Wait`, codes in :data:`WAIT_REASONS`);
  :func:`all_waits` for every job at once, :func:`watched_run` and :func:`waits_run` with the run itself;
- :func:`counterfactual`: the run again with one :class:`Change` (:data:`CHANGE_KINDS`), as a :class:`WhatIf`
  of :class:`JobDelta`;
- :func:`when_would_it_start`: a described job inserted at a time, as a :class:`Forecast`.
"""

from simcore.analysis.whatif.counterfactual import BASELINE, CHANGE_KINDS, Change, JobDelta, WhatIf, counterfactual
from simcore.analysis.whatif.forecast import CAVEAT, JOB_FIELDS, Forecast, when_would_it_start
from simcore.analysis.whatif.reasons import (
    WAIT_REASONS,
    Wait,
    all_waits,
    blocking_reasons,
    reason_at,
    waits_run,
    watched_run,
)
from simcore.analysis.whatif.story import STEP_KINDS, StoryStep, job_story

__all__ = [
    "BASELINE",
    "CAVEAT",
    "CHANGE_KINDS",
    "JOB_FIELDS",
    "STEP_KINDS",
    "WAIT_REASONS",
    "Change",
    "Forecast",
    "JobDelta",
    "StoryStep",
    "Wait",
    "WhatIf",
    "all_waits",
    "blocking_reasons",
    "counterfactual",
    "job_story",
    "reason_at",
    "waits_run",
    "watched_run",
    "when_would_it_start",
]
