"""Uploaded files to simulator inputs, with every problem raised as a :class:`UserError`.

Pure (no Streamlit): the pages show ``str(error)`` in ``st.error``; tests call these directly.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from simcore.errors import UserError
from simcore.model import ClusterSpec, JobTable
from simcore.workload import REQUIRED_COLUMNS

WORKLOAD_TYPES = ("csv", "json", "parquet")
CLUSTER_TYPES = ("yaml", "yml", "json", "csv")


@dataclass(frozen=True)
class Option:
    """A loader option as the sidebar shows it (values are text, as in the URL)."""

    name: str
    label: str
    default: str
    help: str
    choices: tuple[str, ...] = ()


UPLOAD_OPTIONS: tuple[Option, ...] = (
    Option("format", "format", "auto", "auto = by extension and header", ("auto", "canonical", "alibaba")),
    Option("drop_invalid", "bad rows", "refuse", "refuse the file, or drop the bad rows and list them", ("refuse", "drop")),
)
UPLOAD_DEFAULTS: dict[str, str] = {o.name: o.default for o in UPLOAD_OPTIONS}


def read_workload_file(path: Path) -> tuple[JobTable, list[str]]:
    return parse_workload_upload(path.name, path.read_bytes(), {})


def parse_workload_upload(file_name: str, content: bytes, options: Mapping[str, str]) -> tuple[JobTable, list[str]]:
    frame = pd.read_csv(io.BytesIO(content))
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise UserError(f"{file_name}: missing columns {', '.join(missing)}")
    return JobTable.from_frame(frame), []


def parse_cluster_upload(file_name: str, content: bytes) -> ClusterSpec:
    raise UserError(f"{file_name}: cluster files are not supported yet")
