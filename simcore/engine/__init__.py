"""The engine: the instant loop of DESIGN.md section 3 and the small parts it alone uses.

:mod:`simcore.engine.loop` holds the loop and the pass; the state they act on lives in one
module each (timeline, job state, running table, reservation book, event log, pending queue,
cluster state). Only :func:`simulate` is public.
"""

from simcore.engine.loop import job_order, simulate

__all__ = ["job_order", "simulate"]


def compiled() -> bool:
    """Does this process run the engine compiled with mypyc (not its ``.py`` sources)?"""
    from simcore.engine import loop

    return not (loop.__file__ or "").endswith(".py")
