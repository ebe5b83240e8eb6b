"""The study's generated prose: every sentence quotes a measured number, and every claim that could go
either way is chosen from the confidence intervals, so the text stays true when it is regenerated.

Pure functions of the rows (pandas frames as stored in ``rows_*.parquet``) and the plan: no file is read
or written here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from simcore.analysis.metrics import versus
from simcore.core import fmt
from simcore.core.model import SimConfig
from simcore.experiments.study.plan import (
    BE_P50,
    NAIVE,
    PAPER_TRIO,
    TE_P95,
    TRACE_UNCAPPED_P,
    Plan,
    centre,
    fitgpp_label,
)
from simcore.experiments.study.tables import Stat, fmt_pct, fmt_val, paired, regime_rows, regime_verdict, stat

#: The rows' columns the sentences quote: a trio entry against a baseline.
TE_VS_FIFO, BE50_VS_FIFO, BE50_VS_PRIORITY = versus(TE_P95, "fifo"), versus(BE_P50, "fifo"), versus(BE_P50, "priority")


def verdict(diff: Stat, what: str, better: str = "lower") -> str:
    """'lower', 'higher' or 'no clear difference', judged by whether the CI excludes 0."""
    if not math.isfinite(diff.lo):
        return f"{what}: not enough seeds to tell"
    if diff.hi < 0:
        return f"{what} is lower" + (" (better)" if better == "lower" else "")
    if diff.lo > 0:
        return f"{what} is higher" + (" (worse)" if better == "lower" else "")
    return f"{what}: no clear difference"


def headline_text(main: pd.DataFrame, n_jobs: int, seeds: int) -> str:
    te, b50, b95 = (stat(main, "fitgpp", versus(k, "fifo")) for k in PAPER_TRIO)
    paper_te, paper_b50, paper_b95 = (fmt.pct(v) for v in PAPER_TRIO.values())
    pr = stat(main, "priority", "TE_slowdown_p95")
    fg = stat(main, "fitgpp", "TE_slowdown_p95")
    ratio = pr.mean / fg.mean if fg.mean > 0 else math.nan
    return (
        f"On {n_jobs}-job workloads ({seeds} seeds), fitgpp changes the TE p95 slowdown by {fmt_pct(te)} against FIFO "
        f"(paper: {paper_te}), the BE median slowdown by {fmt_pct(b50)} (paper: {paper_b50}) and the BE p95 slowdown "
        f"by {fmt_pct(b95)} (paper: {paper_b95}). Priority ordering alone leaves the TE p95 slowdown at "
        f"{fmt.number(pr.mean)}, {fmt.number(ratio)} times fitgpp's {fmt.number(fg.mean)}.\n"
    )


def comparison_text(main: pd.DataFrame, others: Sequence[str]) -> str:
    lines = []
    for o in others:
        parts = [
            verdict(paired(main, "fitgpp", o, "BE_slowdown_p50"), "BE p50 slowdown"),
            verdict(paired(main, "fitgpp", o, "BE_slowdown_p95"), "BE p95 slowdown"),
            verdict(paired(main, "fitgpp", o, "TE_slowdown_p95"), "TE p95 slowdown"),
        ]
        lines.append(f"- against **{o}**, fitgpp's " + "; ".join(parts) + ".")
    return "\n".join(lines) + "\n"


#: Claims of one kind: (where fitgpp wins, where it does not), each a Markdown bullet.
Claims = tuple[list[str], list[str]]


def mechanism_text(main: pd.DataFrame, curves: pd.DataFrame, plan: Plan, trace_rows: Mapping[str, pd.DataFrame]) -> str:
    """Where fitgpp wins and loses. Every claim quotes a measured number, and the claims that could go
    either way are chosen from the confidence intervals, so the text stays true when it is regenerated."""
    cfg = SimConfig()
    naive = [o for o in NAIVE if o in set(main["policy"])]
    wins: list[str] = [te_latency_text(main, cfg)]
    losses: list[str] = []
    for w, lost in (
        be_naive_claims(main, naive, cfg),
        be_priority_claims(main, naive),
        regime_claims(plan, main, curves),
    ):
        wins += w
        losses += lost
    losses += te_tail_text(main, naive) + cap_text(main, plan, cfg) + variant_texts(main, plan)
    losses += [trace_text(recipe, rows, cfg) for recipe, rows in trace_rows.items()]
    n_jobs = int(main["jobs_simulated"].iloc[0])
    head = (
        f"All statements are about the `paper` preset with {n_jobs} jobs per workload unless a real trace is named.\n"
    )
    parts = [head, "**Where fitgpp wins.**\n", *wins, "", "**Where it does not win, or wins nothing.**\n", *losses]
    return "\n".join(parts) + "\n"


def te_latency_text(main: pd.DataFrame, cfg: SimConfig) -> str:
    """TE waits bounded by the grace period: what preempting at all buys."""
    worst_wait = float(main.loc[main["policy"] == "fitgpp", "TE_wait_max"].max())
    within = worst_wait <= cfg.grace + 1e-6
    bound = "never more than the grace period" if within else f"at most {fmt.duration(worst_wait)}"
    return (
        f"- *TE latency, against fifo and priority.* A TE job that fits nowhere signals a running BE job and starts "
        f"when the victim's grace period ends, so its wait is bounded by `grace` ({cfg.grace:g} s) rather than by the "
        f"remaining run time of some BE job (BE median {centre()['be_median_s'] / fmt.HOUR:g} h). Worst TE wait "
        f"measured under fitgpp: {fmt.duration(worst_wait)} over all seeds ({bound}), against "
        f"{fmt_val(stat(main, 'priority', 'TE_wait_max'), 's')} (mean of the per-seed maxima) under priority, which "
        "only reorders the queue: a TE job at the head still waits for a node to drain. TE p95 slowdown: fitgpp "
        f"{fmt_val(stat(main, 'fitgpp', 'TE_slowdown_p95'))}, priority "
        f"{fmt_val(stat(main, 'priority', 'TE_slowdown_p95'))}, fifo {fmt_val(stat(main, 'fifo', 'TE_slowdown_p95'))}. "
        "Every preemptive policy gets this; it is the effect of preempting at all."
    )


def be_naive_claims(main: pd.DataFrame, naive: Sequence[str], cfg: SimConfig) -> Claims:
    """fitgpp's BE slowdowns against the naive preemptors (paired), with the victim-size mechanism."""
    sizes = ", ".join(f"{o} {fmt_val(stat(main, o, 'victim_gpu_mean'))}" for o in naive)
    counts = ", ".join(f"{o} {fmt_val(stat(main, o, 'preemptions'))}" for o in naive)
    caps = ", ".join(f"{o} {fmt_val(stat(main, o, 'max_preemptions_per_job'))}" for o in naive)
    diffs = [
        (o, paired(main, "fitgpp", o, "BE_slowdown_p50"), paired(main, "fitgpp", o, "BE_slowdown_p95")) for o in naive
    ]
    detail = "; ".join(f"{o}: BE p50 {fmt_val(a)} ({_word(a)}), BE p95 {fmt_val(b)} ({_word(b)})" for o, a, b in diffs)
    lower = [o for o, a, b in diffs if a.hi < 0 or b.hi < 0]
    higher = [o for o, a, b in diffs if a.lo > 0 or b.lo > 0]
    mechanism = (
        "fitgpp takes the fewest victims and then the tightest fit, so a 1-GPU TE job takes the place of a 1- or "
        "4-GPU BE job when one is running rather than of a whole-node job (mean GPUs of the jobs preempted: fitgpp "
        f"{fmt_val(stat(main, 'fitgpp', 'victim_gpu_mean'))}, {sizes}). A small victim gets back in soon, through the "
        "gaps that greedy backfill lets it use; a whole-node victim waits for a whole node to drain while the GPUs "
        "the TE job did not need are taken by others. The price is that a small victim frees less room, so fitgpp "
        f"preempts more often ({fmt_val(stat(main, 'fitgpp', 'preemptions'))} preemptions per workload against "
        f"{counts}); its `P` cap ({cfg.P}) spreads them (most preemptions of one job "
        f"{fmt_val(stat(main, 'fitgpp', 'max_preemptions_per_job'))} against {caps}; lrtp picks the longest remaining "
        "job, the same one again and again)."
    )
    bullet = f"- *BE cost against the naive preemptors* (paired, fitgpp minus the other, slowdown units): {detail}. "
    if lower and not higher:
        return [
            bullet + f"fitgpp's BE slowdowns are measurably lower than those of {', '.join(lower)}. Why: {mechanism}"
        ], []
    if higher:
        return [], [
            bullet + f"fitgpp's BE slowdowns are measurably higher than those of {', '.join(higher)}. {mechanism}"
        ]
    return [bullet + f"The differences are within the noise of these seeds. By design: {mechanism}"], []


def be_priority_claims(main: pd.DataFrame, naive: Sequence[str]) -> Claims:
    """BE p50 against priority, which orders TE first without preempting: what preemption itself costs BE."""
    prio = stat(main, "fitgpp", BE50_VS_PRIORITY)
    naive_prio = ", ".join(f"{o} {fmt_pct(stat(main, o, BE50_VS_PRIORITY))}" for o in naive)
    prio_text = (
        f"BE p50 slowdown against priority (no preemption): fitgpp {fmt_pct(prio)}, {naive_prio}. Most of the BE "
        "penalty against fifo in section 1 comes from TE-first ordering, which priority pays too (priority alone: "
        f"{fmt_pct(stat(main, 'priority', BE50_VS_FIFO))} against fifo)."
    )
    if prio.hi < 0:
        return [
            f"- *BE, even against priority.* {prio_text} Our reading, not isolated by an experiment: under priority "
            "the TE jobs queue at the head and take one or two GPUs of each node that frees up, so whole-node BE jobs "
            "wait longer for a whole node; under fitgpp TE jobs hardly queue (they start after one grace period) and "
            "its small victims get back in quickly, while the naive preemptors pay for their whole-node victims."
        ], []
    if prio.lo > 0:
        return [], [f"- *BE against priority.* Preemption costs BE something: {prio_text}"]
    return [f"- *BE against priority.* fitgpp's preemptions cost BE nothing measurable: {prio_text}"], []


def regime_claims(plan: Plan, main: pd.DataFrame, curves: pd.DataFrame) -> Claims:
    """fitgpp's BE cost against k8s at every curve point (the table of section 5)."""
    if "k8s" not in plan.curve_policies:
        return [], []
    wins: list[str] = []
    losses: list[str] = []
    regimes = regime_rows(plan, main, curves)
    verdicts = {(key, fmt.setting(v)): regime_verdict(at, "k8s")[1] for key, v, at in regimes}
    good = [f"{k} = {v}" if k != "centre" else "the centre" for (k, v), w in verdicts.items() if w == "fitgpp lower"]
    if good:
        wins.append(
            f"- *Across regimes* (table above), fitgpp's BE cost is measurably lower than k8s's at {', '.join(good)}."
        )
    for (key, value), word in verdicts.items():
        if word in ("fitgpp higher", "mixed"):
            losses.append(regime_loss(key, value, regimes, main))
    neutral = [f"{k} = {v}" for (k, v), w in verdicts.items() if w == "no clear difference"]
    if neutral:
        losses.append(
            f"- *No measurable BE difference* against k8s at {', '.join(neutral)}. Where the load is low the queue is "
            "short, few TE jobs need a victim and no victim waits long, so there is nothing to win."
        )
    return wins, losses


def te_tail_text(main: pd.DataFrame, naive: Sequence[str]) -> list[str]:
    """The naive preemptors whose TE p95 slowdown is measurably lower than fitgpp's, if any."""
    te = [(o, paired(main, "fitgpp", o, "TE_slowdown_p95")) for o in naive]
    te = [(o, d) for o, d in te if d.lo > 0]
    if not te:
        return []
    return [
        "- *TE p95, by a hair.* fitgpp's is higher than "
        + ", ".join(f"{o}'s by {fmt_val(d)}" for o, d in te)
        + " (paired): no TE job waits longer than a grace period under any of them, but fitgpp preempts more "
        "often, so more TE jobs wait one grace period instead of starting in room an earlier, larger victim left free."
    ]


def variant_texts(main: pd.DataFrame, plan: Plan) -> list[str]:
    """fitgpp with ``P`` = 0 and with the smallest ``s``: where its knobs turn it into priority."""
    out = []
    p0 = fitgpp_label("P", 0)
    if p0 in set(main["policy"]):
        out.append(
            f"- *`P` = 0* forbids preemption: fitgpp becomes priority (TE p95 vs fifo "
            f"{fmt_pct(stat(main, p0, TE_VS_FIFO))}, priority "
            f"{fmt_pct(stat(main, 'priority', TE_VS_FIFO))})."
        )
    small_s = [v for v in plan.s_values if math.isfinite(v)]
    if small_s:
        lab = fitgpp_label("s", min(small_s))
        out.append(
            f"- *Small `s`* protects BE jobs whose dominant share is more than s times the TE job's (a whole-node job "
            f"is 8 times a 1-GPU TE job's). With s = {min(small_s):g} most BE work of this regime is protected and "
            f"fitgpp falls back towards priority: TE p95 vs fifo {fmt_pct(stat(main, lab, TE_VS_FIFO))}, "
            f"preemptions {fmt_val(stat(main, lab, 'preemptions'))}."
        )
    return out


def cap_text(main: pd.DataFrame, plan: Plan, cfg: SimConfig) -> list[str]:
    """What the P cap does to BE, from the fitgpp variants with the largest P (paired with the default)."""
    bigger = [p for p in plan.p_values if p > cfg.P]
    if not bigger:
        return []
    label = fitgpp_label("P", max(bigger))
    d50, d95 = paired(main, label, "fitgpp", "BE_slowdown_p50"), paired(main, label, "fitgpp", "BE_slowdown_p95")
    sizes = ", ".join(
        f"P = {p}: {fmt_val(stat(main, fitgpp_label('P', p), 'victim_gpu_mean'))}" for p in plan.p_values if p > 0
    )
    facts = (
        f"`{label}` minus fitgpp (P = {cfg.P}), paired: BE p50 slowdown {fmt_val(d50)}, BE p95 {fmt_val(d95)}; mean "
        f"GPUs of the victims {sizes}"
    )
    if d50.hi < 0 or d95.hi < 0:
        return [
            f"- *The `P` cap costs BE here.* {facts}. Once the small jobs that fit a TE job best have used up their "
            "preemptions, the cap sends fitgpp to larger victims, which take longer to get back in. The cap protects "
            "each job (none is preempted more than P times), not the BE class as a whole."
        ]
    if d50.lo > 0 or d95.lo > 0:
        return [f"- *A larger `P` costs BE here* ({facts}): the cap protects BE as a whole in this regime."]
    return [f"- *The `P` cap* makes no measurable BE difference between P = {cfg.P} and P = {max(bigger)} ({facts})."]


def regime_loss(key: str, value: str, regimes: Sequence[tuple[str, Any, pd.DataFrame]], main: pd.DataFrame) -> str:
    """A regime where fitgpp's BE cost is higher than k8s's, with the mechanism we know for it."""
    at = next(r for k, v, r in regimes if k == key and fmt.setting(v) == value)
    diffs, _ = regime_verdict(at, "k8s")
    facts = (
        f"fitgpp minus k8s: BE p50 {fmt_val(diffs[0])}, BE p95 {fmt_val(diffs[1])} points of change vs fifo; "
        f"preemptions {fmt_val(stat(at, 'fitgpp', 'preemptions'))} against {fmt_val(stat(at, 'k8s', 'preemptions'))}"
    )
    if key == "checkpoint":
        text = (
            f"- *checkpoint = {value}* ({facts}; lost work {fmt_val(stat(at, 'fitgpp', 'lost_work'))} s against "
            f"{fmt_val(stat(at, 'k8s', 'lost_work'))} s). When a preemption loses the work since the last checkpoint, "
            "the age of the victim matters most. k8s preempts the most recently started job, which has done the "
            "least work; fitgpp ranks the tightest fit before lost work, so it preempts older small jobs and throws "
            "away more."
        )
        if "lrtp" in set(at["policy"]):
            text += f" lrtp, which picks the job with the most work left, loses the most: {fmt_val(stat(at, 'lrtp', 'lost_work'))} s."
        return text
    if key == "backfill":
        return (
            f"- *backfill = {value}* ({facts}). Under strict head-of-line no job starts out of queue order, so a small "
            "victim cannot slip back into a gap and the advantage of fitgpp's small victims is gone; what is left is "
            "a small difference in the other direction, whose cause we have not isolated."
        )
    return f"- *{key} = {value}*: {facts}."


def trace_text(recipe: str, rows: pd.DataFrame, cfg: SimConfig) -> str:
    uncapped = fitgpp_label("P", TRACE_UNCAPPED_P)
    capped, free = stat(rows, "fitgpp", "TE_slowdown_p95"), stat(rows, uncapped, "TE_slowdown_p95")
    facts = (
        f"fitgpp's TE p95 slowdown is {fmt_val(capped)} against k8s's {fmt_val(stat(rows, 'k8s', 'TE_slowdown_p95'))} "
        f"and {fmt_val(free)} with the cap lifted (`{uncapped}`, where one BE job is preempted up to "
        f"{fmt_val(stat(rows, uncapped, 'max_preemptions_per_job'))} times)"
    )
    if capped.mean > 1.2 * free.mean:
        mix = f"{stat(rows, 'fifo', 'TE_count').mean:.0f} TE and {stat(rows, 'fifo', 'BE_count').mean:.0f} BE jobs"
        return (
            f"- *The real trace (recipe {recipe})* has few BE jobs (under the size mapping: over 1 h or over 1 GPU) "
            f"and many TE jobs ({mix} per workload on average), so the BE jobs soon use up their `P` = {cfg.P} preemptions and TE jobs wait again: "
            f"{facts}. The cap trades TE latency for BE protection; its right value depends on the ratio of TE to "
            "BE work."
        )
    return f"- *The real trace (recipe {recipe})*: the `P` cap hardly binds here: {facts}."


def _word(d: Stat) -> str:
    if not math.isfinite(d.lo):
        return "too few seeds to tell"
    if d.hi < 0:
        return "fitgpp lower"
    if d.lo > 0:
        return "fitgpp higher"
    return "no clear difference"
