"""Cluster files: YAML/JSON pools, a node-list CSV or the Alibaba node list, to a
:class:`~simcore.core.model.ClusterSpec`.

YAML is read with the safe loader after a scan of its parse events that refuses aliases, deep
nesting and more entries than ``max_pools`` allows, so nothing large is built from a small file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, Node, Resources
from simcore.workload import alibaba
from simcore.workload.problems import (
    DEFAULT_MAX_CLUSTER_BYTES,
    MAX_LISTED,
    MAX_NODES,
    MAX_POOLS,
    LimitExceeded,
    LoadedCluster,
    WorkloadError,
)
from simcore.workload.readers import decode, read_csv_raw, read_source
from simcore.workload.schema import NODE_SCHEMA, Amount, Text, no_bool, reason_text, refuse_or_drop, validate_columns

# --- clusters ----------------------------------------------------------------------------------


class _Pool(BaseModel):
    """One pool of identical nodes in a cluster file."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    count: Annotated[int, BeforeValidator(no_bool), Field(ge=1)] = 1  # the node cap is checked on the sum
    cpu: Annotated[Amount, BeforeValidator(no_bool)]
    mem_gb: Annotated[Amount, BeforeValidator(no_bool)]
    gpu: Annotated[Amount, BeforeValidator(no_bool)]
    name: Text | None = None


class _ClusterFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    nodes: Annotated[list[_Pool], Field(min_length=1)]


_YAML_VALUES_PER_POOL = 16  # a pool is a mapping of at most 5 keys: 11 YAML values
_YAML_MAX_DEPTH = 8  # a cluster file nests 3 deep (mapping, nodes list, pool)


def _safe_yaml(text: str, label: str, max_pools: int) -> Any:
    """YAML (hence also JSON) through yaml's safe loader, after a pass over its parse events
    that refuses aliases (an alias bomb would expand without bound), a list or mapping of more
    than ``max_pools`` entries, more values than that many pools hold, and deep nesting: a file
    too big for a cluster is refused while it is scanned, before anything is built."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: about 10x faster
    # Per open list or mapping: its entries so far and the most it may have (a mapping's entries
    # are its keys and values, hence twice as many).
    open_sizes: list[list[int]] = []
    values = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.AliasEvent):
            raise yaml.YAMLError("anchors and aliases (*name) are not allowed in cluster files")
        if isinstance(event, yaml.CollectionEndEvent):
            open_sizes.pop()
            continue
        if not isinstance(event, yaml.NodeEvent):
            continue
        values += 1
        if open_sizes:
            open_sizes[-1][0] += 1
            if open_sizes[-1][0] > open_sizes[-1][1] or values > _YAML_VALUES_PER_POOL * max_pools + 64:
                raise LimitExceeded(label, f"{max_pools + 1:,} pools (entries) or more", "pool", max_pools)
        if isinstance(event, yaml.CollectionStartEvent):
            if len(open_sizes) == _YAML_MAX_DEPTH:
                raise WorkloadError(f"{label}: values nested more than {_YAML_MAX_DEPTH} deep; not a cluster file")
            open_sizes.append([0, 2 * max_pools if isinstance(event, yaml.MappingStartEvent) else max_pools])
    return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader, and the scan refused aliases


def load_cluster(
    source: str | Path | bytes,
    *,
    name: str | None = None,
    max_bytes: int = DEFAULT_MAX_CLUSTER_BYTES,
    max_nodes: int = MAX_NODES,
    max_pools: int = MAX_POOLS,
    gpu_nodes_only: bool = False,
    first_n: int | None = None,
    gpu_per_node: float | None = None,
) -> LoadedCluster:
    """A cluster from a YAML/JSON pool file, a node-list CSV (``name, cpu, mem_gb, gpu``) or the
    Alibaba node list (detected from its header; ``gpu_nodes_only``, ``gpu_per_node`` and
    ``first_n`` filter it, in that order). Caps, each checked before the nodes are built:
    ``max_bytes`` (before the file is read), ``max_pools`` entries of a pool file (while it is
    parsed), ``max_nodes`` (a pool file's total count; a node list's rows, while they are
    parsed). Raises :class:`LimitExceeded` or :class:`WorkloadError`."""
    data, label = read_source(source, name, max_bytes)
    suffix = Path(label).suffix.lower()
    if suffix in (".yaml", ".yml", ".json") or data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"["):
        return LoadedCluster(_cluster_from_pools(data, label, max_nodes, max_pools))
    try:
        raw = read_csv_raw(data, label, max_rows=max_nodes)
    except LimitExceeded:
        raise LimitExceeded(label, f"{max_nodes + 1:,} node rows or more", "node", max_nodes) from None
    if alibaba.is_node_header(raw.columns):
        parsed, problems = validate_columns(raw, alibaba.NODE_SCHEMA, alibaba.NODE_COLUMNS, unique="sn")
        refuse_or_drop(raw, problems, False, [])
        try:
            cluster, notes = alibaba.nodes_to_cluster(parsed, gpu_nodes_only, first_n, gpu_per_node)
        except UserError as exc:
            raise WorkloadError(f"{label}: {exc}") from None
        return LoadedCluster(cluster, [f"{label}: {n}" for n in notes])
    if not len(raw):
        raise WorkloadError(f"{label}: the file has a header but no node rows")
    parsed, problems = validate_columns(raw, NODE_SCHEMA, tuple(NODE_SCHEMA), unique="name")
    refuse_or_drop(raw, problems, False, [])
    nodes = tuple(
        Node(str(n), Resources(float(c), float(m), float(g)))
        for n, c, m, g in zip(parsed["name"], parsed["cpu"], parsed["mem_gb"], parsed["gpu"], strict=True)
    )
    extra = [c for c in raw.columns if c not in NODE_SCHEMA]
    return LoadedCluster(ClusterSpec(nodes), [f"{label}: extra columns ignored: {', '.join(extra)}"] if extra else [])


def _cluster_from_pools(data: bytes, label: str, max_nodes: int, max_pools: int) -> ClusterSpec:
    text = decode(data, label)
    try:
        doc = _safe_yaml(text, label, max_pools)
    except WorkloadError:
        raise
    except Exception as exc:  # yaml raises many error types; all mean "not a readable file"
        raise WorkloadError(
            f"{label}: not readable as YAML/JSON ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
        ) from None
    if not isinstance(doc, dict) or "nodes" not in doc:
        raise WorkloadError(
            f"{label}: expected a mapping with a 'nodes' list, e.g. nodes: [{{count: 4, cpu: 64, mem_gb: 512, gpu: 8}}]"
        )
    try:
        spec = _ClusterFile.model_validate(doc)
    except ValidationError as exc:
        lines = []
        for err in exc.errors()[:MAX_LISTED]:
            loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
            reason = "unknown key" if err["type"] == "extra_forbidden" else reason_text(err, str(err["loc"][-1]))
            lines.append(f"  {loc}: {reason}")
        raise WorkloadError(f"{label}: invalid cluster file:\n" + "\n".join(lines)) from None
    total = sum(p.count for p in spec.nodes)  # before any node is built
    if total > max_nodes:
        big = [f"nodes[{i}].count is {p.count:,}" for i, p in enumerate(spec.nodes) if p.count > max_nodes]
        raise LimitExceeded(label, big[0] if big else f"the pools add up to {total:,} nodes", "node", max_nodes)
    try:
        return ClusterSpec.from_pools([p.model_dump() for p in spec.nodes])
    except ValueError as exc:
        raise WorkloadError(f"{label}: {exc} (pool names must differ)") from None
