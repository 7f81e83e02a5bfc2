"""xlscore: reference-free scoring of English->Russian translations.

Two monolingual encoders embed the English source and the Russian translation, an orthogonal
map aligns the two spaces, and BERTScore is computed over all words or over anchor words
(words that a bilingual dictionary pairs across the two sides), after Vetrov & Gorn.
"""
__version__ = "0.1.0"

from . import packs
from .alignment import ProcrustesAligner
from .compat import TokenScore, bert_score_compatible
from .encoders import Encoder, WordVectors
from .lexicon import Lexicon
from .scorer import RankedTranslation, ScoreResult, XLScorer
from .errors import (AlignmentMismatchError, InputError, LexiconError, ModelError,
                     XLScoreError)

__all__ = [
    "__version__", "packs", "Encoder", "WordVectors", "XLScorer", "ScoreResult",
    "RankedTranslation", "ProcrustesAligner", "Lexicon", "XLScoreError", "InputError",
    "ModelError", "AlignmentMismatchError", "LexiconError", "bert_score_compatible", "TokenScore",
]
