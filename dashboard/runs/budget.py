"""The work a visit may start, checked against :mod:`dashboard.shared.demo`'s limits before it starts; pure.

Work is counted in simulated job-runs: jobs x policies x seeds (x sweep values), a gang counting
once per worker (its events, Gantt rows and placement work grow with its workers; before a
generated workload is drawn, with the workers per job its preset expects). A refusal
names every limit that was hit, its value here, and the ``simcore`` command that runs the same work
on the visitor's own machine, where no such limit applies.
"""

from __future__ import annotations

import functools
import math
import shlex
from collections.abc import Iterable, Sequence
from pathlib import Path

from dashboard.shared import node_events_table
from dashboard.shared.demo import Limits, Refused, plural, where
from dashboard.shared.scenario import Scenario
from simcore.core import fmt
from simcore.core.model import JobTable
from simcore.experiments.sweep import SweepSpec
from simcore.experiments.sweep.filesource import FileSource
from simcore.workload import presets, samples
from simcore.workload.presets import mean_workers, resolve_params

#: what one down window (a node-events row, or a random failure) adds to one run, in job-runs: its node
#: changes, the passes they start, the jobs it stops started again (bench/node_events_cost.py)
DOWN_WINDOW_JOB_RUNS = 40
WORKLOAD_FILE = "workload.csv"
CLUSTER_FILE = "cluster.csv"
QUEUES_FILE = "queues.csv"
#: a run with queues counts each job this many times: it takes 1.9 to 3.0 times the CPU of the same
#: run without (the teams10k scenarios of bench/run.py, docs/testing.md)
QUEUES_COST = 3
SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_workloads"


def _over(checks: Iterable[tuple[str, int, str, int]]) -> list[str]:
    """One line per limit exceeded: the count and the limit, in words (``10 seeds: more than 5``; the
    limit's name, the third field, is docs/hosting.md's, never shown to a visitor)."""
    return [f"{count:,} {what}: more than {value:,}" for what, count, _limit, value in checks if count > value]


def _refuse_if(over: Sequence[str], lim: Limits, command: str) -> None:
    """Refuse, listing every limit exceeded at once (a visitor fixes them all in one go)."""
    if over:
        lines = "\n".join(f"- {line}" for line in dict.fromkeys(over))
        raise Refused(f"Over the limits of {where(lim)}:\n{lines}\nRun it on your own machine instead:\n{command}")


def _check_counts(checks: Iterable[tuple[str, int, str, int]], lim: Limits, command: str) -> None:
    _refuse_if(_over(checks), lim, command)


def _sets(pairs: Iterable[tuple[str, object]]) -> list[str]:
    return [arg for k, v in pairs for arg in ("--set", f"{k}={v}")]


def _knob_sets(scenario: Scenario) -> list[str]:
    defaults = type(scenario.knobs)().knobs()
    sets = _sets((k, v) for k, v in scenario.knobs.knobs().items() if v != defaults[k] and k != "seed")
    return sets + (["--node-events", node_events_table.FILE_NAME] if scenario.node_events else [])


def down_windows(scenario: Scenario, table: JobTable, nodes: int) -> int:
    """The down windows one run of the scenario is expected to have: the table's rows and the random failures
    (:func:`random_windows`)."""
    return len(scenario.node_events) + random_windows(table, nodes, scenario.knobs.mtbf, scenario.knobs.repair)


def random_windows(table: JobTable, nodes: int, mtbf: float, repair: float) -> int:
    """The random failures (``mtbf`` finite) one run is expected to have: one per ``mtbf + repair`` per node
    over the workload's horizon (its submit span plus its longest job, or its work spread over the nodes if
    longer: a makespan's rough size, known before any run)."""
    if math.isinf(mtbf) or not len(table):
        return 0
    span = float(table.submit_time.max() - table.submit_time.min()) + float(table.duration.max())
    spread = float((table.duration * table.workers).sum()) / max(nodes, 1)
    return math.ceil(nodes * max(span, spread) / (mtbf + repair))


def _cluster_args(scenario: Scenario) -> list[str]:
    if scenario.cluster != "custom":
        return []
    return [
        *("--nodes", str(scenario.nodes)),
        *("--node-cpu", f"{scenario.node_cpu:g}", "--node-mem-gb", f"{scenario.node_mem_gb:g}"),
        *("--node-gpu", f"{scenario.node_gpu:g}"),
    ]


@functools.cache
def sample_cluster_args(sample: str) -> tuple[str, ...]:
    """The CLI's options for the cluster a bundled sample runs on in the dashboard (the one
    ``data.sample_workload`` gives it): its preset's shipped cluster file, else the preset's uniform
    cluster as the ``--nodes``/``--node-*`` shorthand (without them the CLI would take its default)."""
    entry = next((e for e in samples.SAMPLES if Path(e[0]).stem == sample), None)
    if entry is None:
        return ()
    _, preset, seed, overrides = entry
    shipped = SAMPLE_DIR / f"{preset}_cluster.yaml"
    if shipped.is_file():
        return ("--cluster", f"{SAMPLE_DIR.name}/{shipped.name}")
    nodes = presets.generate(preset, seed, overrides).cluster.nodes
    shapes = {node.capacity for node in nodes}
    if len(shapes) != 1:
        return ()
    cap = shapes.pop()
    return ("--nodes", str(len(nodes)), "--node-cpu", f"{cap.cpu:g}", "--node-mem-gb", f"{cap.mem_gb:g}",
            "--node-gpu", f"{cap.gpu:g}")  # fmt: skip


def explore_command(scenario: Scenario, workload_file: str = WORKLOAD_FILE, what: Sequence[str] = ()) -> str:
    """The ``simcore`` command(s) that compute this Explore scenario locally; with ``what`` (a command and
    its arguments before the knobs: ``("explain", "17", "--policy", "fitgpp")``), that command on the
    first seed's workload instead of the comparison."""
    policies = ["--policies", ",".join(scenario.policies), "--baseline", scenario.baseline]
    steps = []
    queues: list[str] = []
    if scenario.queues:  # the table as a file first (each line quoted: the text is the visitor's)
        steps.append(shlex.join(["printf", "%s\\n", *scenario.queues.splitlines()]) + f" > {QUEUES_FILE}")
        queues = ["--queues", QUEUES_FILE]
    if scenario.source == "generate" and scenario.seeds > 1 and not what:
        cluster = [] if scenario.cluster == "workload" else _sets(_cluster_params(scenario))
        args = ["simcore", "sweep", "--preset", scenario.preset, *_sets(scenario.gen), *cluster, *_knob_sets(scenario)]
        seeds = f"{scenario.knobs.seed}-{scenario.knobs.seed + scenario.seeds - 1}"
        steps.append(shlex.join([*args, *queues, "--seeds", seeds, *policies, "--out", "scenario.parquet"]))
        return "\n".join(steps)
    cluster = _cluster_args(scenario)
    if scenario.source == "generate":
        gen = ["simcore", "generate", "--preset", scenario.preset, "--seed", str(scenario.knobs.seed)]
        gen += [*_sets(scenario.gen), "--out", WORKLOAD_FILE]
        if not cluster:
            gen += ["--cluster-out", CLUSTER_FILE]
            cluster = ["--cluster", CLUSTER_FILE]
        if not queues and "quota_gpu" in presets.PRESETS[scenario.preset].params:  # the preset's own queues
            queues = ["--queues", f"{Path(WORKLOAD_FILE).stem}.queues.csv"]  # generate writes it beside --out
        steps.append(shlex.join(gen))
    elif scenario.source == "sample":
        workload_file = f"sample_workloads/{scenario.sample}.csv"
        if scenario.cluster == "workload":  # the sample's own cluster, named so the command reproduces the page
            cluster = list(sample_cluster_args(scenario.sample))
    command = (
        ["simcore", what[0], workload_file, *what[1:]] if what else ["simcore", "compare", workload_file, *policies]
    )
    steps.append(shlex.join([*command, *cluster, *queues, *_knob_sets(scenario)]))
    return "\n".join(steps)


def _cluster_params(scenario: Scenario) -> list[tuple[str, object]]:
    return [
        ("nodes", scenario.nodes),
        ("node_cpu", f"{scenario.node_cpu:g}"),
        ("node_mem_gb", f"{scenario.node_mem_gb:g}"),
        ("node_gpu", f"{scenario.node_gpu:g}"),
    ]


def queue_rows(scenario: Scenario) -> int:
    """The rows of the scenario's queues table (0: none)."""
    return max(0, len([line for line in scenario.queues.splitlines() if line.strip()]) - 1)


def check_scenario(scenario: Scenario, lim: Limits) -> None:
    """Refuse an Explore scenario over a limit that is known before any workload is built."""
    command = explore_command(scenario)
    checks = [("policies", len(scenario.policies), "max_policies", lim.max_policies)]
    if scenario.source != "generate":  # checked with the loaded workload's counts, all at once
        checks = []
    checks.append(("queues", queue_rows(scenario), "max_queues", lim.max_queues))
    if scenario.cluster == "custom":
        checks.append(("nodes", scenario.nodes, "max_nodes", lim.max_nodes))
    checks.append(("rows of the node-events table", len(scenario.node_events), "max_node_events", lim.max_node_events))
    if scenario.source == "generate":
        params = resolve_params(scenario.preset, dict(scenario.gen))  # a bad value is a UserError of its own
        checks += [
            ("seeds", scenario.seeds, "max_seeds", lim.max_seeds),
            ("jobs", int(params["jobs"]), "max_jobs", lim.max_jobs),
        ]
        if scenario.cluster == "workload":
            checks.append(("nodes", int(params["nodes"]), "max_nodes", lim.max_nodes))
        queued = bool(scenario.queues) or "quota_gpu" in params  # the table's queues or the preset's own
        runs = _expected_workers(params) * len(scenario.policies) * scenario.seeds * (QUEUES_COST if queued else 1)
        checks.append((_runs_label(queued), runs, "budget", lim.budget))
    _check_counts(checks, lim, command)


def _expected_workers(params: dict[str, object]) -> int:
    """Workers a generated workload is expected to have (its jobs, for presets without gangs)."""
    return math.ceil(int(params["jobs"]) * mean_workers(params))  # type: ignore[call-overload]


def check_run(
    scenario: Scenario,
    jobs: int,
    nodes: int,
    lim: Limits,
    workload_file: str = WORKLOAD_FILE,
    workers: int | None = None,
    windows: int = 0,
    queued: bool = False,
) -> None:
    """Refuse a loaded workload and cluster (sample or upload) that are over a limit; ``workers``
    (default: one per job) is what the job cap and the budget count, ``windows`` the down windows each
    run is expected to have (:func:`down_windows`), each :data:`DOWN_WINDOW_JOB_RUNS` job-runs more;
    ``queued``: the runs have queues (each job-run counts :data:`QUEUES_COST` times)."""
    seeds = scenario.seeds if scenario.source == "generate" else 1
    size = jobs if workers is None else workers
    runs = (size + windows * DOWN_WINDOW_JOB_RUNS) * len(scenario.policies) * seeds * (QUEUES_COST if queued else 1)
    checks = [
        ("policies", len(scenario.policies), "max_policies", lim.max_policies),
        ("jobs" if size == jobs else "workers of the jobs", size, "max_jobs", lim.max_jobs),
        ("nodes", nodes, "max_nodes", lim.max_nodes),
        ("rows of the node-events table", len(scenario.node_events), "max_node_events", lim.max_node_events),
        (_runs_label(queued, bool(windows)), runs, "budget", lim.budget),
    ]
    _check_counts(checks, lim, explore_command(scenario, workload_file))


def _runs_label(queued: bool, windows: bool = False) -> str:
    jobs = "(jobs + down windows x their cost)" if windows else "jobs"
    extra = f" x {QUEUES_COST} with queues" if queued else ""
    return f"job-runs ({jobs} x policies x seeds{extra})"


def check_bound(scenario: Scenario, jobs: int, lim: Limits, workload_file: str = WORKLOAD_FILE) -> None:
    """Refuse the pooled bound (one more run per seed) when the runs with it would be over the budget."""
    seeds = scenario.seeds if scenario.source == "generate" else 1
    runs = jobs * (len(scenario.policies) + 1) * seeds
    checks = [("job-runs with the pooled bound (jobs x (policies + 1) x seeds)", runs, "budget", lim.budget)]
    _check_counts(checks, lim, explore_command(scenario, workload_file))


def workers_of(table: JobTable) -> int:
    """The workers of a workload's jobs: what the budget and the job cap count (a gang once per worker)."""
    return int(table.workers.sum())  # type: ignore[union-attr]  # JobTable fills it in


def check_whatif(workers: int, simulations: int, lim: Limits, command: str, what: str = "this what-if") -> None:
    """Refuse a computation beside a comparison (a what-if of :mod:`simcore.analysis.whatif`, why every job
    waited, the report) whose simulations would be over the budget: each simulates the whole
    workload again, so it counts its workers once per simulation."""
    label = f"job-runs of {what} (jobs x simulations)"
    _check_counts([(label, workers * simulations, "budget", lim.budget)], lim, command)


def sweep_command(
    spec: SweepSpec, fixed: Sequence[tuple[str, object]], knob: str, values: str, source: Sequence[str] = ()
) -> str:
    """The ``simcore sweep`` command of the page's sweep; ``source``: its workload's options (default: the preset)."""
    counted = spec.seeds == tuple(range(len(spec.seeds)))  # "3" means seeds 0, 1, 2
    seeds = str(len(spec.seeds)) if counted else ",".join(map(str, spec.seeds))
    args = [
        "simcore",
        "sweep",
        *(source or ("--preset", spec.source.name)),
        *_sets(fixed),
        "--grid",
        f"{knob}={values}",
    ]
    args += ["--seeds", seeds, "--policies", ",".join(p.label for p in spec.policies)]
    return shlex.join([*args, "--baseline", ",".join(spec.baselines), "--out", "sweep.parquet"])


def check_sweep(
    spec: SweepSpec,
    fixed: Sequence[tuple[str, object]],
    knob: str,
    values: str,
    lim: Limits,
    source: Sequence[str] = (),
) -> None:
    """Refuse a sweep over a limit before it starts, naming every limit it is over at once: the counts of
    values, seeds and policies, every point's jobs (an upload's: its workers) and nodes, and the job-runs of
    all of them (``source``: the workload's options of the command the refusal names)."""
    over = _over(
        [
            ("sweep values", len(spec.points), "max_sweep_values", lim.max_sweep_values),
            ("seeds", len(spec.seeds), "max_seeds", lim.max_seeds),
            ("policies", len(spec.policies), "max_policies", lim.max_policies),
        ]
    )
    runs = 0
    for point in spec.points:
        what, jobs, nodes, workers = _point_size(spec, dict(point))
        over += _over([(what, jobs, "max_jobs", lim.max_jobs), ("nodes", nodes, "max_nodes", lim.max_nodes)])
        runs += workers * len(spec.seeds) * len(spec.policies)
    over += _over([("job-runs (jobs x policies x seeds x values)", runs, "budget", lim.budget)])
    _refuse_if(over, lim, sweep_command(spec, fixed, knob, values, source))


def _point_size(spec: SweepSpec, point: dict[str, object]) -> tuple[str, int, int, int]:
    """(what the job cap counts, its count, nodes, workers the budget counts) of one point of the sweep."""
    if isinstance(spec.source, FileSource):
        assert spec.source.table is not None and spec.source.cluster is not None
        jobs, workers = len(spec.source.table), int(spec.source.table.workers.sum())  # type: ignore[union-attr]
        nodes = int(point.get("nodes", len(spec.source.cluster.nodes)))  # type: ignore[call-overload]
        return ("jobs" if workers == jobs else "workers of the jobs"), workers, nodes, workers
    known = set(resolve_params(spec.source.name))  # the preset's parameters (the point's others are knobs)
    params = resolve_params(spec.source.name, {k: v for k, v in point.items() if k in known})
    return "jobs", int(params["jobs"]), int(params["nodes"]), _expected_workers(params)


def advice_command(
    preset: str,
    gen: Sequence[tuple[str, object]],
    seeds: int,
    policy: str,
    knobs: Sequence[tuple[str, object]],
    intervals: Sequence[float],
) -> str:
    """The ``simcore checkpoint-advice`` command that gives the Sweep page's advice locally."""
    args = ["simcore", "checkpoint-advice", preset, "--policy", policy, *_sets(gen), *_sets(knobs)]
    return shlex.join([*args, "--intervals", ",".join(f"{x:g}" for x in intervals), "--seeds", str(seeds)])


def check_advice(
    preset: str, gen: Sequence[tuple[str, object]], seeds: int, intervals: int, windows: int, lim: Limits, command: str
) -> None:
    """Refuse the checkpoint advisor over a limit: it runs every interval on every seed, so it counts the
    preset's expected workers x intervals x seeds job-runs, and each run's ``windows`` (its random failures,
    :func:`random_windows`; 0 before the workload is drawn) at their cost."""
    params = resolve_params(preset, dict(gen))
    runs = (_expected_workers(params) + windows * DOWN_WINDOW_JOB_RUNS) * intervals * seeds
    _check_counts(
        [
            ("intervals", intervals, "max_sweep_values", lim.max_sweep_values),
            ("seeds", seeds, "max_seeds", lim.max_seeds),
            ("jobs", int(params["jobs"]), "max_jobs", lim.max_jobs),
            ("nodes", int(params["nodes"]), "max_nodes", lim.max_nodes),
            ("job-runs ((jobs + down windows x their cost) x intervals x seeds)", runs, "budget", lim.budget),
        ],
        lim,
        command,
    )


def busy(lim: Limits, running: int, waiting: int, command: str) -> Refused:
    """The refusal of a visitor who finds the line of computations full (``max_waiting``)."""
    local = f"\nOr run it on your own machine:\n{command}" if command else ""
    return Refused(
        f"The server is busy: {plural(running, 'computation')} running and {plural(waiting, 'visitor')} "
        f"waiting in line, as many as {where(lim)} lets wait ({lim.max_waiting:,}).\n"
        f"Try again in a few minutes.{local}"
    )


def timed_out(what: str, lim: Limits, command: str, wall: bool) -> Refused:
    """The notice of a computation stopped at its CPU-time limit ``run_seconds`` or, on a server too
    busy to give it that time, at the wall-clock limit ``wall_seconds`` (``wall``)."""
    limit = (
        f"took longer than {fmt.duration(lim.wall_seconds)}, the longest {where(lim)} lets a computation last "
        "(the server is busy)"
        if wall
        else f"needed more than {fmt.duration(lim.run_seconds)} of CPU time, the most {where(lim)} gives a computation"
    )
    return Refused(f"{what} {limit} and was stopped.\nRun it on your own machine instead:\n{command}")
