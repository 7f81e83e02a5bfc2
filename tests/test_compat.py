"""The bert_score-compatible mode gives bert_score's own numbers (the reference implementation,
PyPI bert-score) on the same model folder and layer."""

import warnings

import pytest
from conftest import DEMO, make_wordpiece_bert

from xlscore import Encoder, InputError, bert_score_compatible, packs

bert_score = pytest.importorskip("bert_score")


def _reference(cands, refs, folder, layer):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p, r, f = bert_score.score(
            cands, refs, model_type=str(folder), num_layers=layer, batch_size=3
        )
    return list(zip(p.tolist(), r.tolist(), f.tolist()))


def _close(ours, theirs, tol=1e-4):
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert (o.precision, o.recall, o.f1) == pytest.approx(t, abs=tol)


@pytest.mark.slow
def test_equals_bert_score_on_e5_pack():
    sources = (DEMO / "source.en").read_text(encoding="utf-8").splitlines()[:6]
    mt = (DEMO / "engine1.ru").read_text(encoding="utf-8").splitlines()[:6]
    enc = Encoder.load("pack:e5-small", layer=9, dtype="fp32")  # bert_score's float32
    cands, refs = [*mt, "  " + mt[0] + " "], [*sources, sources[0]]  # stripping as bert_score
    ours = bert_score_compatible(cands, refs, enc)
    _close(ours, _reference(cands, refs, packs.path("e5-small"), 9))
    assert ours[-1] == ours[0]
    # order and company do not matter
    again = bert_score_compatible(cands[::-1] + cands[:2], refs[::-1] + refs[3:5], enc)
    assert again[: len(cands)][::-1] == ours


def test_equals_bert_score_on_a_wordpiece_bert(tmp_path):
    folder = make_wordpiece_bert(tmp_path / "wp", layers=3)
    enc = Encoder.load(folder, layer=2, dtype="fp32")
    cands = ["the cat sat on the mat", "неровно сложенный кусок бумаги", "a b c"]
    refs = ["the cats sat", "что-то бумаги.", "x xx 1 2"]
    _close(bert_score_compatible(cands, refs, enc), _reference(cands, refs, folder, 2))


def test_long_input_is_cut_with_a_warning(tmp_path):
    folder = make_wordpiece_bert(tmp_path / "wp", layers=2, max_pos=16)
    enc = Encoder.load(folder, layer=2)
    long = " ".join(["a b c d e"] * 10)
    with pytest.warns(Warning, match="cut to the 14"):
        [_score] = bert_score_compatible([long], ["a b c"], enc)
    with pytest.warns(Warning, match="cut to the 14"):
        [(ids, vectors)] = enc.embed_tokens([long])
    assert len(ids) == len(vectors) == 16


def test_mismatched_lengths_are_refused(e5):
    with pytest.raises(InputError, match="2 candidates but 1 references"):
        bert_score_compatible(["a", "b"], ["c"], e5)
