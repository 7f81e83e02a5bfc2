"""xlscore: reference-free scoring of English->Russian translations.

``xlscore.score(sources, translations)`` scores each pair in one call; :class:`XLScorer`
keeps the models for many. The score is a quality estimator trained on human judgments; the
method the project started from (Vetrov & Gorn: two monolingual encoders, an orthogonal map,
BERTScore over anchor words) is :class:`~xlscore.metric.paper.PaperScorer`, whose columns
the results report beside it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from xlscore._version import __version__
from xlscore.errors import (
    AlignmentMismatchError,
    InputError,
    LexiconError,
    ModelError,
    XLScoreError,
)

#: the public names that need torch or the models, and the module each is loaded from on first
#: use: ``import xlscore`` (and ``xlscore --help``) stays light
_LAZY = {
    "packs": "xlscore.encoders.packs",
    "Encoder": "xlscore.encoders.encoder",
    "WordVectors": "xlscore.encoders.encoder",
    "QualityEstimator": "xlscore.estimator.model",
    "ProcrustesAligner": "xlscore.metric.alignment",
    "TokenScore": "xlscore.metric.compat",
    "bert_score_compatible": "xlscore.metric.compat",
    "Lexicon": "xlscore.metric.lexicon",
    "PaperScorer": "xlscore.metric.paper",
    "PaperSettings": "xlscore.metric.settings",
    "RankedTranslation": "xlscore.scoring.scorer",
    "ScoreResult": "xlscore.scoring.scorer",
    "XLScorer": "xlscore.scoring.scorer",
    "score": "xlscore.scoring.scorer",
}

if TYPE_CHECKING:
    from xlscore.encoders import packs
    from xlscore.encoders.encoder import Encoder, WordVectors
    from xlscore.estimator.model import QualityEstimator
    from xlscore.metric.alignment import ProcrustesAligner
    from xlscore.metric.compat import TokenScore, bert_score_compatible
    from xlscore.metric.lexicon import Lexicon
    from xlscore.metric.paper import PaperScorer
    from xlscore.metric.settings import PaperSettings
    from xlscore.scoring.scorer import RankedTranslation, ScoreResult, XLScorer, score


def __getattr__(name: str) -> Any:
    """A public name of :data:`_LAZY`, imported on first use."""
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'xlscore' has no attribute {name!r}")
    module = importlib.import_module(where)
    value = module if name == "packs" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = [
    "AlignmentMismatchError",
    "Encoder",
    "InputError",
    "Lexicon",
    "LexiconError",
    "ModelError",
    "PaperScorer",
    "PaperSettings",
    "ProcrustesAligner",
    "QualityEstimator",
    "RankedTranslation",
    "ScoreResult",
    "TokenScore",
    "WordVectors",
    "XLScoreError",
    "XLScorer",
    "__version__",
    "bert_score_compatible",
    "packs",
    "score",
]
