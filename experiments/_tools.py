"""Puts ``tools/`` on the import path, after this folder: the record's scripts read the
tools' helpers (``_results``, ``_protocol``, ``folds``, ``sets``, ``rule``, ``gate``...) and
import this module first, for that alone::

    import _tools  # noqa: F401  (tools/ on the import path)

The tools never import a script of the record (``tests/test_layout.py`` checks it).
"""

import sys
from pathlib import Path

TOOLS = str(Path(__file__).resolve().parent.parent / "tools")
if TOOLS not in sys.path:
    sys.path.insert(1, TOOLS)
