"""Computing only some fields (xlscore.fields): the score stays the same bit for bit, what was
not asked for is absent rather than wrong, and the CLI's cheap defaults work end to end."""

import json

import pytest

from xlscore import XLScorer
from xlscore.errors import XLScoreError
from xlscore.fields import ALL, DEFAULT, resolve_fields
from xlscore.results import ScoreResult
from xlscore.text.pairs import distinct_pairs

SOURCES = [
    "The company reported a profit of 5 million dollars in 2020.",
    "He did not sign the agreement.",
    "The weather was nice.",
    "Maria called her brother yesterday.",
]
TRANSLATIONS = [
    "Компания сообщила о прибыли в 5 миллионов долларов в 2020 году.",
    "Он подписал соглашение.",
    "The weather was nice.",  # untranslated: flagged
    "",
]  # empty: flagged, lowest score


def test_resolve_fields():
    # one meaning of each value (issue 74): None is the default, as it is in every signature
    assert resolve_fields(None, estimator=True) == resolve_fields(DEFAULT, estimator=True)
    assert resolve_fields(None, estimator=True) == {"score", "evidence"}
    assert resolve_fields("all", estimator=True) == ALL
    assert resolve_fields("evidence", estimator=True) == {"score", "evidence"}
    assert resolve_fields(["score"], estimator=True) == {"score"}
    assert resolve_fields("score", estimator=False) == {"score", "paper"}
    assert resolve_fields("similarity", estimator=True) == {"score", "similarity"}
    with pytest.raises(XLScoreError, match="unknown field 'f1'"):
        resolve_fields("score,f1", estimator=True)


@pytest.fixture(scope="module")
def scored():
    """The same pairs scored with every field, with the score only, and with the evidence."""
    full = XLScorer.offline(fields="all")
    out = {"all": full.score(SOURCES, TRANSLATIONS)}
    for fields in ("score", "score,evidence", "score,similarity"):
        scorer = XLScorer.offline(
            en_model=full.en, ru_model=full.ru, estimator=full.estimator, fields=fields
        )
        out[fields] = scorer.score(SOURCES, TRANSLATIONS)
    return out


def test_score_is_identical_without_the_paper_columns(scored):
    for fields in ("score", "score,evidence", "score,similarity"):
        for a, b in zip(scored["all"], scored[fields]):
            assert b.score == a.score
            assert (b.estimate, b.adequacy) == (a.estimate, a.adequacy)
            assert b.error_spans == a.error_spans
            assert b.flags == a.flags and b.foreign == a.foreign
    assert "untranslated" in scored["score"][2].flags
    assert "empty" in scored["score"][3].flags
    assert min(r.score for r in scored["score"]) == scored["score"][3].score


def test_the_similarity_is_a_field_beside_a_score_that_does_not_blend_it(scored):
    """The default's score has no similarity (issue 51): it is computed only when asked for,
    it equals the untrained e5 all-words F1 with the foreign-text penalty, and the score does
    not move; the signature names its encoder apart from the estimator's blend."""
    full = XLScorer.offline(fields="all")
    assert full.estimator is not None and full.estimator.similarity_weight == 0
    assert all(r.similarity is None for r in scored["score"] + scored["score,evidence"])
    e5 = XLScorer.offline(
        multilingual="pack:e5-small", variant="all", estimator=None, fields="score"
    )
    want = [r.score for r in e5.score(SOURCES[:3], TRANSLATIONS[:3])]
    for fields in ("all", "score,similarity"):
        got = [r.similarity for r in scored[fields][:3]]
        assert got == pytest.approx(want, abs=1e-6)
    sig = full.signature()
    assert "*sim" not in sig.split("|")[1] and "|sim:pack:e5-small@9#" in sig
    lean = XLScorer.offline(
        en_model=full.en, ru_model=full.ru, estimator=full.estimator, fields="score"
    )
    assert "sim:" not in lean.signature()


def test_fields_not_asked_for_are_absent(scored):
    for r in scored["score"]:
        assert (r.precision, r.recall, r.f1, r.n_anchors, r.anchors) == (None, None, None, None, ())
        assert not any(r.evidence.__dict__.values())
    for r in scored["all"]:
        assert r.f1 is not None and r.n_anchors is not None
    # the evidence alone comes out as with everything computed
    assert [r.evidence for r in scored["score,evidence"]] == [r.evidence for r in scored["all"]]
    assert "5" not in scored["all"][0].evidence.numbers_missing
    assert any(r.evidence.unmatched_source for r in scored["all"])


def test_results_without_paper_columns_round_trip(scored):
    r = scored["score"][0]
    d = json.loads(json.dumps(r.to_dict()))
    assert d["f1"] is None and d["n_anchors"] is None
    assert ScoreResult.from_dict(d) == r
    with pytest.raises(KeyError):
        ScoreResult.from_dict({k: v for k, v in d.items() if k != "f1"})


def test_chunks_and_no_map_without_the_paper_columns(scored):
    base = XLScorer.offline()
    scorer = XLScorer.offline(
        en_model=base.en, ru_model=base.ru, estimator=base.estimator, fields="score"
    )
    chunked = scorer.score(SOURCES, TRANSLATIONS, chunk_size=1)
    # (other chunk sizes agree to about 1e-6, as XLScorer.iter_score says)
    assert [r.score for r in chunked] == pytest.approx([r.score for r in scored["score"]], abs=1e-5)
    # issue 85: without its columns the paper's scorer was never built; asked for, it is
    assert scorer._paper is None and base._paper is None
    assert XLScorer.offline(fields="all", estimator=base.estimator)._paper is not None
    assert scorer.paper.maps.last is None  # no map was fitted
    corpus = scorer.anchoring.prepare(
        distinct_pairs(SOURCES[:1], TRANSLATIONS[:1]),
        vectors=scorer.plan.similarity,
        translate=False,
    )
    with pytest.raises(XLScoreError, match="without the paper's columns"):
        scorer.paper.score_prepared(corpus)


def test_without_an_estimator_the_paper_columns_are_always_computed():
    scorer = XLScorer.offline(multilingual="pack:e5-small", estimator=None, fields="score")
    assert "paper" in scorer.fields
    r = scorer.score(SOURCES[:1], TRANSLATIONS[:1])[0]
    assert r.f1 is not None and r.score == pytest.approx(r.f1)


def _tsv_rows(out: str) -> list[dict[str, str]]:
    """The segment rows of TSV output, by column name (the header is the second line)."""
    lines = out.splitlines()
    header = lines[1].split("\t")
    return [dict(zip(header, ln.split("\t"))) for ln in lines[2:] if ln[:1].isdigit()]


@pytest.mark.slow
def test_cli_fields(tmp_path):
    """`score --fields score` writes empty paper columns (TSV) or nulls (JSON) and resumes;
    `rank` computes the score only by default; a bad field name is a clear error."""
    from conftest import DEMO, run_cli

    src, mt = DEMO / "source.en", DEMO / "engine1.ru"
    tsv = run_cli("score", "-s", src, "-t", mt, "--format", "tsv", "--fields", "score", "-q")
    assert tsv.returncode == 0, tsv.stderr
    rows = _tsv_rows(tsv.stdout)
    paper = ("precision", "recall", "f1", "n_anchors", "anchors")
    assert rows and all(all(r[c] == "" for c in paper) for r in rows)
    full = run_cli("score", "-s", src, "-t", mt, "--format", "tsv", "--fields", "all", "-q")
    full_rows = _tsv_rows(full.stdout)
    assert [r["score"] for r in rows] == [r["score"] for r in full_rows]
    assert all(r["f1"] != "" and r["n_anchors"] != "" for r in full_rows)
    # the text format shows the paper's columns only when they were computed
    text = run_cli("score", "-s", src, "-t", mt, "--fields", "score", "-q")
    assert text.returncode == 0 and "—" not in text.stdout and " F1 " not in text.stdout
    assert "fields:score " in text.stdout.splitlines()[0]
    everything = run_cli("score", "-s", src, "-t", mt, "--fields", "all", "-q")
    assert " F1 " in everything.stdout and "fields:all" in everything.stdout.splitlines()[0]
    out = tmp_path / "s.jsonl"
    assert (
        run_cli(
            "score", "-s", src, "-t", mt, "--format", "json", "--fields", "score", "-o", out, "-q"
        ).returncode
        == 0
    )
    first = json.loads(out.read_text(encoding="utf-8").splitlines()[1])
    assert first["f1"] is None and first["score"] is not None
    with open(out, "r+b") as fh:  # cut the file inside its third row
        data = fh.read()
        fh.seek(0)
        fh.truncate(data.index(b"\n", data.index(b'"segment": 3')) - 5)
    assert (
        run_cli(
            "score",
            "-s",
            src,
            "-t",
            mt,
            "--format",
            "json",
            "--fields",
            "score",
            "-o",
            out,
            "--resume",
            "-q",
        ).returncode
        == 0
    )
    resumed = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()[1:]]
    assert [d["segment"] for d in resumed if "segment" in d] == list(range(1, 13))
    ranked = run_cli("rank", "-s", src, "-t", mt, "-t", DEMO / "engine2.ru", "-q")
    assert ranked.returncode == 0 and "engine1" in ranked.stdout
    bad = run_cli("score", "-s", src, "-t", mt, "--fields", "score,bleu")
    assert bad.returncode == 2 and "unknown field 'bleu'" in bad.stderr


def test_cli_score_computes_what_is_asked_by_default():
    """`xlscore score` without --fields: the score and the evidence, no paper columns, no map
    fitted (so no warning about one), and the signature says which fields were computed."""
    from conftest import DEMO, run_cli

    src, mt = DEMO / "source.en", DEMO / "engine1.ru"
    got = run_cli("score", "-s", src, "-t", mt, "--format", "json", "-q")
    assert got.returncode == 0, got.stderr
    lines = [json.loads(x) for x in got.stdout.splitlines()]
    rows = [d for d in lines if "segment" in d]
    assert rows and all(d["f1"] is None and d["n_anchors"] is None for d in rows)
    assert any(d["unmatched_source"] for d in rows)
    summary = next(d for d in lines if "system" in d)
    assert "fields:score+evidence" in summary["signature"]
    assert "Procrustes" not in got.stderr and "Warning" not in got.stderr
    paper = run_cli("score", "-s", src, "-t", mt, "--estimator", "none", "--format", "json", "-q")
    assert paper.returncode == 0, paper.stderr
    first = next(json.loads(x) for x in paper.stdout.splitlines() if '"segment"' in x)
    assert first["f1"] is not None and "fields:all" in paper.stdout.splitlines()[0]


def test_default_fields_load_no_english_encoder(monkeypatch):
    """Without the paper's columns the offline default never loads its English encoder: the
    scores are those of a scorer that has it, the signature says ``en:no``; asking for the map
    loads it then, and a scorer with every field names it."""
    from xlscore.encoders.encoder import Encoder

    full = XLScorer.offline(fields="all")
    load = Encoder.load.__func__

    def no_english(cls, spec, *args, **kwargs):
        if "minilm" in str(spec):
            raise AssertionError("the English encoder was loaded")
        return load(cls, spec, *args, **kwargs)

    monkeypatch.setattr(Encoder, "load", classmethod(no_english))
    lean = XLScorer.offline(fields="score,evidence")
    got, want = lean.score(SOURCES, TRANSLATIONS), full.score(SOURCES, TRANSLATIONS)
    assert [r.score for r in got] == [r.score for r in want]
    assert "|en:no|" in lean.signature()
    assert "|en:pack:minilm-en@6#" in full.signature()
    with pytest.raises(AssertionError, match="English encoder was loaded"):
        lean.paper.maps.dictionary_map()
    monkeypatch.setattr(Encoder, "load", classmethod(load))
    assert lean.paper.maps.dictionary_map().W_ is not None and lean.en.layer == full.en.layer


@pytest.mark.slow
def test_words_alone_need_no_encoder_pass(monkeypatch):
    """An estimator without a similarity (the shipped student), asked for the score alone: the
    words (for the foreign-text share and the flags) come from the tokenizer, the encoder never
    runs, and the words are those an encoder pass would give."""
    from xlscore.encoders.encoder import Encoder

    scorer = XLScorer.offline(estimator="st4-e5s", fields="score")
    assert scorer.estimator.similarity_weight == 0
    embedded = scorer.ru.embed_words(TRANSLATIONS)

    def no_pass(*args, **kwargs):
        raise AssertionError("the encoder ran")

    monkeypatch.setattr(Encoder, "_forward", no_pass)
    alone = scorer.ru.words_only(TRANSLATIONS)
    assert [w.words for w in alone] == [w.words for w in embedded]
    assert [w.spans for w in alone] == [w.spans for w in embedded]
    results = scorer.score(SOURCES, TRANSLATIONS)
    assert "untranslated" in results[2].flags and results[2].foreign > 0.5
    assert all(r.similarity is None for r in results)


def test_python_computes_what_the_command_line_computes_by_default():
    """Issue 65: ``XLScorer.offline().score`` costs what ``xlscore score`` costs: the same
    fields unless told otherwise (the score, its parts, spans, flags, findings and evidence),
    the paper's columns and the similarity only when asked for; the results are the command
    line's, field for field."""
    from conftest import DEMO, offline_scorer, run_cli

    from xlscore.cli.main import build_parser
    from xlscore.fields import DEFAULT

    args = build_parser().parse_args(["score", "-s", "a", "-t", "b"])
    assert args.fields == DEFAULT
    scorer = offline_scorer()
    assert scorer.fields == resolve_fields(args.fields, estimator=True) == {"score", "evidence"}
    src = (DEMO / "source.en").read_text(encoding="utf-8").splitlines()
    mt = (DEMO / "engine1.ru").read_text(encoding="utf-8").splitlines()
    res = scorer.score(src, mt)
    assert all(r.f1 is None and r.similarity is None and r.n_anchors is None for r in res)
    assert any(r.evidence.unmatched_source for r in res) and any(r.findings for r in res)
    got = run_cli("score", "-s", DEMO / "source.en", "-t", DEMO / "engine1.ru", "--format",
                  "json", "-q")  # fmt: skip
    assert got.returncode == 0, got.stderr
    rows = [json.loads(x) for x in got.stdout.splitlines() if '"segment"' in x]
    assert [
        {k: v for k, v in d.items() if k not in ("type", "segment", "engine")} for d in rows
    ] == [json.loads(json.dumps(r.to_dict())) for r in res]
    assert "fields:score+evidence" in scorer.signature()
