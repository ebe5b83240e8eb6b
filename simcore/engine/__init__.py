"""The engine: the instant loop of DESIGN.md section 3 and the small parts it alone uses.

:mod:`simcore.engine.loop` holds the loop and the pass; the state they act on lives in one
module each (timeline, job state, running table, reservation book, event log, pending queue,
cluster state). Only :func:`simulate` is public.

The per-event modules (:data:`simcore.engine.native.MODULES`) may be compiled with mypyc when the
package is built (``setup.py``; ``make install``); :mod:`simcore.engine.native` decides, before any
of them is imported, whether this process runs that build or the ``.py`` sources, which stay the
reference (``SIMCORE_PURE=1`` selects them); :func:`compiled` says which ran. Both must write the
same bytes (tests/test_compiled.py). What mypyc asks of the code of those modules, each rule a
no-op in pure Python (docs/testing.md#the-compiled-engine):

- **Annotations are checked at run time.** A value that does not match its declared type raises
  ``TypeError`` where pure Python would run on: a ``tuple[int, int, int]`` parameter given the list
  ``tolist()`` returns, an ``int`` given a numpy integer or a float. Convert at the boundary.
- **A narrowed attribute is checked when read.** After ``if self.x is None`` mypyc checks the
  next read of ``self.x`` against the narrowed type, so code between the test and the read that
  may change the attribute (a yield, a call) must test it again.
- **Classes are native.** No ``if`` (``TYPE_CHECKING`` stubs included) in a class body: declare
  methods as plain methods; no attributes beyond those declared; a compiled class can be neither
  monkeypatched nor subclassed by interpreted code, so a test that patches or subclasses engine
  classes carries the ``pure_engine`` mark (tests/conftest.py).
- **Speed comes from types mypyc knows.** Constants read per event are ``Final`` (static reads,
  not module-dictionary look-ups); a fixed-length ``tuple[int, ...]`` annotation is kept unboxed
  and boxed again on every use as a list item or dictionary key (type it as a tuple of any length
  where it is stored); values typed ``object`` or ``Any`` take generic, slow paths.
- **Only these modules, and no policy.** The policies stay interpreted (their frozen dataclasses
  with class-level names do not survive compilation); ``native.py`` and this file, which choose
  the build, are never compiled.
"""

from simcore.engine import native

native.select()  # before any engine module is imported: their .py files unless a fresh build is there

from simcore.engine.loop import job_order, simulate  # noqa: E402
from simcore.engine.native import compiled  # noqa: E402

__all__ = ["compiled", "job_order", "simulate"]
