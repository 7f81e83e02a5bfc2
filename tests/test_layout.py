"""The package's layout: subpackages by role, no import circles, the library never importing
the command line, and ``import xlscore`` pulling in no CLI, Ray or report code."""

import ast
import subprocess
import sys

import pytest
from conftest import ROOT

PACKAGE = ROOT / "xlscore"
#: what scoring never loads: training (the loop, its data and losses, the fit, distillation,
#: the corruptions) and the ship gate
TRAINING = ("xlscore.training", "xlscore.evaluation.gate")
ROLES = {
    "scoring",
    "paper",
    "lexicon",
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
    ``xlscore lexicon``, the face of ``lexicon/dictionary.py``."""
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
    graph["xlscore.lexicon.anchor_pairs"] = graph["xlscore.lexicon.anchor_pairs"] | {
        "xlscore.scoring.scorer"
    }
    assert _cycle(graph) is not None


#: the package's layers, bottom first: a module imports from its own layer or those below.
#: The result record, its parts and the text's words at the bottom; the rule checks, which
#: read text alone, just above it (the scorer's pair parts read their findings); then the
#: files, the encoders, the bilingual lexicon, the runtime estimator, the scorer and the
#: statistics of results (agreement, engines compared: a corpus result compares its
#: engines), then the scoring layer: the scorer and the paper's wing beside it (the factory
#: imports the wing, the wing reads the scorer's parts),
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
            "xlscore.system_score",
            "xlscore.text",
        ),
    ),
    ("checks", ("xlscore.checks",)),
    ("io", ("xlscore.io",)),
    ("encoders", ("xlscore.encoders",)),
    ("lexicon", ("xlscore.lexicon",)),
    ("estimator", ("xlscore.estimator",)),
    ("statistics", ("xlscore.evaluation.agreement", "xlscore.evaluation.compare")),
    ("scoring", ("xlscore.scoring", "xlscore.paper")),
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


#: what the subprocess of :func:`score_run` runs: ``xlscore score`` on one pair with its calls
#: traced (every function of the package, in the order of its first call), then the modules
#: loaded, then the paper's modules once its scorer is imported (what the check looks for)
_TRACED_SCORE = """
import sys
from xlscore.cli.main import main
order, seen = [], set()
def called(frame, event, arg):
    name = frame.f_code.co_filename.replace("\\\\", "/")
    if event == "call" and "/xlscore/" in name:
        code = frame.f_code  # (co_qualname from Python 3.11; the walk's test reads it)
        key = name.rsplit("/xlscore/", 1)[1] + " " + getattr(code, "co_qualname", code.co_name)
        if key not in seen:
            seen.add(key)
            order.append(key)
sys.setprofile(called)
code = main(["score", "-s", SRC, "-t", MT, "--quiet"])
sys.setprofile(None)
assert code == 0
print("CALLED", "|".join(order))
print("LOADED", " ".join(sorted(sys.modules)))
import xlscore.paper.paper_scorer
print("PAPER", " ".join(m for m in sorted(sys.modules) if "xlscore.paper" in m))
"""


@pytest.fixture(scope="module")
def score_run(tmp_path_factory) -> dict[str, list[str]]:
    """``xlscore score`` of one pair in a fresh interpreter (:data:`_TRACED_SCORE`): its
    calls in order (``CALLED``), the modules loaded (``LOADED``), and the paper's modules once
    the paper's scorer is imported (``PAPER``)."""
    tmp = tmp_path_factory.mktemp("score-run")
    src, mt = tmp / "src.en", tmp / "mt.ru"
    src.write_text("The museum will not open on Monday.\n", encoding="utf-8")
    mt.write_text("Музей не откроется в понедельник.\n", encoding="utf-8")
    code = f"SRC, MT = {str(src)!r}, {str(mt)!r}\n" + _TRACED_SCORE
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert r.returncode == 0, r.stderr[-2000:]
    out = {}
    for line in r.stdout.splitlines():
        head, _, rest = line.partition(" ")
        if head in ("CALLED", "LOADED", "PAPER"):
            out[head] = rest.split("|") if head == "CALLED" else rest.split()
    return out


def test_the_command_lines_score_loads_no_training_module_when_it_runs(score_run):
    """What ``xlscore score`` loads while it runs (its parser built, a pair scored, in a fresh
    interpreter), not only what its modules import when loaded: no training, fitting,
    corruption, distillation or gate module; and with the default fields, nothing of the
    paper's wing (issue 85: a pair enters ``paper/`` zero times: no module of it loaded, no
    function of it called). ``tests/test_fields.py`` shows the paper's columns loading it."""
    loaded = set(score_run["LOADED"])
    assert "xlscore.estimator.prediction" in loaded  # it did score
    assert not sorted(m for m in loaded if m.startswith(TRAINING))
    assert not sorted(m for m in loaded if m.startswith("xlscore.paper"))
    assert not [c for c in score_run["CALLED"] if c.startswith("paper/")]
    # the check can fail: the paper's scorer, once imported, is seen
    assert "xlscore.paper.paper_scorer" in score_run["PAPER"]


def _walk() -> list[str]:
    """The steps of ``docs/development.md``'s walk of one pair (its ``walk`` block: a file
    and a function per line, then what the step does)."""
    text = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    block = text.split("```walk\n", 1)[1].split("```", 1)[0]
    return [" ".join(line.split()[:2]) for line in block.splitlines() if line.strip()]


def test_the_documented_walk_of_one_pair_is_what_a_trace_of_it_shows(score_run):
    """Issue 85: the walk of one pair through ``xlscore score`` in docs/development.md is the
    order in which a trace of the command sees its steps first called."""
    steps, called = _walk(), score_run["CALLED"]
    if sys.version_info < (3, 11):  # no qualified names: a method by its own name
        steps = [f"{s.split()[0]} {s.split()[1].rsplit('.', 1)[-1]}" for s in steps]
    assert len(steps) >= 20
    missing = [s for s in steps if s not in called]
    assert not missing, f"steps the trace never saw: {missing}"
    at = [called.index(s) for s in steps]
    late = [(a, b) for a, b, i, j in zip(steps, steps[1:], at, at[1:]) if i > j]
    assert not late, f"steps out of the trace's order: {late}"
    # the check can fail: two steps swapped are found
    swapped = [called.index(s) for s in [steps[1], steps[0], *steps[2:]]]
    assert swapped != sorted(swapped)


def _runtime_importers(target: str) -> set[str]:
    """The package modules outside ``target`` that import it when they run (``if
    TYPE_CHECKING:`` blocks, read by the type checker alone, excluded)."""
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    out = set()
    for name, path in paths.items():
        if name == target or name.startswith(target + "."):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(n)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for n in ast.walk(node)
        }
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            deps = _imported(name, node, paths, path.name == "__init__.py")
            if any(d == target or d.startswith(target + ".") for d in deps):
                out.add(name)
    return out


def test_the_papers_wing_is_imported_by_the_scorers_factory_alone():
    """Issue 85: ``xlscore/paper/`` is imported, outside itself, only by the scorer's factory
    (``XLScorer``, which builds the paper's scorer when asked; the package's public names,
    ``xlscore.PaperScorer``..., are resolved lazily by name); the plots, the batch job's map
    and the commands reach it through the scorer."""
    assert not (PACKAGE / "metric").exists()
    assert _runtime_importers("xlscore.paper") == {"xlscore.scoring.scorer"}
    # the check can fail: the blocks' importers of the scorer's corpus are found
    assert "xlscore.scoring.blocks" in _runtime_importers("xlscore.scoring.corpus")


def test_the_scorer_is_one_class_in_one_file_over_its_components():
    """``XLScorer`` has no base but ``object`` (no mixins), and the components it runs are
    each its own class, none of them spread over other files either."""
    from xlscore.paper.mapping import Maps
    from xlscore.paper.paper_scorer import PaperScorer
    from xlscore.scoring.anchoring import Anchoring
    from xlscore.scoring.blend import ScoreBlend
    from xlscore.scoring.scorer import XLScorer
    from xlscore.scoring.similarity import Similarity

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
    """Each script of tools/ and experiments/ and the other such scripts it imports (anywhere
    in it; a record script reaches the tools through experiments/_tools.py)."""
    paths = {p.stem: p for d in ("tools", "experiments") for p in (ROOT / d).glob("*.py")}
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
    record = {p.stem for p in (ROOT / "experiments").glob("*.py")}
    tools = {p.stem for p in (ROOT / "tools").glob("*.py")}
    assert not record & tools, record & tools
    assert not {t: graph[t] & record for t in tools if graph[t] & record}  # tools need no study
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
