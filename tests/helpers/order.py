"""The order tests are handed out in: the longest non-browser tests first.

xdist (``--dist loadgroup``) hands out the groups first, then the other tests one at a time in
collection order, so a long test collected near the end starts last and keeps one core busy while
the other has nothing left to do (docs/testing.md#the-other-tests-cost-round-6).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar


class _Item(Protocol):
    nodeid: str


_I = TypeVar("_I", bound=_Item)

#: the non-browser tests that take longest, longest first (CPU and wall seconds of one full run on
#: 2 December 2026; the JSON fuzz as measured after its cut in docs/testing.md, "Round 8,
#: in-process"); a name without ``[...]`` covers each of its parameters
LONG_FIRST = (
    "tests/test_dashboard_whatif.py::test_story_counterfactuals_and_forecast_match_simcore_whatif",
    "tests/test_workload_fuzz.py::test_arbitrary_json",
    "tests/test_demo_memory.py::test_the_worker_holds_one_simulation_at_a_time",
    "tests/test_hosting_worker.py::test_a_worker_is_stopped_at_its_cpu_time_not_at_the_wall_clock_time_it_waited",
    "tests/test_compiled.py::test_compiled_and_pure_write_the_same_bytes",
    "tests/test_gang_properties.py::test_all_one_workers_column_changes_nothing",
    "tests/test_hosting.py::test_memory_stays_bounded_across_many_distinct_scenarios",
    "tests/test_lessons.py::test_play_advances_and_stops_at_the_end",
    "tests/test_dashboard.py::test_gantt_steps_through_preemptions_and_stacks_two_policies",
    "tests/test_gantt.py::test_geometry_and_determinism_on_the_demo_preset",
    "tests/test_sweep.py::test_executors_give_identical_rows",
    "tests/test_watch_stretches.py::test_memory_grows_with_the_waits_not_with_the_passes",
    "tests/test_sweep.py::test_pool_workers_die_when_the_sweep_is_killed",
    "tests/test_properties.py::test_deterministic_across_processes_and_hash_seeds",
    "tests/test_workload_fuzz.py::test_mutated_csv",
    "tests/test_exercises.py::test_an_exercise_from_the_link_answered_right_and_wrong",
    "tests/test_exercises.py::test_a_lesson_question_answered_wrong_then_right",
    "tests/test_lessons.py::test_each_lesson_and_variant_draws",
    "tests/test_demo_memory.py::test_deep_size_is_within_a_fifth_of_the_memory_stored_results_take",
)


def long_first(items: Sequence[_I]) -> list[_I]:
    """``items`` with those of :data:`LONG_FIRST` first, in its order; the rest keep theirs (a
    stable sort: every worker collects the same order, as xdist requires)."""
    rank = {name: i for i, name in enumerate(LONG_FIRST)}
    return sorted(items, key=lambda it: rank.get(it.nodeid, rank.get(it.nodeid.partition("[")[0], len(rank))))
