"""``simcore explain`` and ``simcore whatif``: one job's story and why it waited, a counterfactual
with one change, and "when would my job start" (:mod:`simcore.analysis.whatif`).

Both take the workload, cluster and knob options of ``run``. ``--json`` prints plain JSON instead
of text (docs/cli.md gives its fields): infinite or missing numbers are null.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from simcore.analysis.compare import parse_policy_spec
from simcore.analysis.metrics import TRIO_LABELS
from simcore.analysis.whatif import (
    BASELINE,
    CHANGE_KINDS,
    WAIT_REASONS,
    Change,
    Forecast,
    JobDelta,
    Wait,
    WhatIf,
    all_waits,
    blocking_reasons,
    counterfactual,
    job_story,
    reason_at,
    when_would_it_start,
)
from simcore.analysis.whatif.story import StoryStep
from simcore.cli.common import add_set_option, config_from_args
from simcore.cli.inputs import add_cluster_options, add_workload_options, load_inputs
from simcore.cli.queues import add_queues_option
from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.policies.alternatives import same_state_for

#: ``--add`` keys -> the described job's fields (``submit`` is the time it is added at)
ADD_KEYS = {"job_id": "job_id", "submit": "submit", "duration": "duration", "cpu": "cpu", "mem_gb": "mem_gb"}
ADD_KEYS |= {"gpu": "gpu", "class": "job_class", "job_class": "job_class", "workers": "workers", "queue": "queue"}
TOP = 10  # touched jobs printed without --all


def add_explain(sub: argparse._SubParsersAction, help: str) -> None:
    """``explain`` (knob help: ``simcore run --help``)."""
    reasons = "\n".join(f"  {k:<19} {v}" for k, v in WAIT_REASONS.items())
    ex = sub.add_parser(
        "explain",
        help=help,
        epilog=f"wait reasons:\n{reasons}\n\nknobs for --set: see simcore run --help",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(ex)
    ex.add_argument("job_id", metavar="JOB_ID", nargs="?", help="the job to explain (not with --all-waits)")
    ex.add_argument(
        "--all-waits", action="store_true", help="every job's waits instead, from one run that watches every job"
    )
    ex.add_argument("--at", metavar="T", help="also print the reason it waited at instant T (seconds)")
    ex.set_defaults(func=cmd_explain)


def add_whatif(sub: argparse._SubParsersAction, help: str) -> None:
    """``whatif`` (knob help: ``simcore run --help``)."""
    kinds = "\n".join(f"  {k:<14} {v}" for k, v in CHANGE_KINDS.items())
    wi = sub.add_parser(
        "whatif",
        help=help,
        epilog=f"changes:\n{kinds}\n\nknobs for --set: see simcore run --help",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(wi)
    wi.add_argument("job_id", metavar="JOB_ID", nargs="?", help="the job to change (not with --add)")
    one = wi.add_mutually_exclusive_group(required=True)
    one.add_argument("--no-change", action="store_true", help="no change: the same run (a check of exactness)")
    one.add_argument("--not-preempted", action="store_true", help="the job is exempt from every victim search")
    one.add_argument("--submit-at", metavar="T", help="the job is submitted at T seconds instead")
    one.add_argument("--gpus", metavar="G", help="the job asks for G GPUs per worker (fewer, at least 1)")
    one.add_argument("--under", metavar="POLICY", help="the whole run under another policy spec (fitgpp:P=1)")
    one.add_argument(
        "--add",
        metavar="SPEC",
        help="when would this job start: job_id=x,submit=T,duration=D,cpu=C,mem_gb=M,gpu=G,class=TE[,workers=W]"
        "[,queue=Q] (its team's queue, with --queues)",
    )
    wi.add_argument("--all", action="store_true", help=f"list every touched job (default: the {TOP} that moved most)")
    wi.set_defaults(func=cmd_whatif)


def _common(p: argparse.ArgumentParser) -> None:
    add_workload_options(p)
    p.add_argument("--policy", default="fifo", help="policy name, optionally with knobs: fitgpp:P=1 (default fifo)")
    add_cluster_options(p)
    add_queues_option(p)
    add_set_option(p)
    p.add_argument("--json", action="store_true", help="print plain JSON instead of text (fields: docs/cli.md)")


def _inputs(args: argparse.Namespace):
    config = parse_policy_spec(args.policy, config_from_args(args)).config
    jobs, cluster = load_inputs(args)
    return jobs, cluster, config


def cmd_explain(args: argparse.Namespace) -> int:
    if args.all_waits:
        if args.job_id is not None or args.at is not None:
            raise UserError("--all-waits explains every job: give no JOB_ID and no --at with it")
        return _all_waits(args)
    if args.job_id is None:
        raise UserError("explain: give the JOB_ID to explain (or --all-waits for every job)")
    at = None if args.at is None else _seconds("--at", args.at)
    jobs, cluster, config = _inputs(args)
    from simcore.engine import simulate

    waits = blocking_reasons(jobs, cluster, config, args.job_id)
    # its decisions told against k8s's, lrtp's and fitgpp's choices on the same states (it changes nothing)
    story = job_story(simulate(jobs, cluster, config, same_state=same_state_for(config.policy)), args.job_id, waits)
    now = None if at is None else reason_at(waits, at)
    if args.json:
        out = {"job_id": args.job_id, "policy": args.policy, "story": [_step(s) for s in story]}
        out |= {
            "waits": [_wait(w) for w in waits],
            "at": None if at is None else {"time": at, "wait": now and _wait(now)},
        }
        _print_json(out)
        return 0
    n = len(cluster.nodes)
    print(f"job {args.job_id} under {args.policy} on {n} node{'' if n == 1 else 's'}:")
    for s in story:
        print(f"  {fmt.clock(s.time)}  {s.kind:<9}  {s.text}")
    if waits:
        print("why it waited:")
        for w in waits:
            print(f"  {_span(w)}  {w.reason}: {w.text}")
    if at is not None:
        print(f"at {fmt.clock(at)}: " + (f"{now.reason}: {now.text}" if now else "not waiting then"))
    return 0


def _all_waits(args: argparse.Namespace) -> int:
    """Every job that waited, with each of its waits (JSON: every simulated job, in the run's order)."""
    every = all_waits(*_inputs(args))
    if args.json:
        _print_json({"policy": args.policy, "jobs": {j: [_wait(w) for w in waits] for j, waits in every.items()}})
        return 0
    waited = {j: waits for j, waits in every.items() if waits}
    print(f"{len(waited)} of {len(every)} jobs waited under {args.policy}:")
    for j, waits in waited.items():
        for w in waits:
            print(f"  {j:<12} {_span(w)}  {w.reason}: {w.text}")
    return 0


def cmd_whatif(args: argparse.Namespace) -> int:
    if args.add is not None:
        if args.job_id is not None:
            raise UserError("--add describes a new job: give no JOB_ID with it")
        fields = _parse_add(args.add)
        at = _seconds("submit", fields.pop("submit", "0"))
        jobs, cluster, config = _inputs(args)
        _print_forecast(when_would_it_start(jobs, cluster, config, fields, at), args.json)
        return 0
    if args.job_id is None:
        raise UserError("whatif: give the JOB_ID to change (or --add to describe a new job)")
    change = _change(args)
    jobs, cluster, config = _inputs(args)
    w = counterfactual(jobs, cluster, config, args.job_id, change)
    shown = w.touched if args.all else w.touched[:TOP]
    if args.json:
        out = {"job_id": args.job_id, "policy": args.policy, "change": {"kind": change.kind, "value": change.value}}
        out |= {"job": _delta(w.job), "baseline": BASELINE, "trio_before": _nums(w.trio_before)}
        out |= {
            "trio_after": _nums(w.trio_after),
            "touched_count": len(w.touched),
            "touched": [_delta(d) for d in shown],
        }
        _print_json(out)
        return 0
    _print_whatif(w, args.job_id, shown)
    return 0


def _change(args: argparse.Namespace) -> Change:
    if args.no_change:
        return Change("none")
    if args.not_preempted:
        return Change("not_preempted")
    if args.submit_at is not None:
        return Change("submit_at", _seconds("--submit-at", args.submit_at))
    if args.gpus is not None:
        return Change("gpus", _seconds("--gpus", args.gpus))
    return Change("policy", args.under)


def _seconds(option: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UserError(f"{option}: {text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise UserError(f"{option}: {text!r} must be a finite number >= 0")
    return value


def _parse_add(text: str) -> dict[str, str]:
    """``job_id=x,submit=T,...`` -> the described job's fields (plus ``submit``)."""
    out: dict[str, str] = {}
    for part in (p.strip() for p in text.split(",")):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UserError(f"--add: {part!r} is not KEY=VALUE")
        if key not in ADD_KEYS:
            raise UserError(f"--add: unknown field {key!r} (known: {', '.join(ADD_KEYS)})")
        if ADD_KEYS[key] in out:
            raise UserError(f"--add: {key!r} given twice")
        out[ADD_KEYS[key]] = value.strip()
    return out


def _print_whatif(w: WhatIf, job_id: str, shown: tuple[JobDelta, ...]) -> None:
    value = "" if w.change.value is None else f" {w.change.value}"
    print(f"job {job_id}, change {w.change.kind}{value}:")
    print(f"  {'':<14} {'before':>12} {'after':>12} {'delta':>12}")
    for name, a, b in (("start", w.job.start_before, w.job.start_after), ("JCT", w.job.jct_before, w.job.jct_after)):
        print(f"  {name:<14} {fmt.duration(a):>12} {fmt.duration(b):>12} {fmt.duration(b - a):>12}")
    print(f"trio, % vs {BASELINE} on the same jobs:")
    for key, label in TRIO_LABELS.items():
        print(f"  {label:<19} {fmt.pct(w.trio_before[key]):>9} -> {fmt.pct(w.trio_after[key]):>9}")
    more = f" (the {len(shown)} that moved most; --all for every one)" if len(shown) < len(w.touched) else ""
    print(f"{len(w.touched)} other job(s) moved{more}:")
    for d in shown:
        print(
            f"  {d.job_id:<12} start {fmt.duration(d.start_after - d.start_before):>10}, "
            f"JCT {fmt.duration(d.jct_before):>9} -> {fmt.duration(d.jct_after):>9}"
        )


def _print_forecast(f: Forecast, as_json: bool) -> None:
    if as_json:
        out = {"job_id": f.job_id, "submit": f.submit, "start": f.start, "nodes": list(f.nodes)}
        out |= {"victims": list(f.victims), "waits": [_wait(w) for w in f.waits], "caveat": f.caveat}
        _print_json(out)
        return
    assert f.start is not None
    print(f"job {f.job_id}, submitted at {fmt.clock(f.submit)}:")
    print(f"  starts at {fmt.clock(f.start)} (after {fmt.duration(f.start - f.submit)}) on {', '.join(f.nodes)}")
    if f.victims:
        print(f"  preempting {', '.join(f.victims)}")
    for w in f.waits:
        print(f"  waits {_span(w)}  {w.reason}: {w.text}")
    print(f"note: {f.caveat}")


def _span(w: Wait) -> str:
    end = "end of run" if math.isinf(w.end) else fmt.clock(w.end)
    return f"{fmt.clock(w.start)} - {end} ({fmt.duration(w.end - w.start)})"


def _num(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _nums(d: dict[str, float]) -> dict[str, float | None]:
    return {k: _num(v) for k, v in d.items()}


def _step(s: StoryStep) -> dict[str, Any]:
    return {"time": s.time, "kind": s.kind, "text": s.text, "nodes": list(s.nodes), "other": s.other}


def _wait(w: Wait) -> dict[str, Any]:
    return {"start": w.start, "end": _num(w.end), "reason": w.reason, "text": w.text, "blocker": w.blocker}


def _delta(d: JobDelta) -> dict[str, Any]:
    return {
        "job_id": d.job_id,
        **{k: _num(getattr(d, k)) for k in ("jct_before", "jct_after", "start_before", "start_after")},
    }


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, allow_nan=False))
