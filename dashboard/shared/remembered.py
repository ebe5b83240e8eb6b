"""What a visitor's session remembers of the what-if answers it was given (docs/hosting.md).

A what-if (a job's story, a counterfactual, a forecast, why every job waited) is computed in a
worker process and shared in the store (:mod:`dashboard.runs.data`), which may drop it for other
visitors' results, and every widget a visitor touches reruns the page, which asks again. So the
session keeps each answer it was given: the value, or, for a computation stopped at a limit
(``run_seconds``, ``wall_seconds``, ``worker_mb``), the notice it showed (:class:`Stopped`). A
rerun shows it again without a computation: a visitor never pays twice for one question. It keeps
the answers about one workload and cluster, those its page shows; a question about another
replaces them. An answer the store has dropped counts against ``cache_mb`` for as long as a session
holds it (:meth:`~dashboard.runs.store.BoundedStore.elsewhere`), like the runs a page holds
while it draws.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from dashboard.shared import keys
from simcore.core.errors import UserError

#: a question's key starts with ("whatif", workload key, cluster hash): what the kept answers share
SCOPE = 3


@dataclass(frozen=True)
class Stopped:
    """A question whose computation was stopped at a limit: the notice shown (never raised, so it holds
    no traceback and none of the frames of the run that asked)."""

    notice: UserError


def recall(session: keys.Session, key: tuple[Hashable, ...]) -> Any | None:
    """The answer given for ``key`` in this session (a value or a :class:`Stopped`), or None."""
    return keys.ANSWERS.get(session, {}).get(key)


def remember(session: keys.Session, key: tuple[Hashable, ...], answer: Any) -> None:
    """Keep ``answer`` (a value or a :class:`Stopped`) for ``key``; the answers about another workload
    or cluster are forgotten."""
    kept = {k: v for k, v in keys.ANSWERS.get(session, {}).items() if k[:SCOPE] == key[:SCOPE]}
    kept[key] = answer
    keys.ANSWERS.set(session, kept)
