"""Beyond the paper, in ``simcore reproduce``: our ``fitdelay`` against fitgpp and k8s, and ``min_runtime``.

Two sweeps next to the main study (same preset, jobs, nodes and seeds, so the same workloads):

* *regimes*: the ``paper`` preset with ``checkpoint = none``, ``periodic``, load 1.2 and TE
  share 0.5 (the preset itself is the main study's rows, the Alibaba recipe A the trace
  study's rows), for fifo, k8s, fitgpp and fitdelay;
* *min_runtime*: 600 s and 3600 s (0 s is again the main study, or the regime rows for
  ``checkpoint = none``) for every preemptive policy.

The criteria of the issue are checked from the rows with the statistics of
:mod:`simcore.experiments.study.tables` (paired differences, Student-t 95% CIs) and every sentence of the
verdict is generated from them. :mod:`simcore.experiments.study.run` runs the two sweeps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from simcore.analysis.stats import SPREAD_NAME
from simcore.experiments.study import tables as rp  # "rp": these came from simcore.reproduce; the short name kept
from simcore.experiments.study.figures import Figures
from simcore.experiments.study.plan import Plan, same

OURS, REF, K8S = "fitdelay", "fitgpp", "k8s"
PREEMPTIVE = (K8S, "lrtp", "random", REF, OURS)
ALT_REENTRY = 600  # a smaller price of room given up, run alongside to show the trade it makes
ALT = f"{OURS}:reentry={ALT_REENTRY}"
REGIME_POLICIES = ("fifo", *PREEMPTIVE, ALT)  # fifo: the baseline of the trio
SHOWN = (K8S, REF, OURS, ALT)  # in the table of absolute values
MIN_RUNTIMES = (0, 600, 3600)
MIN_RUNTIME_MODES = ("on_preempt", "none")
TE_TOLERANCE_PCT = 1.0  # "TE p95 slowdown within 1% of fitgpp's"
#: (label, the settings away from the preset; None = the main study, "trace" = recipe A)
REGIMES: tuple[tuple[str, Any], ...] = (
    ("paper", None),
    ("checkpoint = none", {"checkpoint": "none"}),
    ("checkpoint = periodic", {"checkpoint": "periodic"}),
    ("load = 1.2", {"load": 1.2}),
    ("te_share = 0.5", {"te_share": 0.5}),
    ("Alibaba recipe A", "trace"),
)
LOSS_REGIME = "checkpoint = none"  # where lost work is compared with k8s's
MUST_WIN = ("checkpoint = none", "checkpoint = periodic")  # where BE must be better with a CI excluding 0


def regime_grid(plan: Plan) -> dict[str, Any]:
    grid = [{k: [v]} for _, where in REGIMES if isinstance(where, dict) for k, v in where.items()]
    return {
        "preset": "paper",
        "set": {"jobs": plan.jobs, "nodes": plan.nodes},
        "grid": grid,
        "seeds": plan.main_seeds,
        "policies": list(REGIME_POLICIES),
        "baseline": "fifo",
    }


def min_runtime_grid(plan: Plan) -> dict[str, Any]:
    values = [v for v in MIN_RUNTIMES if v > 0]
    return {
        "preset": "paper",
        "set": {"jobs": plan.jobs, "nodes": plan.nodes},
        "grid": {"min_runtime": values, "checkpoint": list(MIN_RUNTIME_MODES)},
        "seeds": plan.main_seeds,
        "policies": ["fifo", *PREEMPTIVE],
        "baseline": "fifo",
    }


@dataclass(frozen=True)
class Study:
    regimes: pd.DataFrame
    min_runtime: pd.DataFrame
    timings: dict[str, float]
    grids: tuple[str, ...] = ("beyond_regimes", "beyond_min_runtime")


# --- the rows of each regime ----------------------------------------------------------------------


def _where(rows: pd.DataFrame, settings: Mapping[str, Any]) -> pd.DataFrame:
    mask = pd.Series(True, index=rows.index)
    for k, v in settings.items():
        mask &= rows[k].map(lambda x, v=v: same(x, v))
    return rows[mask]


def regime_frames(study: Study, main: pd.DataFrame, trace_a: pd.DataFrame | None) -> dict[str, pd.DataFrame]:
    out: dict[str, pd.DataFrame] = {}
    for label, where in REGIMES:
        if where is None:
            out[label] = main[main["policy"].isin(REGIME_POLICIES)]
        elif where == "trace":
            if trace_a is not None:
                out[label] = trace_a
        else:
            out[label] = _where(study.regimes, where)
    return out


def min_runtime_frame(study: Study, main: pd.DataFrame, mode: str) -> pd.DataFrame:
    """Rows of the curve for one checkpoint mode, min_runtime 0 included (same seeds, same workloads)."""
    zero = main if mode == "on_preempt" else _where(study.regimes, {"checkpoint": mode})
    zero = zero[zero["policy"].isin(["fifo", *PREEMPTIVE]) & zero["seed"].isin(study.min_runtime["seed"].unique())]
    return pd.concat([zero, _where(study.min_runtime, {"checkpoint": mode})], ignore_index=True)


# --- the criteria -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    """The issue's criteria in one regime, each from paired differences on the same workloads."""

    regime: str
    te: rp.Stat  # fitdelay - fitgpp, TE p95 slowdown, in % of fitgpp's mean
    be50: rp.Stat  # fitdelay - fitgpp, BE p50 slowdown
    be95: rp.Stat  # fitdelay - fitgpp, BE p95 slowdown
    lost: rp.Stat  # fitdelay - k8s, lost work (s)
    replicated: bool  # several seeds: CIs exist

    @property
    def te_ok(self) -> bool:
        bound = self.te.hi if self.replicated else self.te.mean
        return bound <= TE_TOLERANCE_PCT and (self.te.lo if self.replicated else self.te.mean) >= -TE_TOLERANCE_PCT

    @property
    def be_not_worse(self) -> bool:
        if self.replicated:
            return self.be50.lo <= 0 and self.be95.lo <= 0
        return self.be50.mean <= 0 and self.be95.mean <= 0

    @property
    def be_better(self) -> bool:
        return self.replicated and self.be50.hi < 0 and self.be95.hi < 0

    @property
    def lost_ok(self) -> bool:
        return self.lost.mean <= 0


def check(label: str, rows: pd.DataFrame) -> Check:
    te = rp.paired(rows, OURS, REF, "TE_slowdown_p95")
    scale = 100 / rp.stat(rows, REF, "TE_slowdown_p95").mean
    return Check(
        regime=label,
        te=rp.Stat(te.n, te.mean * scale, te.lo * scale, te.hi * scale),
        be50=rp.paired(rows, OURS, REF, "BE_slowdown_p50"),
        be95=rp.paired(rows, OURS, REF, "BE_slowdown_p95"),
        lost=rp.paired(rows, OURS, K8S, "lost_work"),
        replicated=rows["seed"].nunique() > 1,
    )


def _yes(ok: bool, text: str = "yes") -> str:
    return f"**{text}**" if ok else "no"


def criteria_rows(checks: list[Check]) -> list[list[str]]:
    rows = []
    for c in checks:
        must = c.regime in MUST_WIN
        better = _yes(c.be_better) if must else (_yes(c.be_better) if c.be_better else "-")
        lost = rp.fmt_val(c.lost) + (f" ({_yes(c.lost_ok, 'at most k8s')})" if c.regime == LOSS_REGIME else "")
        rows.append(
            [
                c.regime,
                f"{rp.fmt_val(c.te)}% ({_yes(c.te_ok, 'within 1%')})",
                rp.fmt_val(c.be50),
                rp.fmt_val(c.be95),
                _yes(c.be_not_worse),
                better + (" (required)" if must else ""),
                lost,
            ]
        )
    return rows


def verdict_text(checks: list[Check], frames: Mapping[str, pd.DataFrame]) -> str:
    """Plain statements of where fitdelay meets each criterion and where it does not, with the reason we know."""
    lines = []
    met = [c.regime for c in checks if c.te_ok and c.be_not_worse and (c.regime not in MUST_WIN or c.be_better)]
    if met:
        lines.append(f"- TE within 1% of fitgpp and BE not worse (better where required): {', '.join(met)}.")
    for c in checks:
        rows = frames[c.regime]
        caps = (
            f"most preemptions of one job: fitdelay {rp.fmt_val(rp.stat(rows, OURS, 'max_preemptions_per_job'))}, "
            f"fitgpp {rp.fmt_val(rp.stat(rows, REF, 'max_preemptions_per_job'))}"
        )
        if not c.te_ok:
            lines.append(
                f"- *{c.regime}*: TE p95 slowdown differs from fitgpp's by {rp.fmt_val(c.te)}% (not shown within "
                f"{TE_TOLERANCE_PCT:g}%). With periodic or no checkpoints fitdelay has no `P` cap, so it finds a "
                f"victim where fitgpp's capped candidates run out ({caps}), and it lets a TE job wait up to one grace "
                "period for a BE job that is about to finish."
            )
        if not c.be_not_worse:
            lines.append(be_worse_text(c, rows, caps))
        elif c.regime in MUST_WIN and not c.be_better:
            lines.append(
                f"- *{c.regime}*: BE is not measurably better than under fitgpp (BE p50 {rp.fmt_val(c.be50)}, "
                f"BE p95 {rp.fmt_val(c.be95)}): the CI does not exclude 0 for both."
            )
        if c.regime == LOSS_REGIME:
            k8s = rp.fmt_val(rp.stat(rows, K8S, "lost_work"))
            ours = rp.fmt_val(rp.stat(rows, OURS, "lost_work"))
            ref = rp.fmt_val(rp.stat(rows, REF, "lost_work"))
            if c.lost_ok:
                lines.append(f"- *{c.regime}*: lost work fitdelay {ours} s, k8s {k8s} s, fitgpp {ref} s.")
            else:
                lines.append(
                    f"- *{c.regime}*: fitdelay loses more work than k8s ({ours} s against {k8s} s; fitgpp {ref} s). "
                    "Without checkpoints both take, among the fewest victims, nearly always the job that has run "
                    "least (k8s by its start, fitdelay by the work it would lose); what is left is how their "
                    "different choices play out over the run."
                )
        if ALT in set(rows["policy"]) and rows["checkpoint"].iloc[0] == "periodic":  # reentry prices room there only
            lines.append(alt_text(c.regime, rows))
        if not c.replicated:
            lines.append(
                f"- *{c.regime}* is one workload (a real trace has no seeds): single paired measurements, no CI."
            )
        elif c.regime not in MUST_WIN and c.be_not_worse and not c.be_better:
            lines.append(
                f"- *{c.regime}*: nothing is lost at a preemption (`on_preempt`), so fitdelay is fitgpp, its `P` "
                f"cap included (BE p50 {rp.fmt_val(c.be50)}, BE p95 {rp.fmt_val(c.be95)})."
                if rows["checkpoint"].iloc[0] == "on_preempt"
                else f"- *{c.regime}*: no measurable BE difference from fitgpp."
            )
    return "\n".join(lines) + "\n"


def be_worse_text(c: Check, rows: pd.DataFrame, caps: str) -> str:
    """Why BE is worse than under fitgpp. With ``on_preempt`` fitdelay is fitgpp, so the checkpoints lose work
    here and the difference is the lifted ``P`` cap or the ranking by delay."""
    head = f"- *{c.regime}*: BE is worse than under fitgpp (BE p50 {rp.fmt_val(c.be50)}, BE p95 {rp.fmt_val(c.be95)}"
    head += "; one workload, so chance is not excluded)." if not c.replicated else ")."
    return f"{head} Without the `P` cap the same cheap victims are taken again and again ({caps})."


def alt_text(regime: str, rows: pd.DataFrame) -> str:
    """The trade a smaller ``reentry`` makes, measured on the same workloads."""
    lost = rp.paired(rows, ALT, K8S, "lost_work")
    b50, b95 = rp.paired(rows, ALT, REF, "BE_slowdown_p50"), rp.paired(rows, ALT, REF, "BE_slowdown_p95")
    return (
        f"- *{regime}*, with `reentry` = {ALT_REENTRY} s instead of the default: lost work minus k8s's "
        f"{rp.fmt_val(lost)} s; BE p50 minus fitgpp's {rp.fmt_val(b50)}, BE p95 {rp.fmt_val(b95)}. A smaller price "
        "of room given up moves fitdelay towards the victim that loses least, whatever room it leaves."
    )


# --- the document ---------------------------------------------------------------------------------


def section(plan: Plan, study: Study, main: pd.DataFrame, trace_a: pd.DataFrame | None, figs: Figures) -> str:
    frames = regime_frames(study, main, trace_a)
    checks = [check(label, rows) for label, rows in frames.items()]
    n_jobs = int(main["jobs_simulated"].iloc[0])
    seeds = main["seed"].nunique()
    out = ["## 8. Beyond the paper: `fitdelay` and `min_runtime`\n"]
    out.append(
        "`fitdelay` is our own policy, not the paper's. Where a preemption loses nothing (`on_preempt`) it is "
        "fitgpp, `P` cap included. With `periodic` or no checkpoints it has no `P` cap, takes the fewest victims, "
        "then the set that causes the least BE delay in seconds: lost work + grace + restore, + `reentry` x the "
        "normalised room its victims give up (`periodic` only); and it preempts nobody while a running BE job "
        'whose departure makes room finishes within the grace period (docs/policies.md, "Beyond the paper"). '
        f"`paper` preset, **{n_jobs} jobs** per workload on {plan.nodes} nodes x 8 GPUs, {seeds} seeds per regime"
        + (" (the Alibaba recipe A is one workload)" if trace_a is not None else "")
        + f"; every difference is paired on the same workloads, mean [{SPREAD_NAME}].\n"
    )
    out.append("### Criteria\n")
    out.append(
        "TE: fitdelay minus fitgpp, TE p95 slowdown, in % of fitgpp's. BE: fitdelay minus fitgpp, slowdown units "
        "(negative = fitdelay better); *not worse* = the CI does not lie above 0, *better* = it lies below 0. "
        "Lost work: fitdelay minus k8s, seconds per workload.\n"
    )
    out.append(
        rp.table(
            [
                "regime",
                "TE p95, fitdelay - fitgpp",
                "BE p50, fitdelay - fitgpp",
                "BE p95, fitdelay - fitgpp",
                "BE not worse",
                "BE better",
                "lost work, fitdelay - k8s (s)",
            ],
            criteria_rows(checks),
        )
    )
    out.append("")
    out.append(verdict_text(checks, frames))
    out.append("### Absolute values per regime\n")
    cols = [
        ("TE_slowdown_p95", "TE p95 slowdown"),
        ("BE_slowdown_p50", "BE p50 slowdown"),
        ("BE_slowdown_p95", "BE p95 slowdown"),
        ("lost_work", "lost work (s)"),
        ("preemptions", "preemptions"),
        ("max_preemptions_per_job", "most preemptions of one job"),
    ]
    rows = [
        [label, p, *(rp.fmt_val(rp.stat(at, p, m)) for m, _ in cols)]
        for label, at in frames.items()
        for p in SHOWN
        if p in set(at["policy"])
    ]
    out.append(rp.table(["regime", "policy", *(name for _, name in cols)], rows))
    out.append("")
    out.append(min_runtime_section(study, main, figs))
    return "\n".join(out)


def min_runtime_section(study: Study, main: pd.DataFrame, figs: Figures) -> str:
    out = ["### `min_runtime`: how an exemption after each start moves every preemptive policy\n"]
    out.append(
        f"min_runtime in {{{', '.join(map(str, MIN_RUNTIMES))}}} s, {study.min_runtime['seed'].nunique()} seeds per "
        "point, same workloads as above. A running BE job is a victim candidate only once its current segment has "
        f"lasted min_runtime; a TE job that finds no candidate waits. Mean [{SPREAD_NAME}].\n"
    )
    cols = [
        ("TE_slowdown_p95", "TE p95 slowdown", ""),
        ("TE_wait_max", "TE max wait", "s"),
        ("BE_slowdown_p50", "BE p50 slowdown", ""),
        ("BE_slowdown_p95", "BE p95 slowdown", ""),
        ("preemptions", "preemptions", ""),
        ("max_preemptions_per_job", "most preemptions of one job", ""),
        ("lost_work", "lost work (s)", ""),
    ]
    for mode in MIN_RUNTIME_MODES:
        frame = min_runtime_frame(study, main, mode)
        rows = []
        for p in PREEMPTIVE:
            for v in MIN_RUNTIMES:
                at = _where(frame, {"min_runtime": v})
                rows.append([p, str(v), *(rp.fmt_val(rp.stat(at, p, m), u) for m, _, u in cols)])
        out.append(f"checkpoint = {mode}:\n")
        out.append(rp.table(["policy", "min_runtime (s)", *(name for _, name, _ in cols)], rows))
        series = {
            p: (list(MIN_RUNTIMES), [_where(frame[frame["policy"] == p], {"min_runtime": v}) for v in MIN_RUNTIMES])
            for p in PREEMPTIVE
        }
        key = "min_runtime" if mode == "on_preempt" else f"min_runtime_checkpoint_{mode}"
        out.append(f"\n![min_runtime, checkpoint {mode}]({figs.curve(key, series, None)})\n")
        out.append(min_runtime_text(frame, mode))
    return "\n".join(out)


def min_runtime_text(frame: pd.DataFrame, mode: str) -> str:
    """What the longest exemption does to each policy, paired against no exemption on the same workloads."""
    longest = max(MIN_RUNTIMES)
    parts, losses = [], []
    for p in PREEMPTIVE:
        a, b = _where(frame, {"min_runtime": longest}), _where(frame, {"min_runtime": 0})
        both = pd.concat([a[a["policy"] == p].assign(policy="on"), b[b["policy"] == p].assign(policy="off")])
        both = both.assign(point_id="same")  # pair by seed across the two settings
        d = {m: rp.paired(both, "on", "off", m) for m in ("TE_slowdown_p95", "BE_slowdown_p50", "lost_work")}
        losses.append(d["lost_work"])
        parts.append(
            f"{p}: TE p95 {rp.fmt_val(d['TE_slowdown_p95'])}, BE p50 {rp.fmt_val(d['BE_slowdown_p50'])}, "
            f"lost work {rp.fmt_val(d['lost_work'])} s"
        )
    text = f"min_runtime = {longest} s minus 0 s, paired by seed (checkpoint = {mode}): " + "; ".join(parts) + "."
    if any(d.lo > 0 for d in losses):
        text += (
            " Where a preemption loses work, the exemption raises the loss: it protects exactly the jobs that "
            "have run least, so the victims are older ones."
        )
    return text + "\n"
