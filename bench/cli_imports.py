"""What starting the command line costs: ``simcore --help`` against ``python -c pass``, as a ratio
measured in one run, and what each command imports (issue 31: ``--help`` within 10x a bare
interpreter; pandas and pyarrow only where a command reads or writes tables, scipy and plotly never
for a run).

Each measurement is a fresh interpreter (the venv's, with its site-packages), the three kinds
interleaved so that a busy machine slows them alike; the medians are compared. Usage:

    python bench/cli_imports.py              # 15 rounds
    python bench/cli_imports.py --rounds 40
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
#: the console script pip installs beside the interpreter (what a user types), else ``python -m simcore``
SCRIPT = [str(Path(PY).parent / "simcore")] if (Path(PY).parent / "simcore").exists() else [PY, "-m", "simcore"]
STARTS = {
    "python -c pass": [PY, "-c", "pass"],
    "python -c 'import numpy'": [PY, "-c", "import numpy"],
    "simcore --help": [*SCRIPT, "--help"],
}
#: third-party packages worth naming when a command imports them
HEAVY = ("numpy", "pandas", "pyarrow", "pydantic", "simpy", "yaml", "scipy", "tqdm", "dask", "plotly", "streamlit")
COMMANDS = {
    "--help": ["--help"],
    "policies": ["policies"],
    "run": ["run", "sample_workloads/demo.csv", "--nodes", "4", "--policy", "fitgpp"],
    "run (outputs)": [
        "run",
        "sample_workloads/demo.csv",
        "--nodes",
        "4",
        "--jobs-out",
        "{tmp}/j.csv",
        "--summary-json",
        "{tmp}/s.json",
    ],
    "compare": ["compare", "sample_workloads/demo.csv", "--nodes", "4"],
    "generate": ["generate", "--preset", "demo", "--out", "{tmp}/g.csv"],
    "convert": ["convert", "sample_workloads/demo.csv", "--out", "{tmp}/c.csv"],
    "explain": ["explain", "sample_workloads/demo.csv", "--nodes", "4", "--policy", "k8s", "--all-waits", "--json"],
    "sweep --help": ["sweep", "--help"],
}


def wall(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def imports(words: list[str], tmp: str) -> tuple[int, list[str]]:
    """(simcore modules, heavy third-party packages) that ``simcore WORDS`` imports, read from
    ``python -X importtime``'s report (one line per module imported)."""
    args = [w.format(tmp=tmp) for w in words]
    done = subprocess.run([PY, "-X", "importtime", "-m", "simcore", *args], cwd=ROOT, capture_output=True, text=True)
    names = [line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    ours = sum(n.split(".")[0] == "simcore" for n in names)
    return ours, sorted({n.split(".")[0] for n in names} & set(HEAVY))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    rounds = ap.parse_args().rounds
    for cmd in STARTS.values():  # warm the file cache once
        wall(cmd)
    times: dict[str, list[float]] = {name: [] for name in STARTS}
    for _ in range(rounds):
        for name, cmd in STARTS.items():
            times[name].append(wall(cmd))
    base = statistics.median(times["python -c pass"])
    print(f"start-up, median of {rounds} interleaved rounds (wall):")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"  {name:<26} {med * 1000:7.1f} ms   {med / base:5.1f}x python -c pass")
    print("\nwhat each command imports (a fresh interpreter each):")
    with tempfile.TemporaryDirectory() as tmp:
        for name, words in COMMANDS.items():
            ours, heavy = imports(words, tmp)
            print(f"  {name:<14} {ours:>3} simcore modules; {', '.join(heavy) or 'no third-party package'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
