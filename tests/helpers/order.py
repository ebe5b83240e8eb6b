"""The long tests: handed out first, and the slow ones marked ``slow``.

xdist (``--dist loadgroup``) hands out the groups first, then the other tests one at a time in
collection order, so a long test collected near the end starts last and keeps one core busy while
the other has nothing left to do (docs/history/test-suite.md#the-other-tests-cost-round-6): :func:`long_first`
puts the tests of :data:`LONG` first. Those of :data:`SLOW_SECONDS` or more are ``slow``
(:func:`is_slow`; ``-m "not slow"`` leaves them out, docs/testing.md#running-a-subset).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar


class _Item(Protocol):
    nodeid: str


_I = TypeVar("_I", bound=_Item)

#: the longest tests but the Chromium and pure_engine ones (slow by kind: tests/conftest.py), longest
#: first, with their seconds (setup, call and teardown) in a full run of the suite on two workers,
#: 5 December 2026, beside other work (load average 5 to 10); a name without ``[...]`` covers each of
#: its parameters (the seconds: the longest one's), a file each of its tests (a module whose fixture is
#: long: the seconds are the whole module's)
LONG: tuple[tuple[str, float], ...] = (
    ("tests/test_reproduce.py", 119.3),
    ("tests/test_workload_fuzz.py::test_arbitrary_json", 44.2),
    ("tests/test_watch_stretches.py::test_memory_grows_with_the_waits_not_with_the_passes", 35.5),
    ("tests/test_sweep.py::test_pool_workers_die_when_the_sweep_is_killed", 22.2),
    ("tests/test_compiled.py::test_the_build_hook_compiles_records_and_replaces_by_rename", 18.7),
    ("tests/test_sweep.py::test_executors_give_identical_rows[dask]", 16.5),
    ("tests/test_dashboard_whatif.py::test_story_counterfactuals_and_forecast_match_simcore_whatif", 16.3),
    ("tests/test_workload_fuzz.py::test_mutated_csv", 15.4),
    ("tests/test_compiled.py::test_compiled_and_pure_write_the_same_bytes", 15.0),
    ("tests/test_decision_view.py::test_explore_shows_the_gang_costs_in_words_and_a_table", 13.2),
    ("tests/test_exercises.py::test_a_lesson_question_answered_wrong_then_right", 12.4),
    ("tests/test_demo_memory.py::test_the_worker_holds_one_simulation_at_a_time", 11.9),
    ("tests/test_launcher.py::test_the_launcher_serves_the_app", 11.4),
    (
        "tests/test_hosting_worker.py::test_a_worker_is_stopped_at_its_cpu_time_not_at_the_wall_clock_time_it_waited",
        11.3,
    ),
    ("tests/test_beyond.py", 11.3),
    ("tests/test_hosting_slots.py::test_concurrent_computations_wait_their_turn_on_the_real_worker_path", 10.3),
    ("tests/test_gantt.py::test_geometry_and_determinism_on_the_demo_preset", 9.1),
    ("tests/test_exercises.py::test_an_exercise_from_the_link_answered_right_and_wrong", 8.3),
    ("tests/test_properties.py::test_deterministic_across_processes_and_hash_seeds", 8.0),
    ("tests/test_lessons.py::test_each_lesson_and_variant_draws", 7.1),
    ("tests/test_sweep.py::test_executors_give_identical_rows[pool]", 6.2),
    ("tests/test_dashboard.py::test_gantt_steps_through_preemptions_and_stacks_two_policies", 5.7),
    ("tests/test_hosting.py::test_memory_stays_bounded_across_many_distinct_scenarios", 5.6),
    ("tests/test_gang_properties.py::test_all_one_workers_column_changes_nothing", 5.2),
    ("tests/test_demo_memory.py::test_deep_size_is_within_a_fifth_of_the_memory_stored_results_take", 4.4),
    ("tests/test_lessons.py::test_play_advances_and_stops_at_the_end", 4.0),
)
#: a test that takes this long or longer is ``slow``
SLOW_SECONDS = 10.0

_RANK = {name: i for i, (name, _seconds) in enumerate(LONG)}


def _entry(nodeid: str) -> int | None:
    """The index in :data:`LONG` of the entry that covers ``nodeid`` (itself, its name without
    parameters, or its file), or None."""
    for key in (nodeid, nodeid.partition("[")[0], nodeid.partition("::")[0]):
        if key in _RANK:
            return _RANK[key]
    return None


def long_first(items: Sequence[_I]) -> list[_I]:
    """``items`` with those of :data:`LONG` first, in its order; the rest keep theirs (a stable
    sort: every worker collects the same order, as xdist requires)."""
    return sorted(items, key=lambda it: _order(it.nodeid))


def _order(nodeid: str) -> int:
    i = _entry(nodeid)
    return len(LONG) if i is None else i


def is_slow(nodeid: str) -> bool:
    """Does an entry of :data:`LONG` of :data:`SLOW_SECONDS` or more cover this test?"""
    i = _entry(nodeid)
    return i is not None and LONG[i][1] >= SLOW_SECONDS
