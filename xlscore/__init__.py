"""xlscore: reference-free scoring of English->Russian translations.

Two monolingual encoders embed the English source and the Russian translation, an orthogonal
map aligns the two spaces, and BERTScore is computed over all words or over anchor words
(words that a bilingual dictionary pairs across the two sides), after Vetrov & Gorn.
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
from xlscore.scorer import RankedTranslation, ScoreResult, XLScorer

__all__ = [
    "AlignmentMismatchError",
    "Encoder",
    "InputError",
    "Lexicon",
    "LexiconError",
    "ModelError",
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
]
