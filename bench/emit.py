"""How a bench script hands over its measurements: indented JSON on stdout, and the same text in
the ``--out`` file when one is named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def emit(result: dict[str, Any], out: Path | None) -> int:
    """Print ``result`` as JSON (and write it to ``out``); the script's exit status (0)."""
    text = json.dumps(result, indent=2)
    print(text)
    if out:
        out.write_text(text + "\n")
    return 0
