"""The One job tab's session rules: which counterfactual and which forecast the visitor asked for.
Like :mod:`dashboard.shared.state` (whose rules it follows: the session is a mapping, keys from
:mod:`dashboard.shared.keys`) it is tested on a plain dict; a question is kept until another is asked,
so its answer (in the shared store) stays on the page across reruns.
"""

from __future__ import annotations

from typing import Any, TypeVar

from dashboard.explore import job_views
from dashboard.shared import keys
from dashboard.shared.keys import Session
from simcore.analysis.whatif import Change

N = TypeVar("N", int, float)


def keep_in_range(session: Session, key: keys.Key[N], lo: N, hi: N, default: N) -> None:
    """Keep a number input's value within its range (the range follows the job): else ``default``."""
    value = key.maybe(session)
    if value is None or not lo <= value <= hi:
        key.set(session, default)


def ask_change(session: Session, policy: str, job_id: str) -> None:
    """Keep the counterfactual the widgets describe for the job of the policy's run (the button's callback)."""
    change = job_views.change_of(
        keys.JOB_CHANGE.read(session),
        keys.JOB_SUBMIT_AT.get(session, 0.0),
        keys.JOB_GPUS.get(session, 1),
        keys.JOB_OTHER_POLICY.get(session, ""),
    )
    keys.JOB_ASKED.set(session, (policy, job_id, change))


def asked_change(session: Session, policy: str, job_id: str) -> Change | None:
    """The counterfactual asked for this job of this run, if any."""
    asked = keys.JOB_ASKED.maybe(session)
    return asked[2] if asked is not None and asked[:2] == (policy, job_id) else None


def ask_forecast(session: Session, policy: str) -> None:
    """Keep the job the form describes, for the policy's run (the form's callback)."""
    fields = {name: keys.FORECAST_FIELD(name).read(session) for name in job_views.FORM_FIELDS}
    keys.FORECAST_ASKED.set(session, (policy, tuple(fields.items())))


def asked_forecast(session: Session, policy: str) -> dict[str, Any] | None:
    """The form's fields last asked for this run, if any."""
    asked = keys.FORECAST_ASKED.maybe(session)
    return dict(asked[1]) if asked is not None and asked[0] == policy else None


def open_job(session: Session, policy: str, job_id: str, tab: str) -> None:
    """Open a job picked in the jobs table on the One job tab (``tab``): its run, its id as the filter."""
    keys.JOB_POLICY.set(session, policy)
    keys.JOB_FILTER.set(session, job_id)
    keys.JOB_ID.set(session, job_id)
    keys.TAB.set(session, tab)
