"""The draws the synthetic presets share (DESIGN.md section 7): weights made to sum to 1, and each
job's GPUs, duration, CPUs and memory once its class is known.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def normalised(weights: Sequence[float]) -> np.ndarray:
    """`weights` as probabilities (divided by their sum)."""
    w = np.asarray(weights, dtype=float)
    return w / w.sum()


def job_shapes(p: Mapping[str, Any], rng: np.random.Generator, is_te: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(duration, request) of every job of class `is_te`, drawn in this order: the GPUs of TE then BE
    jobs (weighted choice), their lognormal durations (median and sigma, clipped, rounded to whole
    seconds), CPUs per GPU ``U{cpu_per_gpu_min..max}`` and GiB per GPU ``U{mem_per_gpu_min..max}``."""
    n, n_te = len(is_te), int(is_te.sum())
    gpu = np.empty(n)
    gpu[is_te] = rng.choice(np.asarray(p["te_gpu"], float), size=n_te, p=normalised(p["te_gpu_w"]))
    gpu[~is_te] = rng.choice(np.asarray(p["be_gpu"], float), size=n - n_te, p=normalised(p["be_gpu_w"]))
    duration = np.empty(n)
    for mask, cls in ((is_te, "te"), (~is_te, "be")):
        raw = rng.lognormal(math.log(p[f"{cls}_median_s"]), p[f"{cls}_sigma"], size=int(mask.sum()))
        duration[mask] = np.rint(np.clip(raw, p[f"{cls}_min_s"], p[f"{cls}_max_s"]))
    cpu = gpu * rng.integers(p["cpu_per_gpu_min"], p["cpu_per_gpu_max"] + 1, size=n)
    mem = gpu * rng.integers(p["mem_per_gpu_min"], p["mem_per_gpu_max"] + 1, size=n)
    return duration, np.column_stack([cpu, mem, gpu])
