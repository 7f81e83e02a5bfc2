"""xlscore: reference-free scoring of English->Russian translations.

``xlscore.score(sources, translations)`` scores each pair in one call; :class:`XLScorer`
keeps the models for many. The score is a quality estimator trained on human judgments; the
method the project started from (Vetrov & Gorn: two monolingual encoders, an orthogonal map,
BERTScore over anchor words) is :class:`~xlscore.metric.paper.PaperScorer`, whose columns
the results report beside it.
"""

from xlscore._version import __version__
from xlscore.encoders import packs
from xlscore.encoders.encoder import Encoder, WordVectors
from xlscore.errors import (
    AlignmentMismatchError,
    InputError,
    LexiconError,
    ModelError,
    XLScoreError,
)
from xlscore.estimator.model import QualityEstimator
from xlscore.metric.alignment import ProcrustesAligner
from xlscore.metric.compat import TokenScore, bert_score_compatible
from xlscore.metric.lexicon import Lexicon
from xlscore.metric.paper import PaperScorer
from xlscore.metric.settings import PaperSettings
from xlscore.scorer import RankedTranslation, ScoreResult, XLScorer, score

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
