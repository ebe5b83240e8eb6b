"""Every value the dashboard keeps in the session, declared once with its type.

A widget's value lives in ``st.session_state`` under the widget's key, and the dashboard keeps a
few values of its own there (names starting with ``_``). Each is a :class:`Key` here: pages and
widgets take ``KEY.name`` as the widget key, and code reads the value through ``KEY.read`` /
``KEY.get``, typed, rather than by a string literal (``tests/test_dashboard_modules.py`` checks that
no other module spells one). Only the session's rules write it (:mod:`dashboard.shared.state`, the Sweep's
:mod:`dashboard.sweep.sweep_state`, Learn's :mod:`dashboard.learn.quiz_state`); the pages read it.
Keys that carry a name (a generator parameter, a loader option, a page) are a :class:`Family`.
Elements whose key only tells them apart and whose value is never read back from the session
(a chart, a button, the file uploaders, whose value the call returns) keep their plain ``key=``.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")
D = TypeVar("D")

#: The session as the functions of :mod:`dashboard.shared.state` take it: ``st.session_state`` on a
#: page, a plain dict in the tests (Streamlit's keys are ``str | int``, hence ``Any``).
Session = MutableMapping[Any, Any]


@dataclass(frozen=True)
class Key(Generic[T]):
    """One value kept in the session under ``name`` (the widget's value when a widget has that key)."""

    name: str

    def read(self, session: Mapping[Any, Any]) -> T:
        """The value; it is there (its widget was drawn, or :mod:`~dashboard.shared.state` set it)."""
        return cast(T, session[self.name])

    def get(self, session: Mapping[Any, Any], default: D) -> T | D:
        """The value, or ``default`` before anything set it."""
        return cast(T | D, session.get(self.name, default))

    def maybe(self, session: Mapping[Any, Any]) -> T | None:
        """The value, or None before anything set it."""
        return cast(T | None, session.get(self.name))

    def set(self, session: Session, value: T) -> None:
        session[self.name] = value

    def drop(self, session: Session) -> T | None:
        """Forget the value (its widget starts from its default); returns what it was."""
        return cast(T | None, session.pop(self.name, None))


@dataclass(frozen=True)
class Family(Generic[T]):
    """Keys ``<prefix><name>`` of one type: one per generator parameter, loader option, page..."""

    prefix: str

    def __call__(self, name: str) -> Key[T]:
        return Key(self.prefix + name)

    def names(self, session: Mapping[Any, Any]) -> list[str]:
        """The names of this family's keys the session holds."""
        return [k[len(self.prefix) :] for k in session if isinstance(k, str) and k.startswith(self.prefix)]


# --- shared by the pages: the last settings each page published (see state.restore / publish) ---
PAGE_QUERY: Family[dict[str, Any]] = Family("_query_")  # the URL the page last wrote
PAGE_SETTINGS: Family[Any] = Family("_settings_")  # the page's settings value (Scenario, SweepSettings)

# --- Explore: the scenario's widgets -------------------------------------------------------------
EXPLORE = "x_"  # every Explore widget key starts so (state.widget_state collects them)
SOURCE: Key[str] = Key("x_source")
SAMPLE: Key[str | None] = Key("x_sample")
PRESET: Key[str] = Key("x_preset")
GEN_PARAM: Family[float | int] = Family("x_gen_")  # the generator's main parameters
GEN_MORE: Key[str] = Key("x_gen_more")  # KEY=VALUE lines: the generator's other parameters
SEEDS: Key[int] = Key("x_seeds")
CLUSTER: Key[str] = Key("x_cluster")
NODES: Key[int] = Key("x_nodes")
NODE_CPU: Key[float] = Key("x_node_cpu")
NODE_MEM_GB: Key[float] = Key("x_node_mem_gb")
NODE_GPU: Key[float] = Key("x_node_gpu")
POLICIES: Key[list[str]] = Key("x_policies")
BASELINE: Key[str] = Key("x_baseline")
TAB: Key[str] = Key("x_tab")
QUEUES: Key[str] = Key("x_queues")  # the queues table's text (dashboard.shared.queue_table)
QUEUES_EDITOR: Family[dict[str, Any]] = Family("queues_editor_")  # the queues table's editor, one per content
BOUND: Key[bool] = Key("x_bound")  # the pooled bound drawn on the slowdown charts
WORTH_DECISION: Key[int] = Key("worth_decision")  # the row picked in Was it worth it?
UPLOAD_OPTION: Family[str] = Family("x_u_")  # the loader's options (dashboard.shared.uploads)
KNOB: Family[Any] = Family("x_k_")  # one widget per knob (dashboard.shared.knob_widgets)
#: the node-events table's rows as typed (node, start, end, kind text cells: dashboard.shared.node_events_table)
NODE_EVENTS: Key[tuple[tuple[str, str, str, str], ...]] = Key("x_node_events")
NODE_EVENTS_EDITOR: Family[dict[str, Any]] = Family("down_editor_")  # the table's editor, one per content
GEN_PRESET: Key[str] = Key("_gen_preset")  # the preset the generator's fields belong to
EXPLORE_RAN: Key[bool] = Key("_explore_ran")  # Explore has run in this session (dashboard.explore.first_chart)
HELD_WARNINGS: Key[list[str]] = Key("_explore_held_warnings")  # a held first run's link warnings (first_chart)

# --- Explore: the Gantt tab -----------------------------------------------------------------------
GANTT_POLICY: Key[str] = Key("x_gantt_policy")
GANTT_WINDOW: Key[tuple[float, float]] = Key("x_gantt_window")  # hours, as the two widgets below set it
GANTT_LENGTH: Key[float] = Key("x_gantt_length")  # the window's length widget (hours)
GANTT_START: Key[float] = Key("x_gantt_start")  # the window's start widget (hours)
GANTT_NODES: Key[list[str]] = Key("x_gantt_nodes")
GANTT_WITH: Key[str] = Key("gantt_with")  # the stacked policy, or state.NO_SECOND
GANTT_ZOOM: Key[float] = Key("gantt_zoom")  # seconds shown around a chosen preemption
GANTT_QUEUE_COLOUR: Key[bool] = Key("gantt_queue_colour")  # a run with queues: bars coloured by queue
GANTT_QUEUE_GROUP: Key[bool] = Key("gantt_queue_group")  # a run with queues: lanes grouped by queue
GANTT_PREEMPTION: Key[dict[str, Any] | None] = Key("_gantt_preemption")  # policy, index, time, job_id, node
GANTT_FOR: Key[tuple[str, str]] = Key("_gantt_for")  # the (workload, cluster) the Gantt's view is for
GANTT_NOTE: Key[str] = Key("_gantt_note")  # a note shown once ("No preemption after this one.")
DECISION_OTHER: Key[str] = Key("decision_other")  # the policy whose record the decision view compares

# --- Explore: the One job tab (dashboard.explore.explore_job) --------------------------------------
JOB_POLICY: Key[str] = Key("one_policy")  # the run the job is picked from
JOB_FILTER: Key[str] = Key("one_filter")  # text the job ids must contain
JOB_ID: Key[str | None] = Key("one_job")  # the job shown
JOB_CHANGE: Key[str] = Key("one_change")  # the counterfactual's kind (simcore.analysis.whatif.CHANGE_KINDS)
JOB_SUBMIT_AT: Key[float] = Key("one_submit_at")  # seconds: "had it been submitted at t"
JOB_GPUS: Key[int] = Key("one_gpus")  # "had it asked for fewer GPUs"
JOB_OTHER_POLICY: Key[str] = Key("one_other_policy")  # "under policy Y"
JOB_ASKED: Key[tuple[Any, ...] | None] = Key("_one_asked")  # the counterfactual last asked: (policy, job, change)
FORECAST_FIELD: Family[Any] = Family("one_forecast_")  # the "When would my job start?" form's fields
FORECAST_ASKED: Key[tuple[Any, ...] | None] = Key("_one_forecast_asked")  # (policy, job fields, at) last asked

# --- Learn ------------------------------------------------------------------------------------------
LESSON: Key[str] = Key("lesson")
LESSON_VARIANT: Family[str] = Family("lesson_variant_")  # per lesson: the variant shown
LESSON_STEP: Family[int] = Family("lesson_step_")  # per "<lesson>_<variant>": the instant shown
LESSON_PLAYING: Key[tuple[str, str] | None] = Key("lesson_playing")  # the (lesson, variant) playing
QUIZ_ANSWER: Family[str | float | None] = Family("quiz_answer_")  # per "<scope>_<question>": the answer widget
QUIZ_CHECKED: Family[str | float] = Family("quiz_checked_")  # per "<scope>_<question>": the answer checked
QUIZ_SHOWN: Family[bool] = Family("quiz_shown_")  # per lesson variant or exercise: shown without every answer
EXERCISE_SEED: Key[int | None] = Key("exercise_seed")  # the seed widget of the fresh exercise
EXERCISE_LINKED: Key[str] = Key("_exercise_linked")  # the link's seed last put into the widget

# --- Sweep ------------------------------------------------------------------------------------------
SWEEP = "s_"  # every Sweep widget key starts so
S_SOURCE: Key[str] = Key("s_source")  # a generator preset or an uploaded file
S_PRESET: Key[str] = Key("s_preset")
S_UPLOAD_OPTION: Family[str] = Family("s_u_")  # the uploaded file's loader options (dashboard.shared.uploads)
S_NODES: Key[int] = Key("s_nodes")  # an upload's uniform cluster: nodes (0 = sized from the workload)
S_NODE_CPU: Key[float] = Key("s_node_cpu")
S_NODE_MEM_GB: Key[float] = Key("s_node_mem_gb")
S_NODE_GPU: Key[float] = Key("s_node_gpu")
S_JOBS: Key[str] = Key("s_jobs")
S_KNOB: Key[str] = Key("s_knob")
S_VALUES: Key[str] = Key("s_values")
S_POLICIES: Key[list[str]] = Key("s_policies")
S_BASELINE: Key[str] = Key("s_baseline")
S_SEEDS: Key[int] = Key("s_seeds")
S_WORKERS: Key[int] = Key("s_workers")
S_DASK: Key[str] = Key("s_dask")
SWEEP_RAN_FOR: Key[Any] = Key("_sweep_ran_for")  # the SweepSettings last run (results shown only for them)
# the checkpoint advisor's section of the Sweep page (dashboard.sweep.advisor_section)
ADVICE = "adv_"  # every advisor widget key starts so
ADV_POLICY: Key[str] = Key("adv_policy")
ADV_COST: Key[float] = Key("adv_checkpoint_cost")
ADV_MTBF: Key[str] = Key("adv_mtbf")  # text: it may be inf
ADV_REPAIR: Key[float] = Key("adv_repair")
ADV_INTERVALS: Key[str] = Key("adv_intervals")
ADVICE_RAN_FOR: Key[Any] = Key("_advice_ran_for")  # the AdviceSettings last run (results shown only for them)
DASK_OFFERED: Key[str | None] = Key("_dask_offered")  # a Dask address a link offered, until accepted

# --- a computation asked by a page holding its results, parked for the next run (dashboard.runs.parked) ---
PARKED: Key[Any] = Key("_parked")  # the parked computation (dashboard.runs.parked.Request), until served
SERVED: Key[dict[Any, Any]] = Key("_served")  # its values (or its failure) by store key, for the run after

# --- the what-if answers a session was given, finished or stopped (dashboard.shared.remembered) ---
ANSWERS: Key[dict[Any, Any]] = Key("_answers")  # by store key: the value, or the notice of a stop
