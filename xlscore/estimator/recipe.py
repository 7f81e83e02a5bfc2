"""The training recipe: everything that decides a trained estimator besides its data
(:class:`Recipe`, stored in the estimator file), and the values that reproduce older files
(:data:`LEGACY`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from xlscore.errors import XLScoreError


@dataclass(frozen=True)
class Recipe:
    """Everything that decides a trained estimator besides its data (stored in the file)."""

    epochs: float = 2.0
    batch_size: int = 16
    lr: float = 3e-5
    head_lr: float = 1e-3
    weight_decay: float = 0.01
    warmup: float = 0.1
    rank_weight: float = 1.0
    synthetic: float = 0.3
    synthetic_weight: float = 1.0
    synthetic_margin: float = 0.5
    synthetic_kinds: str = ""
    meaning_weight: float = 0.0
    da_gap: float = 25.0
    word_weight: float = 1.0
    word_ok_weight: float = 1.0
    edit_word_weight: float = 1.0
    foreign_words_only: bool = False
    span_threshold: float = 0.5
    max_length: int = 256
    edit_tags: bool = True
    word_evidence: bool = False
    enru_weight: float = 1.0
    balance: float = 1.0
    freeze_layers: int = 0
    layer_decay: float = 1.0
    frozen_start: float = 0.0
    head_hidden: int = 0
    da_regression: bool = False
    seed: int = 0
    seeds: int = 1
    delta_rank: int = 64
    delta_bits: int = 8
    layers: int = 0
    targets: str = "normal"
    batching: str = "source"
    translation_prefix: str = ""
    heads_only: bool = False

    def __post_init__(self) -> None:
        checks = [
            (self.epochs > 0, "epochs must be positive"),
            (self.batch_size >= 2, "batch_size must be at least 2"),
            (self.lr > 0 and self.head_lr > 0, "learning rates must be positive"),
            (0 <= self.warmup < 1, "warmup is a share of the steps, in [0, 1)"),
            (
                min(self.rank_weight, self.synthetic_weight, self.word_weight, self.meaning_weight)
                >= 0,
                "loss weights must not be negative",
            ),
            (
                self.word_ok_weight > 0 and self.edit_word_weight >= 0,
                "word_ok_weight must be positive, edit_word_weight not negative",
            ),
            (0 < self.span_threshold < 1, "span_threshold is a probability in (0, 1)"),
            (
                self.synthetic_margin >= 0 and self.da_gap >= 0,
                "synthetic_margin and da_gap must not be negative",
            ),
            (
                not self.kinds() or set(self.kinds()) <= set(_corruption_kinds()),
                "synthetic_kinds: unknown kind (known: "
                + (", ".join(_corruption_kinds()) if self.kinds() else "")
                + ")",
            ),
            (0 <= self.synthetic <= 1, "synthetic is a share of the translations"),
            (self.max_length >= 16, "max_length must be at least 16"),
            (self.freeze_layers >= 0, "freeze_layers must not be negative"),
            (0 < self.layer_decay <= 1, "layer_decay is a factor per layer in (0, 1]"),
            (
                0 <= self.frozen_start < self.epochs,
                "frozen_start is a share of the first epoch, less than epochs",
            ),
            (self.enru_weight > 0, "enru_weight must be positive"),
            (0 <= self.balance <= 1, "balance is an exponent in [0, 1]"),
            (self.head_hidden >= 0, "head_hidden must not be negative (0: a linear head)"),
            (self.seeds >= 1, "seeds must be at least 1"),
            (self.delta_rank >= 0, "delta_rank must not be negative (0: no compression)"),
            (self.delta_bits in (8, 16), "delta_bits must be 8 or 16"),
            (self.layers >= 0, "layers must not be negative (0: every layer of the base)"),
            (self.targets in TARGETS, f"targets must be one of {', '.join(TARGETS)}"),
            (self.batching in BATCHING, f"batching must be one of {', '.join(BATCHING)}"),
            (len(self.translation_prefix) <= 32, "translation_prefix is a short marker"),
            (
                not self.heads_only or self.word_weight > 0 or self.meaning_weight > 0,
                "heads_only trains the word and meaning heads: give one of them a weight",
            ),
        ]
        for ok, message in checks:
            if not ok:
                raise XLScoreError(f"recipe: {message}")

    @classmethod
    def from_dict(cls, d: dict) -> Recipe:
        """A recipe from :func:`dataclasses.asdict` output (unknown keys are an error). A key
        added after a file was written takes the value that reproduces what the file was
        trained with (:data:`LEGACY`), not today's default; a setting since removed
        (:data:`RETIRED`) is accepted at the value that meant "not used"."""
        d = dict(d)
        for key, unused in RETIRED.items():
            if key in d and d.pop(key) != unused:
                raise XLScoreError(
                    f"recipe: {key} was a refused experiment's setting, which this xlscore no "
                    f"longer has; git tag research-2026-11 still reads it"
                )
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise XLScoreError(f"recipe: unknown setting {sorted(unknown)[0]!r}")
        return cls(**{**LEGACY, **d})

    def kinds(self) -> tuple[str, ...]:
        """The corruption kinds ``synthetic_kinds`` names (empty: every kind)."""
        return tuple(k.strip() for k in self.synthetic_kinds.split(",") if k.strip())


#: the settings added after the first recipe, at the values that reproduce files written
#: before them (no corruptions' margin or word head; every layer trained,
#: a linear head, direct assessment in the ranking loss only)
LEGACY = {
    "synthetic_margin": 1.0,
    "meaning_weight": 0.0,
    "synthetic_kinds": "",
    "da_gap": 25.0,
    "word_weight": 0.0,
    "word_ok_weight": 1.0,
    "edit_word_weight": 1.0,
    "foreign_words_only": False,
    "span_threshold": 0.5,
    "freeze_layers": 0,
    "head_hidden": 0,
    "da_regression": False,
    "edit_tags": True,
    "word_evidence": False,
    "enru_weight": 1.0,
    "balance": 1.0,
    "layers": 0,
    "targets": "normal",
    "batching": "source",
    "translation_prefix": "",
    "heads_only": False,
}

#: settings of refused experiments, gone from the recipe, at the value that meant "not used"
#: (files written before their removal store them)
RETIRED = {
    "layer_pick": "",
    "per_word": False,
    "meaning_loss": "margin",
    "features": False,
}


#: how human scores become training targets: ``normal``, the normal scores of each set
#: (:func:`normal_scores`: one scale whatever the set's own); ``z``, each set's scores
#: standardised (mean 0, standard deviation 1) and clipped to +-4 (the plain recipe of issue
#: 61); ``raw``, the scores as given (a teacher's scores that a student learns to reproduce on
#: the teacher's own scale, :mod:`xlscore.training.distill`)
TARGETS = ("normal", "z", "raw")

#: how an epoch's batches are made: ``source``, the translations of one source together (what
#: a ranking loss within a source needs; :func:`xlscore.training.data.plan_batches`);
#: ``length``, every translation on its own, shuffled and bucketed by length (the plain
#: recipe, which has no loss within a source)
BATCHING = ("source", "length")


#: the corruption kinds a recipe may name, in the order of
#: :data:`xlscore.training.corruptions.KINDS` (named here so that reading a recipe loads no
#: training code; tests/test_corruptions.py checks that the two agree)
CORRUPTION_KINDS = (
    "number",
    "spelled_number",
    "negation",
    "named_entity",
    "omission",
    "addition",
    "antonym",
    "untranslated",
    "role_swap",
    "date_unit",
    "substitution",
    "scramble",
)


def _corruption_kinds() -> tuple[str, ...]:
    return CORRUPTION_KINDS


#: the plain recipe of issue 61: the sentence head alone (a tanh layer of 384), squared error
#: on each set's z scores, every translation once an epoch in batches bucketed by length,
#: embeddings and the lowest 4 layers frozen, e5's "passage: " marker before the translation
PLAIN = Recipe(
    lr=3e-5,
    head_lr=3e-4,
    warmup=0.05,
    rank_weight=0.0,
    synthetic=0.0,
    synthetic_weight=0.0,
    word_weight=0.0,
    max_length=160,
    freeze_layers=4,
    head_hidden=384,
    da_regression=True,
    targets="z",
    batching="length",
    translation_prefix="passage: ",
)

#: the other heads of issue 61, learnt on the frozen states of a model of the plain recipe
#: (its encoder and sentence head unchanged): the word head on the raters' error spans, the
#: meaning head on corruptions ranked below the translations they were made from
PLAIN_HEADS = replace(
    PLAIN,
    heads_only=True,
    batching="source",
    head_lr=1e-3,
    synthetic=0.3,
    meaning_weight=1.5,
    word_weight=1.0,
    word_evidence=True,
    span_threshold=0.7,
)

#: named recipes to start from (``tools/estimator.py run --recipe``)
RECIPES = {"default": Recipe(), "plain": PLAIN, "plain-heads": PLAIN_HEADS}


@dataclass
class TrainingLog:
    """What a training run of a recipe did: steps, seconds, the mean loss of each epoch and
    the mean of each of its weighted terms (``epoch_parts``: how the loss was dosed)."""

    steps: int = 0
    seconds: float = 0.0
    epoch_loss: list[float] = field(default_factory=list)
    epoch_parts: list[dict[str, float]] = field(default_factory=list)
