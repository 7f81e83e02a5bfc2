"""Bit-identical output before and after a change that should not change it: the scores, error
spans and evidence of the 1,400-pair newstest benchmark (the first 100 sources of en-ru MQM
newstest2021, 14 engines each), under the offline default twice -- with its default fields
(``score,evidence``) and with every field (``all``: the paper's columns too).

    python tools/parity.py --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv \
        --write experiments/results/parity-newstest.json      # record, before the change
    python tools/parity.py --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv \
        --check experiments/results/parity-newstest.json      # after it: exit 1 on any change

The record keeps one digest per pair and setting (of the result's JSON with floats written
exactly) and the field names it covered; a check compares those fields only, so a field added
later does not count as a change. A failed check names the pairs and the fields that differ.
``--dtype fp32`` makes a record that holds on any CPU.

A change meant to move some figures by rounding only is measured with whole results instead:
``--dump`` writes them (run it with ``PYTHONPATH`` at a worktree of the commit before), and
``--against`` that file prints, per setting and field, how many pairs moved and by how much::

    PYTHONPATH=/tmp/before python tools/parity.py --data ... --dtype fp32 --dump before.json
    python tools/parity.py --data ... --dtype fp32 --against before.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

SETTINGS = {"default": "score,evidence", "all": "all"}
LIMIT = 100  # sources


def _pairs(data: str) -> tuple[list[str], list[str]]:
    from xlscore.evaluation.agreement import read_judgments

    rows = read_judgments(data)
    keep = set(list(dict.fromkeys(r.seg_id for r in rows))[:LIMIT])
    rows = [r for r in rows if r.seg_id in keep]
    return [r.source for r in rows], [r.translation for r in rows]


def _digest(d: dict, keys: list[str]) -> str:
    text = json.dumps({k: d.get(k) for k in keys}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def results(data: str, dtype: str = "auto") -> dict[str, list[dict]]:
    """The result dictionaries of every pair under each setting, computed in ``dtype``."""
    from xlscore import XLScorer

    src, mt = _pairs(data)
    out = {}
    for name, fields in SETTINGS.items():
        scorer = XLScorer.offline(fields=fields, dtype=dtype)
        out[name] = [r.to_dict() for r in scorer.score(src, mt)]
        print(f"{name}: {len(out[name])} pairs scored", file=sys.stderr)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="wmt21-enru-mqm-newstest2021.tsv")
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--write", type=Path, help="record the digests here")
    what.add_argument("--check", type=Path, help="compare with this record")
    what.add_argument("--dump", type=Path, help="write the whole results here")
    what.add_argument("--against", type=Path, help="how far the results move from this dump")
    ap.add_argument("--dtype", default="auto", help="the arithmetic (default auto)")
    args = ap.parse_args()
    got = results(args.data, args.dtype)
    if args.dump:
        args.dump.write_text(json.dumps(got, ensure_ascii=False), encoding="utf-8")
        print(f"dumped {args.dump}", file=sys.stderr)
        return 0
    if args.against:
        return _moves(json.loads(args.against.read_text(encoding="utf-8")), got)
    if args.write:
        record = {}
        for name, rows in got.items():
            keys = sorted(rows[0])
            record[name] = {"fields": keys, "pairs": [_digest(d, keys) for d in rows]}
        args.write.write_text(json.dumps(record, indent=0) + "\n", encoding="utf-8")
        print(f"recorded {args.write}", file=sys.stderr)
        return 0
    record = json.loads(args.check.read_text(encoding="utf-8"))
    changed = 0
    for name, rows in got.items():
        keys, want = record[name]["fields"], record[name]["pairs"]
        if len(rows) != len(want):
            print(f"{name}: {len(rows)} pairs, the record has {len(want)}")
            changed += 1
            continue
        bad = [i for i, d in enumerate(rows) if _digest(d, keys) != want[i]]
        changed += len(bad)
        print(f"{name}: {len(rows) - len(bad)}/{len(rows)} pairs identical")
        for i in bad[:5]:
            fields = [k for k in keys if k not in rows[i]]
            print(
                f"  pair {i} differs{' (fields gone: ' + ', '.join(fields) + ')' if fields else ''}"
            )
    return 1 if changed else 0


def _moves(before: dict[str, list[dict]], after: dict[str, list[dict]]) -> int:
    """Print how far each field moved from ``before`` to ``after``; 1 where any did."""
    moved = 0
    for name, rows in after.items():
        old = before[name]
        same = sum(a == b for a, b in zip(old, rows))
        print(f"{name}: {same}/{len(rows)} pairs identical")
        for key in sorted(rows[0]):
            pairs = [(a.get(key), b.get(key)) for a, b in zip(old, rows)]
            changed = [(a, b) for a, b in pairs if a != b]
            if not changed:
                continue
            moved += 1
            numbers = [abs(a - b) for a, b in changed if isinstance(a, float) and b is not None]
            size = f", by at most {max(numbers):.2g}" if len(numbers) == len(changed) else ""
            print(f"  {key}: {len(changed)} pairs moved{size}")
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main())
