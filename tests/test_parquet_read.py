"""simcore's Parquet reads (``simcore.io.parquet_read``): the frame pandas reads, and no Arrow thread."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from helpers import HANG_SECONDS
from helpers.paths import ROOT

from simcore.io.parquet_read import read_frame

CHILD = r"""
import json, sys
from pathlib import Path
import pandas, pyarrow.parquet  # imported before the count: an import starts no pool
from simcore.io.parquet_read import read_frame

def threads():
    return len(list(Path("/proc/self/task").iterdir()))

before = threads()
frame = read_frame(sys.argv[1])
print(json.dumps({"rows": len(frame), "new_threads": threads() - before}))
"""


def test_read_frame_is_pandas_frame_and_leaves_no_arrow_thread(tmp_path: Path) -> None:
    """Text (with a missing value), whole numbers, floats (NaN), booleans: equal to what
    ``pandas.read_parquet`` gives, dtypes included; read in a fresh process, no thread is left
    (``pandas.read_parquet`` leaves Arrow's pool threads, which can abort the process at exit)."""
    rows = 50_000  # enough rows that a threaded read splits its work
    frame = pd.DataFrame(
        {
            "policy": ["fifo", None] + ["fitgpp"] * (rows - 2),
            "seed": np.arange(rows, dtype=np.int64),
            "p95": np.where(np.arange(rows) % 7 == 0, np.nan, np.arange(rows) / 3),
            "gang": np.arange(rows) % 2 == 0,
        }
    )
    path = tmp_path / "rows.parquet"
    frame.to_parquet(path, index=False)
    ours = read_frame(path)
    pd.testing.assert_frame_equal(ours, pd.read_parquet(path), check_exact=True)
    assert list(ours.dtypes) == list(pd.read_parquet(path).dtypes)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=HANG_SECONDS
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"rows": rows, "new_threads": 0}
