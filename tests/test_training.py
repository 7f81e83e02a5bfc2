"""The training pieces: targets, batches, the loss, the recipe, corruptions."""

import random
from dataclasses import asdict

import numpy as np
import pytest
import torch

from xlscore import XLScoreError
from xlscore.io.judgments import Judgment
from xlscore.training.corruptions import corrupt
from xlscore.training.loop import (
    BatchTargets,
    Recipe,
    batch_loss,
    make_examples,
    normal_scores,
    piece_labels,
    plan_batches,
)


def test_normal_scores_keep_order_and_ties_on_one_scale():
    z = normal_scores([0, -5, 0, -1, -25])
    assert z[0] == z[2] and z[0] > z[3] > z[1] > z[4]
    assert z[3] == pytest.approx(0.0)  # the median
    # a monotone change of scale gives the same targets
    assert np.allclose(normal_scores([100, 20, 100, 80, -400]), z)
    assert normal_scores([]).size == 0


def _rows(n_src, per, prefix="s"):
    return [
        Judgment(
            f"{prefix}:d{i % 3}:{i}",
            f"sys{k}",
            f"source {i}",
            f"перевод {i} {k}",
            float(-k - i % 2),
        )
        for i in range(n_src)
        for k in range(per)
    ]


def test_examples_put_each_set_on_its_own_scale_and_group_by_source():
    many, single = _rows(4, 3), _rows(5, 1, "q")
    ex = make_examples([many, single], Recipe())
    assert len(ex) == 17
    assert [e.group for e in ex[:3]] == [0, 0, 0] and ex[3].group == 1
    assert len({e.group for e in ex[12:]}) == 5
    assert all(e.weight == 1.0 and e.parent == -1 for e in ex)
    with pytest.raises(XLScoreError, match="set 2 has no judged translations"):
        make_examples([many, []], Recipe())


def test_synthetic_examples_hang_on_their_parent():
    rows = [
        Judgment(
            f"q:0:{i}",
            "mt",
            "The cat sat on the mat today.",
            f"Кошка {i} сидела на коврике сегодня утром.",
            0.0,
        )
        for i in range(20)
    ]
    ex = make_examples([rows], Recipe(synthetic=0.5, seed=3), corrupt)
    syn = [e for e in ex if e.parent >= 0]
    assert 3 <= len(syn) <= 17
    for e in syn:
        parent = ex[e.parent]
        assert e.weight == 0.0 and e.group == -1 and e.translation != parent.translation
        assert e.source == parent.source
        # the corrupted characters are labelled as a major error, the rest is unknown
        assert e.errors and not e.clean
        assert all(0 <= a <= b <= len(e.translation) and cls == 2 for a, b, cls in e.errors)


def test_only_russian_translations_are_corrupted():
    """The corruption kinds are Russian: rows of other language pairs are never corrupted,
    nor borrowed from, and en-ru rows are corrupted as they are without them."""
    ru = [
        Judgment(f"q:0:{i}", "mt", "The cat sat on the mat today.", f"Кошка {i} сидела.", 0.0)
        for i in range(20)
    ]
    de = [
        Judgment(f"d:0:{i}", "mt", "The cat sat on 3 mats.", f"Die Katze {i} saß.", 0.0, lp="en-de")
        for i in range(20)
    ]
    recipe = Recipe(synthetic=1.0, seed=3)
    both = make_examples([de, ru], recipe, corrupt)
    alone = make_examples([ru], recipe, corrupt)
    syn = [e for e in both if e.parent >= 0]
    assert syn and all(both[e.parent].translation.startswith("Кошка") for e in syn)
    assert all("Die Katze" not in e.translation for e in syn)
    assert [e.translation for e in syn] == [e.translation for e in alone if e.parent >= 0]


def test_batches_cover_every_example_once_and_keep_sources_together():
    ex = make_examples([_rows(6, 4), _rows(30, 1, "q")], Recipe(synthetic=0.3), corrupt)
    lengths = [len(e.translation) for e in ex]
    batches = plan_batches(ex, lengths, 8, random.Random(0))
    flat = sorted(i for b in batches for i in b)
    assert flat == list(range(len(ex)))
    where = {i: k for k, b in enumerate(batches) for i in b}
    for i, e in enumerate(ex):
        if e.parent >= 0:
            assert where[i] == where[e.parent]
    for g in {e.group for e in ex[:24]}:
        assert len({where[i] for i, e in enumerate(ex) if e.group == g}) == 1
    again = plan_batches(ex, lengths, 8, random.Random(0))
    assert again == batches


def test_loss_rewards_the_right_order():
    t = BatchTargets(
        target=torch.tensor([1.0, 0.0, -1.0, 0.5]),
        weight=torch.tensor([1.0, 1.0, 1.0, 0.0]),
        group=torch.tensor([0, 0, 0, -1]),
        parent=torch.tensor([-1, -1, -1, 0]),
    )
    both = Recipe(rank_weight=1.0, synthetic_weight=1.0)
    right = torch.tensor([3.0, 0.0, -3.0, -2.0])
    wrong = torch.tensor([-3.0, 0.0, 3.0, 5.0])
    assert batch_loss(right, t, both) < batch_loss(wrong, t, both)
    # without the ranking terms only the squared error of weighted rows counts
    exact = torch.tensor([1.0, 0.0, -1.0, 99.0])
    none = Recipe(rank_weight=0.0, synthetic_weight=0.0)
    assert batch_loss(exact, t, none).item() == pytest.approx(0)
    # pairwise term: softplus(-(p_i - p_j)) over the 3 ordered pairs of group 0
    flat = torch.zeros(4)
    want = (2 / 3) + np.log(2)
    assert batch_loss(
        flat, t, Recipe(rank_weight=1.0, synthetic_weight=0.0)
    ).item() == pytest.approx(want)
    # the corruption's margin: softplus(margin - (parent - child))
    only = Recipe(rank_weight=0.0, synthetic_weight=1.0, synthetic_margin=0.5)
    gap = torch.tensor([1.0, 0.0, -1.0, 0.25])
    assert batch_loss(gap, t, only).item() == pytest.approx(float(np.log1p(np.exp(-0.25))))
    # the meaning head's margin: the same loss on its own output, the score left alone
    on_meaning = Recipe(rank_weight=0.0, synthetic_weight=0.0, meaning_weight=2.0)
    assert batch_loss(gap, t, on_meaning, meaning=gap).item() == pytest.approx(
        2 * float(np.log1p(np.exp(-0.25)))
    )
    assert batch_loss(exact, t, on_meaning, meaning=gap).item() == pytest.approx(
        batch_loss(gap, t, on_meaning, meaning=gap).item()
    )
    assert batch_loss(gap, t, on_meaning).item() == pytest.approx(0.0)


def test_retired_meaning_losses_and_per_word_targets_are_refused_in_old_recipes():
    """Issue 64: the anchored and detecting meaning losses, per-word MQM targets and the
    in-pass alignment features, which no shipped file uses, left the package; a recipe that
    stored them at their unused values still reads, one that used them is refused with a
    clear error."""
    stored = {**asdict(Recipe()), "meaning_loss": "margin", "per_word": False, "features": False}
    assert Recipe.from_dict(stored) == Recipe()
    for key, value in (
        ("meaning_loss", "detect"),
        ("meaning_loss", "anchored"),
        ("per_word", True),
        ("features", True),
    ):
        with pytest.raises(XLScoreError, match=f"recipe: {key} was a refused experiment"):
            Recipe.from_dict({**asdict(Recipe()), key: value})
    with pytest.raises(TypeError):
        Recipe(meaning_loss="margin")  # type: ignore[call-arg]


def test_da_pairs_need_a_clear_gap_in_raw_ratings():
    """Direct assessment: two translations of a source are a ranking pair only when their raw
    ratings differ by more than da_gap; the squared error does not apply (weight 0)."""
    t = BatchTargets(
        target=torch.zeros(3),
        weight=torch.zeros(3),
        group=torch.tensor([0, 0, 0]),
        parent=torch.tensor([-1, -1, -1]),
        rank_value=torch.tensor([90.0, 80.0, 50.0]),
        rank_gap=torch.full((3,), 25.0),
    )
    r = Recipe(rank_weight=1.0)
    # only (90, 50) and (80, 50) count: 0 vs 2 wrong orders
    good = torch.tensor([0.0, 0.0, -5.0])
    assert batch_loss(good, t, r).item() == pytest.approx(float(np.log1p(np.exp(-5.0))))
    # the close pair (90, 80) in either order changes nothing
    swapped = torch.tensor([0.0, 1.0, -5.0])
    assert batch_loss(swapped, t, r).item() == pytest.approx(
        float((np.log1p(np.exp(-5.0)) + np.log1p(np.exp(-6.0))) / 2)
    )


def test_word_loss_counts_labelled_pieces_only():
    t = BatchTargets(
        target=torch.zeros(1),
        weight=torch.zeros(1),
        group=torch.tensor([-1]),
        parent=torch.tensor([-1]),
        labels=torch.tensor([[-100, 0, 2, -100]]),
    )
    logits = torch.zeros(1, 4, 3)
    logits[0, 0] = torch.tensor([0.0, 0.0, 50.0])  # unlabelled: ignored however wrong
    r = Recipe(rank_weight=0.0, synthetic_weight=0.0, word_weight=2.0)
    assert batch_loss(torch.zeros(1), t, r, logits).item() == pytest.approx(2 * np.log(3))
    assert batch_loss(torch.zeros(1), t, Recipe(word_weight=0.0), logits).item() == 0.0


def test_word_loss_weighs_the_ok_class_and_each_row():
    labels = torch.tensor([[0, 0, 2], [0, 1, -100]])
    logits = torch.randn(2, 3, 3, generator=torch.Generator().manual_seed(0))
    each = -torch.log_softmax(logits, -1).gather(-1, labels.clamp(min=0)[..., None])[..., 0]

    def targets(rows=None):
        return BatchTargets(
            target=torch.zeros(2),
            weight=torch.zeros(2),
            group=torch.tensor([-1, -1]),
            parent=torch.tensor([-1, -1]),
            labels=labels,
            label_weight=rows,
        )

    r = Recipe(rank_weight=0.0, synthetic_weight=0.0, word_ok_weight=0.25)
    w = torch.tensor([[0.25, 0.25, 1.0], [0.25, 1.0, 0.0]])
    expected = (each * w).sum() / w.sum()
    assert batch_loss(torch.zeros(2), targets(), r, logits).item() == pytest.approx(
        expected.item(), rel=1e-5
    )
    # the second row's pieces at half weight
    rows = torch.tensor([1.0, 0.5])
    w2 = w * rows[:, None]
    got = batch_loss(torch.zeros(2), targets(rows), r, logits).item()
    assert got == pytest.approx(((each * w2).sum() / w2.sum()).item(), rel=1e-5)
    # every weight 1: the plain mean over the labelled pieces, as before the weights
    plain = Recipe(rank_weight=0.0, synthetic_weight=0.0)
    kept = labels >= 0
    assert batch_loss(torch.zeros(2), targets(torch.ones(2)), plain, logits).item() == (
        pytest.approx(each[kept].mean().item(), rel=1e-6)
    )


def test_other_pairs_teach_only_the_word_head_when_the_recipe_says_so():
    from xlscore.io.judgments import ErrorMark

    de = [
        Judgment("d:0:1", f"s{k}", "a b", f"Ein Hund {k}", -k, lp="en-de", errors=())
        for k in range(3)
    ]
    ru = [Judgment("r:0:1", f"s{k}", "a b", f"Собака {k}", -k) for k in range(3)]
    edit = Judgment(
        "w:0:1", "mt", "a b", "Ein Katze", -0.5, kind="hter", lp="en-de",
        errors=(ErrorMark(0, 3, "edit"),),
    )  # fmt: skip
    r = Recipe(foreign_words_only=True, edit_word_weight=0.3)
    ex = make_examples([de, ru, [edit]], r)
    foreign = [e for e in ex if e.dataset != 1]
    assert {e.weight for e in foreign} == {0.0}  # no squared error
    assert all(e.rank_gap == float("inf") for e in foreign)  # never in a ranking pair
    assert {e.weight for e in ex if e.dataset == 1} == {1.0}
    assert [e.word_weight for e in ex] == [1.0] * 6 + [0.3]  # post-edit tags down-weighted
    # without the setting, the other pairs train the score as before
    assert {e.weight for e in make_examples([de], Recipe())} == {1.0}


def test_piece_labels_follow_the_error_spans():
    from xlscore.training.loop import Example

    # "Он не пришёл домой": pieces "Он" (0,2) "не" (3,5) "приш" (6,10) "ёл" (10,12) "" (12,12)
    offsets = [(0, 2), (3, 5), (6, 10), (10, 12), (12, 12), (13, 18)]
    clean = Example("s", "Он не пришёл домой", 0.0, 0, 0, errors=((6, 12, 1),), clean=True)
    assert piece_labels(clean, offsets) == [0, 0, 1, 1, -100, 0]
    unknown = Example("s", "Он не пришёл домой", 0.0, 0, 0, errors=((3, 5, 2),), clean=False)
    assert piece_labels(unknown, offsets) == [-100, 2, -100, -100, -100, -100]
    # an omission marked at a position labels the piece that ends there
    gap = Example("s", "Он не пришёл домой", 0.0, 0, 0, errors=((12, 12, 2),), clean=True)
    assert piece_labels(gap, offsets) == [0, 0, 0, 2, -100, 0]
    # overlapping marks: the most severe wins
    both = Example("s", "Он не пришёл домой", 0.0, 0, 0, errors=((0, 5, 1), (3, 4, 2)), clean=True)
    assert piece_labels(both, offsets)[:2] == [1, 2]


def test_recipe_refuses_nonsense():
    with pytest.raises(XLScoreError, match="recipe: epochs must be positive"):
        Recipe(epochs=0)
    with pytest.raises(XLScoreError, match="delta_bits must be 8 or 16"):
        Recipe(delta_bits=4)
    with pytest.raises(XLScoreError, match="unknown setting 'speed'"):
        Recipe.from_dict({"speed": 1})


def test_the_loop_ends_when_epochs_differ_in_length(tmp_path):
    """Packing makes epochs differ by a batch or two; the loop must still stop at its step
    count, and resume at the right batch."""
    from xlscore.training.loop import train_loop

    class Tiny(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.head = torch.nn.Linear(3, 1)

        def forward(self, x):
            return self.head(x).squeeze(-1)

    seen = []

    def batches(epoch):
        return [[epoch, k] for k in range(5 - epoch % 2)]  # 5, 4, 5, 4 ... batches

    def collate(b):
        seen.append(tuple(b))
        x = torch.full((2, 3), float(b[1]))
        return (x,), BatchTargets(
            torch.ones(2), torch.ones(2), torch.tensor([0, 0]), torch.tensor([-1, -1])
        )

    model = Tiny()
    log = train_loop(
        model,
        batches,
        collate,
        [],
        Recipe(epochs=3, warmup=0.0),
        head=model.head,
        device=torch.device("cpu"),
        checkpoint=tmp_path / "c",
        checkpoint_every=4,
    )
    assert log.steps == 15 and len(seen) == 15
    assert seen[:10] == [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 0),
        (1, 1),
        (1, 2),
        (1, 3),
        (2, 0),
    ]
    assert len(log.epoch_loss) == 4
    # each epoch's terms (only the squared error here) add up to its loss
    assert len(log.epoch_parts) == 4
    for total, parts in zip(log.epoch_loss, log.epoch_parts, strict=True):
        assert sum(parts.values()) == pytest.approx(total)
        assert parts["rank"] == parts["word"] == 0.0


def test_the_loss_reports_each_weighted_term_and_they_add_up():
    """How a recipe is dosed (issue 72): ``parts`` holds each weighted term of the total."""
    t = BatchTargets(
        target=torch.tensor([1.0, 0.0, -1.0, 0.5]),
        weight=torch.tensor([1.0, 1.0, 1.0, 0.0]),
        group=torch.tensor([0, 0, 0, -1]),
        parent=torch.tensor([-1, -1, -1, 0]),
        labels=torch.tensor([[0, 2], [-100, -100], [1, 0], [0, -100]]),
    )
    r = Recipe(rank_weight=0.5, synthetic_weight=0.2, meaning_weight=0.3, word_weight=0.05)
    pred, meaning = torch.tensor([0.3, 0.1, -0.2, 0.4]), torch.tensor([0.5, 0.0, 0.1, 0.2])
    logits = torch.randn(4, 2, 3, generator=torch.Generator().manual_seed(0))
    parts: dict[str, float] = {}
    total = batch_loss(pred, t, r, logits, meaning, parts=parts).item()
    assert set(parts) == {"squared", "rank", "synthetic", "meaning", "word"}
    assert sum(parts.values()) == pytest.approx(total)
    assert min(parts.values()) > 0
    # each term is its weight times the term alone
    alone = Recipe(rank_weight=0.0, synthetic_weight=0.0, meaning_weight=0.0, word_weight=1.0)
    word_only = batch_loss(pred, t, alone, logits, meaning).item() - parts["squared"]
    assert parts["word"] == pytest.approx(0.05 * word_only)


def test_corruptions_keep_their_parents_marks_and_balance_the_kinds():
    from xlscore.io.judgments import ErrorMark
    from xlscore.training.corruptions import Corruption

    calls = []

    def fake(source, text, rng, pool, kinds):
        """'rare' applies to one sentence in four, 'common' to all: prepends a word."""
        [kind] = kinds
        calls.append(kind)
        if kind == "rare" and text.endswith("0."):
            return Corruption("РЕДКО " + text, kind, ((0, 5),))
        if kind == "common":
            return Corruption("ЧАСТО " + text, kind, ((0, 5),))
        return None

    rows = [
        Judgment(
            f"q:0:{i}",
            "mt",
            "The cat sat.",
            f"Кошка сидела {i}.",
            0.0,
            errors=(ErrorMark(0, 5, "minor"),),
        )
        for i in range(40)
    ]
    import xlscore.training.data as training_data

    real = training_data._corruption_kinds
    training_data._corruption_kinds = lambda: ("common", "rare")
    try:
        ex = make_examples([rows], Recipe(synthetic=1.0, seed=0), fake)
    finally:
        training_data._corruption_kinds = real
    syn = [e for e in ex if e.parent >= 0]
    kinds = {ex[e.parent].translation: e.translation.split()[0] for e in syn}
    # once 'common' has been used, 'rare' is tried first wherever it fits (the first
    # sentence, with both unused, may go either way)
    assert len(syn) == 40
    assert [kinds[f"Кошка сидела {i}."] for i in (10, 20, 30)] == ["РЕДКО"] * 3
    for e in syn:
        # the parent's mark "Кошка" moved behind the new word, the new word a major error
        assert sorted(e.errors) == [(0, 5, 2), (6, 11, 1)] and e.clean
        assert e.translation[6:11] == "Кошка"


# ---------------------------------------------------------------------- multilingual training
def test_da_is_a_regression_target_only_when_the_recipe_says():
    da = [
        Judgment(f"da:d:{i}", f"s{k}", f"src {i}", f"перевод {k}", float(k), kind="da", raw=50.0)
        for i in range(2)
        for k in range(2)
    ]
    assert {e.weight for e in make_examples([da], Recipe())} == {0.0}
    assert {e.weight for e in make_examples([da], Recipe(da_regression=True))} == {1.0}


def test_post_editing_marks_label_words_only_when_the_recipe_learns_edits():
    from xlscore.io.judgments import ErrorMark

    row = Judgment(
        "w:0:1", "mt", "a b", "Ein Katze", -0.5, kind="hter", errors=(ErrorMark(0, 3, "edit"),)
    )
    (off,) = make_examples([[row]], Recipe(edit_tags=False))
    assert off.errors == () and not off.clean  # no word labels at all
    (on,) = make_examples([[row]], Recipe())
    assert on.errors == ((0, 3, 1),) and on.clean  # an edit counts as a minor error


def test_set_shares_follow_size_balance_and_the_en_ru_weight():
    from xlscore.training.loop import set_shares

    # each unit once per epoch: no sampling at all
    assert set_shares([100, 900], ["en-ru", "en-de"], Recipe()) is None
    flat = set_shares([100, 900], ["en-ru", "en-de"], Recipe(balance=0.0))
    assert flat == pytest.approx([0.5, 0.5])
    heavy = set_shares([100, 900], ["en-ru", "en-de"], Recipe(enru_weight=3.0))
    assert heavy == pytest.approx([0.25, 0.75])
    half = set_shares([100, 900], ["en-ru", "en-de"], Recipe(balance=0.5))
    assert half == pytest.approx([10 / 40, 30 / 40])


def test_batches_draw_each_set_its_share_and_keep_sources_together():
    small, big = _rows(4, 3), _rows(60, 1, "q")
    ex = make_examples([small, big], Recipe())
    lengths = [len(e.translation) for e in ex]
    batches = plan_batches(ex, lengths, 8, random.Random(0), shares=[0.5, 0.5])
    drawn = [i for b in batches for i in b]
    # 64 units in all: 32 for each set; the 4 sources of the small set come 8 times each
    assert sum(ex[i].dataset == 0 for i in drawn) == 32 * 3
    assert sum(ex[i].dataset == 1 for i in drawn) == 32
    assert len({i for i in drawn if ex[i].dataset == 1}) == 32
    for b in batches:
        groups = [ex[i].group for i in b if ex[i].dataset == 0]
        assert all(groups.count(g) % 3 == 0 for g in groups)  # a source's three stay together
    assert plan_batches(ex, lengths, 8, random.Random(0), shares=[0.5, 0.5]) == batches


def test_new_recipe_settings_are_checked_and_old_files_keep_their_meaning():
    for bad in (
        {"freeze_layers": -1},
        {"layer_decay": 0.0},
        {"frozen_start": 5.0},
        {"enru_weight": 0},
        {"balance": 1.5},
        {"head_hidden": -2},
        {"meaning_weight": -1.0},
    ):
        with pytest.raises(XLScoreError, match="recipe: "):
            Recipe(**bad)
    old = Recipe.from_dict({"epochs": 2.0})
    assert old.meaning_weight == 0.0
    assert (old.freeze_layers, old.head_hidden, old.da_regression, old.edit_tags) == (
        0,
        0,
        False,
        True,
    )
