"""The Python examples of the README and of docs/python.md run offline as a reader runs them
(a page's blocks in order, in one namespace, from the repository root), and print what the
pages quote, in float32 (``dtype="fp32"``, stated beside each quote), each figure to one unit
in its last printed decimal, the rest exactly (issue 71). A block may stay unrun only with a
visible reason in its first line (``# not run by the tests: ...``)."""

from __future__ import annotations

import contextlib
import doctest
import io
import re

import pytest
from conftest import ROOT
from test_docs import FP32, fenced_blocks, same_printed_line

README = ROOT / "README.md"
PYTHON_PAGE = ROOT / "docs" / "python.md"
#: the marker of a block the tests do not run, with its reason
NOT_RUN = re.compile(r"# not run by the tests: \w.+")
#: the README's example pair, and the translation of the same source that keeps "because of
#: the storm", whose score the README quotes beside it
SOURCE = "The museum will not open on Monday because of the storm."
KEEPS_IT = "Из-за шторма музей не откроется в понедельник."


def run_block(block: str, namespace: dict, name: str) -> list[tuple[str, str, str]]:
    """Run one ```python block in ``namespace``. A session (``>>>`` prompts) is run example by
    example, as the interpreter would (an expression's value printed): ``(source, what the
    page quotes, what it printed)`` of each example; other blocks return ``[]``."""
    if not block.lstrip().startswith(">>>"):
        exec(compile(block, name, "exec"), namespace)
        return []
    done = []
    for example in doctest.DocTestParser().get_examples(block, name):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(example.source, name, "single"), namespace)
        done.append((example.source, example.want, out.getvalue()))
    return done


def printed_as_quoted(want: str, got: str) -> bool:
    """The printed lines are the quoted ones, line for line (:func:`same_printed_line`)."""
    quoted, printed = want.splitlines(), got.splitlines()
    return len(quoted) == len(printed) and all(map(same_printed_line, quoted, printed))


def test_printed_as_quoted_holds_every_line_to_the_rule():
    assert printed_as_quoted("1 0.5333 ()\n", "1 0.5334 ()\n")
    assert not printed_as_quoted("1 0.5333 ()\n", "1 0.5335 ()\n")
    assert not printed_as_quoted("1 0.5333 ()\n", "1 0.5333 ()\n2 0.1000 ()\n")
    assert not printed_as_quoted("Evidence(a=('storm',))\n", "Evidence(a=('because', 'storm'))\n")


def test_the_readmes_python_example_prints_the_figures_it_quotes(monkeypatch):
    """The README's snippet runs as written; the score it prints, and the score of the
    translation that keeps "because of the storm", are the figures the README gives."""
    monkeypatch.chdir(ROOT)
    ((block, _),) = fenced_blocks(README, "python")
    assert FP32.search(block) and SOURCE in block, "the snippet states its dtype (fp32)"
    namespace: dict = {"__name__": "readme"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md, python block", "exec"), namespace)
    r, scorer = namespace["r"], namespace["scorer"]
    assert float(out.getvalue().split()[0]) == r.score  # it prints the score first
    text = " ".join(README.read_text(encoding="utf-8").split())
    said = re.search(
        r"The score is ([+-]\d\.\d{4}), against ([+-]\d\.\d{4}) for the translation that keeps",
        text,
    )
    assert said, "the README no longer says the example's score"
    kept = scorer.score([SOURCE], [KEEPS_IT])[0]
    for quoted, score in ((said[1], r.score), (said[2], kept.score)):
        assert same_printed_line(quoted, f"{score:+.4f}"), (quoted, f"{score:+.4f}")
    if "|lex:mueller7#" in scorer.signature():  # "with the dictionary the evidence names ..."
        assert f"`{r.evidence.unmatched_source}`" in text


@pytest.mark.slow
def test_the_python_page_runs_and_prints_what_it_quotes(monkeypatch):
    """Every ```python block of docs/python.md runs (in order, one namespace), but those whose
    first line says why not; the session it quotes prints what the page shows."""
    monkeypatch.chdir(ROOT)
    namespace: dict = {"__name__": "docs_python"}
    ran, not_run, quoted = 0, [], 0
    for k, (block, before) in enumerate(fenced_blocks(PYTHON_PAGE, "python"), start=1):
        name = f"docs/python.md, python block {k}"
        first = block.lstrip().splitlines()[0]
        if first.startswith("# not run"):
            assert NOT_RUN.fullmatch(first), f"{name}: say why it is not run ({first!r})"
            not_run.append(k)
            continue
        for source, want, got in run_block(block, namespace, name):
            if want:
                assert FP32.search(before + block), f"{name}: state the dtype of the quote"
                assert printed_as_quoted(want, got), (
                    f"{name}: {source.strip()!r} printed\n{got}instead of\n{want}"
                )
                quoted += 1
        ran += 1
        if ran == 1:  # what the page says of the default fields: no paper column, no similarity
            r, full = namespace["r"], namespace["full"]
            assert r.f1 is None and r.similarity is None and r.n_anchors is None
            assert full.score(namespace["sources"], namespace["translations"])[0].f1 is not None
    assert ran >= 4 and len(not_run) <= 2 and quoted >= 3, (ran, not_run, quoted)
