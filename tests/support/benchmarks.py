"""Helpers of the benchmarks' smoke tests: a benchmark script (``benchmarks/NAME.py``) imported
as the module ``NAME``, its folder on the import path (at the end) as when it runs, so that its
helper modules beside it (``loadserver``, ``loadplayers``, ``abuse`` …) import too."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def load(name: str) -> ModuleType:
    """The benchmark module ``name`` (imported once)."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.append(str(BENCHMARKS))
    return importlib.import_module(name)
