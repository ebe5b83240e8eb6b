"""The widgets of an uploaded workload: the file and the loader's options (:data:`dashboard.shared.uploads.UPLOAD_OPTIONS`),
drawn the same on every page that takes one (Explore's sidebar, the Sweep page's). Like
:mod:`dashboard.shared.knob_widgets` the page passes its Streamlit module (or a container)."""

from __future__ import annotations

from typing import Any

from dashboard.shared import uploads
from dashboard.shared.keys import Family

HELP = (
    "Canonical columns job_id, submit_time, duration, cpu, mem_gb, gpu, job_class (TE/BE); an optional workers "
    "column for gangs; or an Alibaba GPU trace pod list, or a gang trace (spot2026, helios, acme, pai2020). "
    "Uploaded files are not part of shared links."
)


def option_defaults(options: Family[str]) -> dict[str, str]:
    """The loader options' widgets at their defaults, by widget key (``options``: the page's key family)."""
    return {options(o.name).name: o.default for o in uploads.UPLOAD_OPTIONS}


def render(st: Any, file_key: str, options: Family[str]) -> Any:
    """The file uploader (key ``file_key``) and, under it, every loader option (keys ``options(name)``; the
    Alibaba trace's in a "Trace options" popover); returns the uploaded file or None."""
    file = st.file_uploader("Workload file", type=list(uploads.WORKLOAD_TYPES), key=file_key, help=HELP)
    trace_box = st.popover("Trace options", icon=":material/tune:", width="stretch")
    for option in uploads.UPLOAD_OPTIONS:
        where = trace_box if option.alibaba else st
        if option.choices:
            where.selectbox(option.label, option.choices, key=options(option.name).name, help=option.help)
        else:
            where.text_input(option.label, key=options(option.name).name, help=option.help)
    return file
