"""Learn: TE vs BE, the policies, the price of a preemption, step-through lessons, the metrics,
how to read the charts, and when preemption pays (numbers read from docs/results at run time)."""

from __future__ import annotations

import streamlit as st

from dashboard.learn import lesson_page, quiz_page
from dashboard.learn.chart_guide import chart_guide
from dashboard.learn.learn_content import BEYOND_PAPER, MECHANICS, regime_facts
from dashboard.learn.learn_numbers import learn_numbers
from simcore.core import fmt
from simcore.experiments.study import PAPER_TRIO
from simcore.policies import POLICY_HELP

EXPLORE = "app_pages/explore.py"

st.title("Learn: preemption for TE and BE jobs")

st.header("Two kinds of jobs")
st.markdown(
    """
A deep-learning cluster runs two kinds of work:

- **TE (trial-and-error)** jobs are small, short experiments whose owner sits and watches them.
  They want to start *now*: latency is everything.
- **BE (best-effort)** jobs are long training runs. They want throughput and can tolerate being
  paused, as long as they resume without much delay and lose little work.

Plain FIFO makes TE jobs wait behind hours of BE work. Naive preemption helps TE jobs but hurts
BE jobs: many preemptions, long re-scheduling delays, lost work. The question is how to preempt
*selectively*.
"""
)

st.header("The policies")
st.markdown(
    "A policy is a queue order plus a rule choosing which running BE jobs to preempt (the victims) "
    "when a TE job does not fit. Grace period, checkpointing, restore time and reservations are "
    "shared mechanics, set by the knobs on the Explore page."
)
for name, text in POLICY_HELP.items():
    st.markdown(f"- **`{name}`**: {text}")
st.info(
    "**FitGpp** is our *reconstruction of the paper's approach* from the principles stated in its "
    "abstract (prefer TE over BE; when preempting, minimise the re-scheduling interval of the "
    "preempted job, the number of preemptions and the time lost). It is not the paper's exact "
    "algorithm, which is not public in the abstract.",
    icon=":material/info:",
)

st.header("The price of a preemption: grace, checkpoint, restore")
st.markdown(MECHANICS)

st.header("Step through it: lessons")
st.markdown(
    "Each lesson is a handful of jobs on one to five nodes (files in `sample_workloads/lessons/`), run "
    "under a few policies or settings. Predict first: answer the questions and check; each answer is "
    "explained by the rule or the value that decided it. Then step from event to event (or press play): "
    "on the left the cluster at that instant, one square per GPU coloured by the job holding it, the "
    "queue and what just happened; on the right the Gantt of every variant answered, the dotted line at "
    "the instant."
)
lesson_page.show()

st.header("Practise: a new exercise")
st.markdown(
    "A fresh small scenario drawn from a seed (the seed goes in the link, so a class can share one): "
    "one or two nodes full of BE jobs, at least two of them running when a TE job finds no room. Predict "
    "which job each policy preempts and how long the TE job waits; the answers come from simulating it, "
    "and its Gantt is shown once you have checked them."
)
quiz_page.show_exercise()

st.header("Beyond the paper: min_runtime and fitdelay")
st.markdown(BEYOND_PAPER)

st.header("The knobs in real schedulers")
st.markdown(
    "What operators set for the same ideas in Slurm, Kubernetes, Kueue and NVIDIA KAI-Scheduler "
    "(the same table is in docs/policies.md)."
)
quiz_page.show_knob_map()

st.header("The metrics")
st.markdown(
    """
- **Slowdown** of a job = (finish − submit) / run time. 1 means it never waited; 10 means it took ten
  times its run time. With the knob `tau` > 0 it is *bounded*: max(1, JCT / max(run time, tau)),
  so very short jobs do not dominate.
- **Wait** = first start − submit; **JCT** (job completion time) = finish − submit.
- Per class (TE, BE, all): mean, p50 (median), p90, p95, p99 (numpy's linear percentiles).
- **The trio** (the paper's headline numbers), each a percent change against a baseline policy
  (fifo by default): TE p95 slowdown, BE p50 slowdown, BE p95 slowdown. Negative is better.
- **GPU utilisation**: allocated GPU-seconds (grace and restore included) / (GPUs × makespan);
  *useful* utilisation counts only the jobs' own run time. **Lost work**: run time thrown away
  by preemptions (zero when the grace period checkpoints everything).
"""
)

st.header("How to read the charts")
st.markdown(chart_guide())

st.header("When preemption pays off, and when it does not")
st.markdown(
    "These facts come from a calibration over thousands of simulations (means over many seeds). "
    "Each link opens the scenario in Explore with a few seeds, so expect some noise: single runs "
    "are chaotic, and one workload can swing a BE percentile by tens of percent by chance."
)
for fact in regime_facts(learn_numbers()):
    with st.container(border=True):
        st.markdown(fact.text)
        st.page_link(EXPLORE, label=fact.link_label, icon=":material/open_in_new:", query_params=fact.query)

st.header("Source")
st.markdown(
    "Yabuuchi, Taniwaki, Omura: *Low-latency job scheduling with preemption for the development of "
    "deep learning*. USENIX OpML '19, [arXiv:1902.01613](https://arxiv.org/abs/1902.01613). On its "
    "own workloads it reports the 95th percentile of TE slowdown falling by "
    f"{fmt.tenths(-PAPER_TRIO['TE_p95_slowdown_pct'])}% against FIFO, while the BE median slowdown rises by only "
    f"{fmt.tenths(PAPER_TRIO['BE_p50_slowdown_pct'])}% and the BE p95 by only {fmt.tenths(PAPER_TRIO['BE_p95_slowdown_pct'])}%."
)
