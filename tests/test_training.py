"""The training pieces: targets, batches, the loss, the recipe, corruptions."""
import random

import numpy as np
import pytest
import torch

from xlscore import XLScoreError
from xlscore.corruptions import KINDS, corrupt
from xlscore.judgments import Judgment
from xlscore.training import (Recipe, batch_loss, make_examples, normal_scores,
                              plan_batches)


def test_normal_scores_keep_order_and_ties_on_one_scale():
    z = normal_scores([0, -5, 0, -1, -25])
    assert z[0] == z[2] and z[0] > z[3] > z[1] > z[4]
    assert z[3] == pytest.approx(0.0)      # the median
    # a monotone change of scale gives the same targets
    assert np.allclose(normal_scores([100, 20, 100, 80, -400]), z)
    assert normal_scores([]).size == 0


def _rows(n_src, per, prefix="s"):
    return [Judgment(f"{prefix}:d{i % 3}:{i}", f"sys{k}", f"source {i}", f"перевод {i} {k}",
                     float(-k - i % 2)) for i in range(n_src) for k in range(per)]


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
    rows = [Judgment(f"q:0:{i}", "mt", "The cat sat on the mat today.",
                     f"Кошка {i} сидела на коврике сегодня утром.", 0.0) for i in range(20)]
    ex = make_examples([rows], Recipe(synthetic=0.5, seed=3), corrupt)
    syn = [e for e in ex if e.parent >= 0]
    assert 3 <= len(syn) <= 17
    for e in syn:
        parent = ex[e.parent]
        assert e.weight == 0.0 and e.group == -1 and e.translation != parent.translation
        assert e.source == parent.source


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
    target = torch.tensor([1.0, 0.0, -1.0, 0.5])
    weight = torch.tensor([1.0, 1.0, 1.0, 0.0])
    group = torch.tensor([0, 0, 0, -1])
    parent = torch.tensor([-1, -1, -1, 0])
    right = torch.tensor([3.0, 0.0, -3.0, -2.0])
    wrong = torch.tensor([-3.0, 0.0, 3.0, 5.0])
    assert batch_loss(right, target, weight, group, parent, 1.0, 1.0) < \
        batch_loss(wrong, target, weight, group, parent, 1.0, 1.0)
    # without the ranking terms only the squared error of weighted rows counts
    exact = torch.tensor([1.0, 0.0, -1.0, 99.0])
    assert batch_loss(exact, target, weight, group, parent, 0.0, 0.0).item() == pytest.approx(0)
    # pairwise term: softplus(-(p_i - p_j)) over the 3 ordered pairs of group 0
    flat = torch.zeros(4)
    want = (2 / 3) + np.log(2)
    assert batch_loss(flat, target, weight, group, parent, 1.0, 0.0).item() == pytest.approx(want)


def test_recipe_refuses_nonsense():
    with pytest.raises(XLScoreError, match="recipe: epochs must be positive"):
        Recipe(epochs=0)
    with pytest.raises(XLScoreError, match="delta_bits must be 8 or 16"):
        Recipe(delta_bits=4)
    with pytest.raises(XLScoreError, match="unknown setting 'speed'"):
        Recipe.from_dict({"speed": 1})


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_each_corruption_changes_the_text_or_declines(kind):
    src = "The museum will not open on Monday because of the storm, 25 officials said."
    text = "Музей не откроется в понедельник из-за шторма, заявили 25 чиновников."
    pool = ["Президент подписал новый закон о налогах вчера вечером."]
    rng = random.Random(0)
    outs = {kind(src, text, rng, pool) for _ in range(5)}
    assert all(o is None or o != text for o in outs)
    assert any(o is not None for o in outs)


@pytest.mark.parametrize("kind", KINDS[:1] + KINDS[2:3] + KINDS[5:], ids=lambda k: k.__name__)
def test_corruptions_that_need_material_decline_without_it(kind):
    assert kind("Yes.", "Да.", random.Random(0), []) is None


def test_the_loop_ends_when_epochs_differ_in_length(tmp_path):
    """Packing makes epochs differ by a batch or two; the loop must still stop at its step
    count, and resume at the right batch."""
    from xlscore.training import train_loop

    class Tiny(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.head = torch.nn.Linear(3, 1)

        def forward(self, x):
            return self.head(x).squeeze(-1)

    seen = []

    def batches(epoch):
        return [[epoch, k] for k in range(5 - epoch % 2)]       # 5, 4, 5, 4 ... batches

    def collate(b):
        seen.append(tuple(b))
        x = torch.full((2, 3), float(b[1]))
        return (x,), torch.ones(2), torch.ones(2), torch.tensor([0, 0]), torch.tensor([-1, -1])

    model = Tiny()
    log = train_loop(model, batches, collate, [], Recipe(epochs=3, warmup=0.0), head=model.head,
                     device=torch.device("cpu"), checkpoint=tmp_path / "c", checkpoint_every=4)
    assert log.steps == 15 and len(seen) == 15
    assert seen[:10] == [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (1, 0), (1, 1), (1, 2), (1, 3),
                         (2, 0)]
    assert len(log.epoch_loss) == 4
