"""Adapters for the public GPU traces with worker or node counts (gang jobs): Alibaba's spot-GPU
trace 2026, Helios, Acme and Alibaba PAI 2020 (:mod:`~simcore.workload.traces.formats`), their shared
options and conversion (:mod:`~simcore.workload.traces.common`), and synthetic samples in each exact
format (:mod:`~simcore.workload.traces.synthetic`). The loader picks a format by its exact header or by
``--format NAME``."""

from simcore.workload.traces.common import Extracted, TraceFormat, TraceOptions, convert, read_raw
from simcore.workload.traces.formats import TRACE_FORMATS, detect

__all__ = ["TRACE_FORMATS", "Extracted", "TraceFormat", "TraceOptions", "convert", "detect", "read_raw"]
