"""The documentation's promises: the site builds cleanly, the README stays short, every command
and results file it quotes exists, and the README's figures are the results files' figures."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import pytest
from conftest import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
EXPERIMENTS = ROOT / "experiments"
RESULTS = EXPERIMENTS / "results"
MAX_README_WORDS = 2500

# a figure: optional sign, digits (thousands may be grouped by commas), decimals, "/N" counts
NUMBER = re.compile(r"(?<![\w.])[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:/\d+)?(?![\w]|\.\d)")
RESULTS_FILE = re.compile(r"experiments/results/[\w.-]+\.md")


def doc_files():
    return [README, *sorted(DOCS.glob("*.md"))]


def normalise(text):
    """One way to write a figure: the typographic minus sign (U+2212) as '-'."""
    return text.replace("\u2212", "-")


# ---------------------------------------------------------------------------------- the site


def test_mkdocs_build_strict(tmp_path):
    """`mkdocs build --strict` succeeds: no broken link or anchor, no page left out of the nav,
    no warning from mkdocstrings on the docstrings."""
    try:
        import mkdocs  # noqa: F401
        import mkdocstrings  # noqa: F401
    except ImportError as e:  # a failure, not a skip: CI must build the docs
        pytest.fail(f"{e}: install the dev extras (mkdocs, mkdocstrings[python])")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            str(ROOT / "mkdocs.yml"),
            "--site-dir",
            str(tmp_path / "site"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    assert "WARNING" not in log, log[-4000:]
    assert (tmp_path / "site" / "index.html").is_file()
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    assert 'id="xlscore.XLScorer"' in api  # the API reference was generated


def exported_names():
    """`xlscore.__all__`, read from the source (no import: no torch needed)."""
    tree = ast.parse((ROOT / "xlscore" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            getattr(t, "id", None) == "__all__" for t in node.targets
        ):
            return [ast.literal_eval(e) for e in node.value.elts]
    raise AssertionError("xlscore/__init__.py defines no __all__")


def test_api_reference_covers_the_public_names():
    """docs/api.md documents every name of xlscore.__all__, through top-level paths only
    (the modules behind them may move)."""
    directives = re.findall(
        r"^::: *(\S+)", (DOCS / "api.md").read_text(encoding="utf-8"), flags=re.M
    )
    assert directives
    not_top_level = [d for d in directives if not re.fullmatch(r"xlscore\.\w+", d)]
    assert not not_top_level, f"use xlscore.NAME paths only: {not_top_level}"
    missing = [n for n in exported_names() if f"xlscore.{n}" not in directives]
    assert not missing, f"names in xlscore.__all__ missing from docs/api.md: {missing}"


# -------------------------------------------------------------------------------- the README


def test_readme_is_short():
    words = len(README.read_text(encoding="utf-8").split())  # as `wc -w` counts
    assert words <= MAX_README_WORDS, (
        f"README.md has {words} words (at most {MAX_README_WORDS}): move details to docs/"
    )


def test_docs_home_has_the_readmes_setup_commands():
    """docs/index.md repeats the README's two set-up commands: they must not drift apart."""
    first_two = [
        re.findall(r"```bash\n(.*?)\n```", path.read_text(encoding="utf-8"), flags=re.S)[:2]
        for path in (README, DOCS / "index.md")
    ]
    assert len(first_two[0]) == 2 and first_two[0] == first_two[1]


def slug(heading):
    """A heading's anchor, as Python-Markdown's toc (and, for plain headings, GitHub) makes it."""
    text = re.sub(r"[^\w\s-]", "", heading.replace("`", "")).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(path):
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {slug(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def test_readme_links_resolve():
    """The README is not part of the site: its links to docs/ pages and their sections, and to
    its own sections, are checked here."""
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert any(link.startswith("docs/") for link in links)
    broken = []
    for link in links:
        if re.match(r"[a-z]+:", link):
            continue
        target, _, anchor = link.partition("#")
        path = ROOT / target if target else README
        if not path.exists() or (anchor and (path.suffix != ".md" or anchor not in anchors(path))):
            broken.append(link)
    assert not broken, f"broken links in README.md: {broken}"


# ------------------------------------------------------------- commands and files they quote


def ignored_results():
    """Results files the repository ignores on purpose (generated, not committed)."""
    lines = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    return {
        line.strip().lstrip("/").removeprefix("experiments/results/")
        for line in lines
        if line.strip().lstrip("/").startswith("experiments/results/")
    }


def quoted_scripts(text):
    """Scripts named in `python tools/NAME.py ...` and `python experiments/NAME.py ...`
    commands (also across a line break), and in the first column of a table of scripts
    (`tools/NAME.py ...`), as paths from the repository's root."""
    folder = r"((?:tools|experiments)/[\w-]+\.py)\b"
    scripts = set(re.findall(r"python3?\s+" + folder, text))
    scripts |= set(re.findall(r"^\| `" + folder, text, flags=re.M))
    return scripts


def quoted_results(text):
    """Files named as experiments/results/FILE or `results/FILE`."""
    return set(re.findall(r"(?<![\w.-])(?:experiments/)?results/([\w-]+(?:\.\w+)+)", text))


def test_quoted_experiment_commands_exist():
    missing, seen = [], set()
    for path in doc_files():
        for script in quoted_scripts(path.read_text(encoding="utf-8")):
            seen.add(script)
            if not (ROOT / script).is_file():
                missing.append(f"{path.relative_to(ROOT)}: {script}")
    assert len(seen) >= 10, f"too few commands found: the pattern is broken? {sorted(seen)}"
    assert not missing, "commands quoting a script that does not exist:\n" + "\n".join(missing)


def test_quoted_results_files_exist():
    ignored = ignored_results()
    missing, seen = [], set()
    for path in doc_files():
        for name in quoted_results(path.read_text(encoding="utf-8")):
            seen.add(name)
            if not (RESULTS / name).is_file() and name not in ignored:
                missing.append(f"{path.relative_to(ROOT)}: experiments/results/{name}")
    assert len(seen) >= 10, f"too few results files found: the pattern is broken? {sorted(seen)}"
    assert not missing, "results files that do not exist:\n" + "\n".join(missing)


def test_quoted_repository_paths_exist():
    """Files of the repository the text names (`xlscore/...`, `tests/...`, `data/...`, ...)
    exist; a path after `REV:` (git show) is history and left out."""
    ignored = {f"experiments/results/{name}" for name in ignored_results()}
    missing, seen = [], set()
    for path in doc_files():
        text = path.read_text(encoding="utf-8")
        for quoted in re.findall(
            r"(?<![\w:/.~-])((?:xlscore|tests|notebooks|data|experiments|tools|\.ci)"
            r"/[\w./-]*[\w/])",
            text,
        ):
            seen.add(quoted)
            if not (ROOT / quoted).exists() and quoted not in ignored:
                missing.append(f"{path.relative_to(ROOT)}: {quoted}")
    assert len(seen) >= 20, f"too few paths found: the pattern is broken? {sorted(seen)}"
    assert not missing, "paths that do not exist (moved?):\n" + "\n".join(missing)


# ----------------------------------------------------------------- module paths the text names

# written like module paths but not modules: a Parquet metadata key, the API page's wording
NOT_PATHS = {"xlscore.scoring.signature", "xlscore.NAME", "xlscore.__all__"}


def top_level_names(module_file):
    """Names a module defines or imports at its top level (read, not imported)."""
    tree = ast.parse(module_file.read_text(encoding="utf-8"))
    names = {}
    body = list(tree.body)
    for node in tree.body:  # names loaded on first use are imported for the type checker
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            body += node.body
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.Assign):
            names.update((t.id, node) for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(((a.asname or a.name).split(".")[0], node) for a in node.names)
    return names


def resolves(dotted, depth=0):
    """Whether `xlscore.a.b.Name.attr` names a module of the package and, after it, a name
    that module defines or imports (and, for a class defined there, one of its members)."""
    parts = dotted.split(".")
    here = ROOT / parts[0]
    module_file, rest = here / "__init__.py", parts[1:]
    while rest and (
        (here / rest[0] / "__init__.py").is_file() or (here / f"{rest[0]}.py").is_file()
    ):
        if (here / rest[0] / "__init__.py").is_file():
            here = here / rest[0]
            module_file = here / "__init__.py"
        else:
            module_file = here / f"{rest[0]}.py"
        rest = rest[1:]
    if not rest:
        return True
    node = top_level_names(module_file).get(rest[0])
    if node is None:
        return False
    if len(rest) > 1 and isinstance(node, ast.ImportFrom) and depth < 5:
        # a re-exported name (`from .lexicon import Lexicon`): follow it to its module
        package = module_file.parent.relative_to(ROOT).parts
        base = package[: len(package) - node.level + 1] if node.level else ()
        module = ".".join(base + tuple((node.module or "").split(".")) if node.module else base)
        original = next(a.name for a in node.names if (a.asname or a.name) == rest[0])
        if module.split(".")[0] == parts[0]:
            return resolves(".".join([module, original, *rest[1:]]), depth + 1)
    if len(rest) > 1 and isinstance(node, ast.ClassDef):
        members = {getattr(n, "name", None) for n in node.body}
        members |= {
            t.id
            for n in node.body
            if isinstance(n, (ast.Assign, ast.AnnAssign))
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
            if isinstance(t, ast.Name)
        }
        return rest[1] in members
    return True


def quoted_module_paths(text):
    paths = set(re.findall(r"\bxlscore(?:\.[A-Za-z_]\w*)+", text))
    paths |= {
        f"{m}.{n.strip()}"
        for m, names in re.findall(r"^from (xlscore[.\w]*) import ([\w, ]+)$", text, flags=re.M)
        for n in names.split(",")
    }
    return paths - NOT_PATHS


def test_quoted_module_paths_exist():
    """Every `xlscore.module.name` the README and the docs quote (prose and examples) exists,
    so that moving a module shows which pages to update."""
    missing, seen = [], set()
    for path in doc_files():
        for dotted in sorted(quoted_module_paths(path.read_text(encoding="utf-8"))):
            seen.add(dotted)
            if not resolves(dotted):
                missing.append(f"{path.relative_to(ROOT)}: {dotted}")
    assert len(seen) >= 10, f"too few module paths found: the pattern is broken? {sorted(seen)}"
    assert not missing, "module paths that do not exist (moved?):\n" + "\n".join(missing)


# ------------------------------------------------------------ the README's figures and sources


def markdown_tables(text):
    """(line, rows, source files) for each table: rows are lists of cells (header and rule
    left out); the source files are the experiments/results/*.md paths named in the paragraph
    that follows the table, which must begin with 'Source:'."""
    lines = text.splitlines()
    tables, i, inside = [], 0, False
    while i < len(lines):
        if lines[i].startswith("```"):
            inside = not inside
        if inside or not lines[i].startswith("|"):
            i += 1
            continue
        start = i
        while i < len(lines) and lines[i].startswith("|"):
            i += 1
        rows = [
            [c.strip() for c in line.strip().strip("|").split("|")] for line in lines[start + 2 : i]
        ]
        while i < len(lines) and not lines[i].strip():
            i += 1
        paragraph = []
        while i < len(lines) and lines[i].strip():
            paragraph.append(lines[i])
            i += 1
        paragraph = " ".join(paragraph)
        sources = RESULTS_FILE.findall(paragraph) if paragraph.startswith("Source:") else []
        tables.append((start + 1, rows, sources))
    return tables


def figures(cell):
    """The figures of one table cell (inline code and emphasis left out)."""
    cell = re.sub(r"`[^`]*`", " ", normalise(cell)).replace("*", "")
    return NUMBER.findall(cell)


def whole(figure):
    """A pattern for `figure` written as a whole figure (not inside a longer one)."""
    before = r"(?<![\w.])" if figure[0] in "+-" else r"(?<![\w.+-])"
    return before + re.escape(figure) + r"(?![\w]|\.\d)"


def occurs(cell_figures, lines):
    """Whether one line of the sources holds the cell's figures, as whole figures, in order
    (so "+0.046 [+0.018, +0.075]" must be one result's value and interval, not three figures
    picked from anywhere)."""
    pattern = re.compile(".*?".join(whole(f) for f in cell_figures))
    return any(pattern.search(line) for line in lines)


def drifted_figures(readme_text):
    """Problems: a README table with no 'Source:' line, a source that does not exist, or a
    figure (every cell but the first, the row's label) that its sources do not contain."""
    problems, checked = [], 0
    for line, rows, sources in markdown_tables(readme_text):
        if not sources:
            problems.append(
                f"README.md:{line}: table without a 'Source: "
                "`experiments/results/FILE.md`' paragraph after it"
            )
            continue
        missing = [s for s in sources if not (ROOT / s).is_file()]
        if missing:
            problems.append(f"README.md:{line}: source files missing: {missing}")
            continue
        lines = [
            ln
            for s in sources
            for ln in normalise((ROOT / s).read_text(encoding="utf-8")).splitlines()
        ]
        for row in rows:
            for cell in row[1:]:
                found = figures(cell)
                checked += len(found)
                if found and not occurs(found, lines):
                    problems.append(
                        f"README.md:{line}: {' '.join(found)} (row {row[0]!r}) is "
                        f"in no line of {', '.join(sources)}"
                    )
    return problems, checked


def test_readme_figures_come_from_their_results_files():
    text = README.read_text(encoding="utf-8")
    tables = markdown_tables(text)
    assert len(tables) >= 2, "the README's agreement and speed tables are gone"
    problems, checked = drifted_figures(text)
    assert not problems, "\n".join(problems)
    assert checked >= 20, f"only {checked} figures checked: is the table parsing broken?"


def test_the_figure_check_catches_a_drift():
    """The check is not vacuous: a changed figure, a dropped source line, a rounded figure and
    a flipped sign are each reported; a typographic minus is no change."""
    text = README.read_text(encoding="utf-8")
    _, rows, sources = next(t for t in markdown_tables(text) if t[1] and t[2])
    lines = [ln for x in sources for ln in normalise((ROOT / x).read_text("utf-8")).splitlines()]
    # every drift to a figure that no line of the source files holds is reported (a drift
    # into another figure the files hold, +0.118 to the plain recipe's +0.119, is not a
    # drift a check of figures against files can see); the sign flips and added digits are
    # such drifts for every figure of the table
    cells = [(c, figures(c)[0]) for r in rows for c in r[1:] if figures(c)]
    cells = [(c, fig) for c, fig in cells if fig in c]  # as written (not a typographic minus)
    visible = 0
    for cell, fig in cells:
        assert "." in fig, fig
        for wrong in (
            fig + "9",  # a digit more
            fig[:-1],  # rounded (a digit less)
            fig[:-1] + str((int(fig[-1]) + 1) % 10),  # the last digit changed
            ("+" + fig[1:] if fig.startswith("-") else "-" + fig.lstrip("+")),  # the sign
        ):
            if occurs([wrong], lines):
                continue
            visible += 1
            changed = "\n".join(
                row.replace(cell, cell.replace(fig, wrong, 1), 1) if row.startswith("|") else row
                for row in text.splitlines()
            )
            assert any(wrong in p for p in drifted_figures(changed)[0]), (fig, wrong)
    assert visible >= 2 * len(cells), (visible, len(cells))
    no_source = text.replace("Source: ", "From: ", 1)
    assert any("without a 'Source:" in p for p in drifted_figures(no_source)[0])
    # the typographic minus and the hyphen-minus write the same figure, on either side
    cell = "\u22120.011 [\u22120.209, +0.099]"
    assert figures(cell) == ["-0.011", "-0.209", "+0.099"]
    assert occurs(figures(cell), [normalise("| -0.011 [\u22120.209, +0.099] |")])
    assert not occurs(figures(cell), ["| +0.011 [-0.209, +0.099] |"])


# ------------------------------------------------ quoted output, at one stated precision (fp32)
#: a printed decimal figure (not part of a version such as 0.1.0, nor of a digest)
DECIMAL = re.compile(r"(?<![\w.])[+-]?\d+\.\d+(?![\w.])")
#: how the docs state the precision of a quoted output: next to the quote, in the command or
#: the code that printed it
FP32 = re.compile(r"--dtype fp32|dtype=\"fp32\"")


def same_printed_line(quoted: str, printed: str) -> bool:
    """Whether a quoted line is the printed one: the same text, and each decimal figure written
    with as many decimals and equal to one unit in its last decimal (float32 kernels round
    differently on different CPUs: AVX2, AVX-512, AMX), signed (``+0.1``) where it is."""
    if DECIMAL.sub("\0", quoted.rstrip()) != DECIMAL.sub("\0", printed.rstrip()):
        return False
    for q, p in zip(DECIMAL.findall(quoted), DECIMAL.findall(printed)):
        places = len(q.partition(".")[2])
        if (
            len(p.partition(".")[2]) != places
            or (q[0] in "+-") != (p[0] in "+-")
            or abs(float(q) - float(p)) > 1.001 * 10**-places
        ):
            return False
    return True


def first_unprinted(quoted: list[str], printed: list[str]) -> str | None:
    """The first quoted line (blank lines and lines eliding rows with ``...`` aside) that the
    printed lines do not hold, in order, by :func:`same_printed_line`; ``None`` if all are."""
    rest = iter([p for p in printed if p.strip()])
    for line in quoted:
        if not line.strip() or "..." in line:
            continue
        if not any(same_printed_line(line, p) for p in rest):
            return line
    return None


def fenced_blocks(path, lang: str) -> list[tuple[str, str]]:
    """``(block, the paragraph before it)`` for each fenced block of ``lang`` in ``path``."""
    text = path.read_text(encoding="utf-8")
    blocks = []
    for m in re.finditer(rf"^```{lang}\n(.*?)^```", text, flags=re.S | re.M):
        before = text[: m.start()].rstrip().rpartition("\n\n")[2]
        blocks.append((m.group(1), before))
    return blocks


def test_quoted_output_is_matched_to_one_unit_of_its_last_decimal_and_nothing_else():
    """The rule the quoted outputs are checked by (tests/test_cli.py, tests/test_python_doc.py)
    is not vacuous: a figure one unit off in its last decimal passes, two units, another
    number of decimals, a changed word, integer or digest fail, and order counts."""
    printed = "   3  engine1     +0.0570  [-0.1268, +0.2345]      2       2.33"
    assert same_printed_line(printed, printed + "  ")
    assert same_printed_line(printed.replace("+0.0570", "+0.0569"), printed)
    assert same_printed_line(printed.replace("2.33", "2.34"), printed)
    for wrong in ("+0.0572", "+0.057", "+0.05700", "-0.0570", "0.0570"):
        assert not same_printed_line(printed.replace("+0.0570", wrong), printed), wrong
    assert not same_printed_line(printed.replace("engine1", "engine2"), printed)
    assert not same_printed_line(printed.replace("   2   ", "   3   "), printed)
    signature = "xlscore:0.1.0|est:rtm15-all-e5s#ffd0b77d@fp32-0.25*checks<=4"
    assert same_printed_line(signature, signature)
    assert not same_printed_line(signature.replace("0.1.0", "0.1.1"), signature)
    assert not same_printed_line(signature.replace("ffd0b77d", "ffd0b77e"), signature)
    assert not same_printed_line(signature.replace("@fp32", "@bf16"), signature)
    lines = ["a 0.1234", "b 0.5000", "", "c -0.2000"]
    assert first_unprinted(["a 0.1235", "  ...  (2 rows)", "c -0.1999"], lines) is None
    assert first_unprinted(["c -0.2000", "a 0.1234"], lines) == "a 0.1234"  # order counts
    assert first_unprinted(["b 0.5002"], lines) == "b 0.5002"
