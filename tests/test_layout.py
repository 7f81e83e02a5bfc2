"""The package's layout: subpackages by role, no import circles, the library never importing
the command line, and ``import xlscore`` pulling in no CLI, Ray or report code."""

import ast
import subprocess
import sys

from conftest import ROOT

PACKAGE = ROOT / "xlscore"
#: what scoring never loads: training (the loop, its data and losses, the fit, distillation,
#: the corruptions) and the ship gate
TRAINING = ("xlscore.training", "xlscore.evaluation.gate")
ROLES = {
    "scoring",
    "metric",
    "encoders",
    "estimator",
    "checks",
    "training",
    "io",
    "evaluation",
    "cli",
    "report",
    "batch",
    "text",
}


def _module_name(path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(mod: str, node: ast.AST, paths: dict, is_pkg: bool) -> list[str]:
    """What an import statement ``node`` of module ``mod`` names, each name resolved to the
    module that defines it (``[]`` for any other statement)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    target = node.module or ""
    if node.level:
        base = mod.split(".") if is_pkg else mod.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    return [f"{target}.{a.name}" if f"{target}.{a.name}" in paths else target for a in node.names]


def _modules() -> dict[str, set[str]]:
    """Every module of the package and the package modules it imports (anywhere in it,
    functions included), each import resolved to the module that defines the name."""
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in paths.items():
        deps = set()
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            deps.update(_imported(name, node, paths, is_pkg))
        graph[name] = {d for d in deps if d in paths and d != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for d in sorted(graph[n]):
            if state.get(d) == 1:
                return [*stack[stack.index(d) :], d]
            if d not in state and (found := visit(d)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)):
            return found
    return None


def test_subpackages_by_role_each_say_what_they_hold():
    subpackages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert subpackages == ROLES
    for name in ROLES:
        doc = ast.get_docstring(ast.parse((PACKAGE / name / "__init__.py").read_text("utf-8")))
        assert doc and len(doc) > 40, name


def test_no_module_name_is_used_twice():
    """Issue 74: a module file's name says what it holds, once in the package (``consensus``,
    ``corpus``, ``numbers``, ``quantities`` and ``text`` each named two files; the command
    line's ``cli/batch.py`` and ``cli/report.py`` are the faces of the rooms they name). A
    command's module, ``cli/COMMAND.py`` (issue 85: one file per command, as COMET's), is
    named for the command it registers (``add_COMMAND_parser``): ``cli/lexicon.py`` is
    ``xlscore lexicon``, the face of ``metric/lexicon.py``."""
    names: dict[str, list[str]] = {}
    for p in PACKAGE.rglob("*.py"):
        command = p.parent.name == "cli" and f"def add_{p.stem}_parser(" in p.read_text("utf-8")
        if p.name != "__init__.py" and not command:
            names.setdefault(p.stem, []).append(str(p.relative_to(PACKAGE)))
    twice = {k: v for k, v in names.items() if len(v) > 1}
    assert not twice, twice


def test_no_import_circles():
    graph = _modules()
    assert len(graph) > 60
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))
    # the check can fail: a circle put in by hand is found
    graph["xlscore.metric.anchor_pairs"] = graph["xlscore.metric.anchor_pairs"] | {
        "xlscore.scoring.scorer"
    }
    assert _cycle(graph) is not None


#: the package's layers, bottom first: a module imports from its own layer or those below.
#: The result record, its parts and the text's words at the bottom; the rule checks, which
#: read text alone, just above it (the metric's pair parts read their findings); then the
#: files, the encoders, the paper's metric, the runtime estimator, the scorer over them,
#: training and evaluation, the applications (report, batch) and the command line.
LAYERS = (
    (
        "record",
        (
            "xlscore._version",
            "xlscore.errors",
            "xlscore.finding",
            "xlscore.fields",
            "xlscore.results",
            "xlscore.signature",
            "xlscore.text",
        ),
    ),
    ("checks", ("xlscore.checks",)),
    ("io", ("xlscore.io",)),
    ("encoders", ("xlscore.encoders",)),
    ("metric", ("xlscore.metric",)),
    ("estimator", ("xlscore.estimator",)),
    (
        "scoring",
        ("xlscore.scoring",),
    ),
    ("training", ("xlscore.training", "xlscore.evaluation")),
    ("applications", ("xlscore.report", "xlscore.batch")),
    ("cli", ("xlscore.cli",)),
)
#: the imports that run up a layer, each with its reason (each is made inside a function,
#: when it is called, never when the module loads)
UPWARD: dict[tuple[str, str], str] = {}  # none (issue 74: the runtime model has no fit)


def _layer(module: str) -> int | None:
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return None


def _upward(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """The imports of ``graph`` from a layer to a higher one (the package's ``__init__``,
    which gathers the public names, is above every layer)."""
    out = set()
    for name, deps in graph.items():
        if name == "xlscore":
            continue
        for d in deps:
            if d != "xlscore" and _layer(d) > _layer(name):  # type: ignore[operator]
                out.add((name, d))
    return out


def test_no_import_runs_up_a_layer_but_the_named_exceptions():
    graph = _modules()
    unplaced = sorted(m for m in graph if m != "xlscore" and _layer(m) is None)
    assert not unplaced, f"modules in no layer: {unplaced}"
    upward = _upward(graph)
    assert upward == set(UPWARD), "\n".join(f"{a} -> {b}" for a, b in sorted(upward))
    # the exceptions are made when called, not when their module loads
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    for name, dep in UPWARD:
        path = paths[name]
        body = ast.parse(path.read_text(encoding="utf-8")).body
        assert dep not in _import_time_targets(name, body, paths, False), (name, dep)
    # the check can fail: the result record reaching up to the estimator is found
    graph["xlscore.results"] = graph["xlscore.results"] | {"xlscore.estimator.spans"}
    assert ("xlscore.results", "xlscore.estimator.spans") in _upward(graph)


def test_the_library_never_imports_the_command_line_or_the_applications():
    graph = _modules()
    apps = ("xlscore.cli", "xlscore.report", "xlscore.batch")
    for name, deps in graph.items():
        if name.startswith(apps):
            continue
        assert not [d for d in deps if d.startswith("xlscore.cli")], name
        if name != "xlscore":
            assert not [d for d in deps if d.startswith(apps)], name


def test_import_xlscore_loads_no_cli_ray_or_report_code():
    code = (
        "import sys, xlscore; print('\\n'.join(m for m in sys.modules if m.startswith("
        "('xlscore.cli', 'xlscore.report', 'xlscore.batch', 'ray', 'matplotlib', "
        "'jinja2'))))"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ""


def _import_time_targets(mod: str, body: list, paths: dict, is_pkg: bool) -> list[str]:
    """The modules the statements ``body`` of module ``mod`` import when it is loaded:
    functions and ``if TYPE_CHECKING:`` blocks are not run then, classes and other blocks are."""
    out: list[str] = []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out += _import_time_targets(mod, node.orelse, paths, is_pkg)
            continue
        out += _imported(mod, node, paths, is_pkg)
        for field in ("body", "orelse", "handlers", "finalbody"):
            if isinstance(node, (ast.ClassDef, ast.If, ast.Try, ast.With, ast.ExceptHandler)):
                out += _import_time_targets(mod, getattr(node, field, []), paths, is_pkg)
    return out


def _loaded_on_import(name: str, paths: dict) -> set[str]:
    """The package modules importing ``name`` loads, followed transitively (parent packages
    included)."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        mod = todo.pop()
        if mod in seen or mod not in paths:
            continue
        seen.add(mod)
        parts = mod.split(".")
        todo += [".".join(parts[:k]) for k in range(1, len(parts))]
        body = ast.parse(paths[mod].read_text(encoding="utf-8")).body
        todo += _import_time_targets(mod, body, paths, paths[mod].name == "__init__.py")
    return seen


def test_the_scoring_path_loads_no_training_code(tmp_path):
    """Scoring (the scorer, the estimator it loads, the command line's score) never loads
    the training loop, the fit, the corruptions, distillation or the gate: they are imported
    inside the functions that train."""
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    for start in (
        "xlscore",
        "xlscore.scoring.scorer",
        "xlscore.estimator.model",
        "xlscore.cli.main",
    ):
        loaded = _loaded_on_import(start, paths)
        # (the package and the command line load the scorer on first use: issue 74)
        assert "xlscore.estimator.prediction" in loaded or start in ("xlscore", "xlscore.cli.main")
        assert not sorted(m for m in loaded if m.startswith(TRAINING)), start
    # the check can fail: the fit imported at the top of the estimator's module is found
    probe = tmp_path / "model.py"
    probe.write_text("from xlscore.training.fitting import fit\n", encoding="utf-8")
    paths["xlscore.estimator.model"] = probe
    assert "xlscore.training.loop" in _loaded_on_import("xlscore.estimator.model", paths)


def test_the_command_lines_score_loads_no_training_module_when_it_runs(tmp_path):
    """What ``xlscore score`` loads while it runs (its parser built, a pair scored, in a fresh
    interpreter), not only what its modules import when loaded: no training, fitting,
    corruption, distillation or gate module."""
    src, mt = tmp_path / "src.en", tmp_path / "mt.ru"
    src.write_text("The museum will not open on Monday.\n", encoding="utf-8")
    mt.write_text("Музей не откроется в понедельник.\n", encoding="utf-8")
    code = (
        "import sys\n"
        "from xlscore.cli.main import main\n"
        f"assert main(['score', '-s', {str(src)!r}, '-t', {str(mt)!r}, '--quiet']) == 0\n"
        "print('LOADED', ' '.join(sorted(sys.modules)))\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert r.returncode == 0, r.stderr[-2000:]
    (line,) = [x for x in r.stdout.splitlines() if x.startswith("LOADED ")]
    loaded = set(line.split()[1:])
    assert "xlscore.estimator.prediction" in loaded  # it did score
    assert not sorted(m for m in loaded if m.startswith(TRAINING))


def test_the_scorer_is_one_class_in_one_file_over_its_components():
    """``XLScorer`` has no base but ``object`` (no mixins), and the components it runs are
    each its own class, none of them spread over other files either."""
    from xlscore.metric.anchoring import Anchoring
    from xlscore.metric.mapping import Maps
    from xlscore.metric.paper import PaperScorer
    from xlscore.metric.similarity import Similarity
    from xlscore.scoring.blend import ScoreBlend
    from xlscore.scoring.scorer import XLScorer

    for cls in (XLScorer, PaperScorer, Maps, Anchoring, Similarity, ScoreBlend):
        assert cls.__bases__ == (object,), cls
    tree = ast.parse((PACKAGE / "scoring" / "scorer.py").read_text(encoding="utf-8"))
    (scorer,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "XLScorer"]
    assert not scorer.bases
    assert "TYPE_CHECKING:  # what this mixin" not in "".join(
        p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py")
    )


def test_the_runtime_estimator_holds_no_training():
    """``estimator/`` is what runs when scoring (issue 64): training, the corruptions and the
    rule checks have rooms of their own."""
    folder = PACKAGE / "estimator"
    names = {p.stem for p in folder.rglob("*.py")}
    assert not names & {"training", "training_data", "training_loss", "fitting", "distill"}
    assert not (folder / "checks").exists() and not (folder / "corruptions").exists()


#: the longest a function or method of the package may be, its signature and docstring
#: included (issue 85: the module and folder caps that kept being raised measured nothing)
MAX_FUNCTION_LINES = 80


def test_no_function_of_the_package_is_longer_than_80_lines():
    long = {}
    for p in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long[f"{_module_name(p)}.{node.name}"] = n
    assert not long, long


def test_the_hand_table_of_names_is_one_entry_per_line_and_does_not_grow():
    """known_names.tsv: what CLDR and ISO 3166-2 lack, at most the 374 entries it had when it
    left the code; each line one ``English<TAB>stems`` entry, no key twice."""
    lines = (PACKAGE / "checks" / "known_names.tsv").read_text("utf-8").splitlines()
    entries = [line.split("\t") for line in lines if line and not line.startswith("#")]
    assert all(len(e) == 2 and e[0] and e[1] for e in entries)
    keys = [e[0] for e in entries]
    assert len(keys) == len(set(keys)) and 300 < len(keys) <= 374, len(keys)


def _experiment_imports() -> dict[str, set[str]]:
    """Each experiment script and the other experiment scripts it imports (anywhere in it)."""
    paths = {p.stem: p for p in (ROOT / "experiments").glob("*.py")}
    graph = {}
    for name, path in paths.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and not node.level:
                deps.add(node.module or "")
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
        graph[name] = {d for d in deps if d in paths and d != name}
    return graph


def test_no_import_circles_among_the_experiments():
    graph = _experiment_imports()
    assert "estimator" in graph["gate"] or "_protocol" in graph["gate"]
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))
    graph["_results"] = graph["_results"] | {"estimator"}
    assert _cycle(graph) is not None


def test_the_test_harness_shares_models_loaded_with_any_setting_the_api_takes():
    """conftest.shared_models intercepts the loaders by their keyword names: a renamed keyword
    would load every model afresh in every test (issue 53's dtype rename once doubled the
    fast tier's time)."""
    import inspect

    import conftest

    from xlscore import Encoder
    from xlscore.estimator.model import QualityEstimator

    source = inspect.getsource(conftest.shared_models)
    for loader in (Encoder.load, QualityEstimator.load):
        for name, p in inspect.signature(loader).parameters.items():
            if p.kind is p.KEYWORD_ONLY:
                assert f'"{name}"' in source, name
