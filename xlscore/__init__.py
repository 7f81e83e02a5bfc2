"""xlscore: reference-free scoring of English->Russian translations.

``xlscore.score(sources, translations)`` scores each pair in one call; :class:`XLScorer`
keeps the models for many. The score is a quality estimator trained on human judgments; the
method the project started from (Vetrov & Gorn: two monolingual encoders, an orthogonal map,
BERTScore over anchor words) is :class:`~xlscore.paper.paper_scorer.PaperScorer`, whose columns
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
    "ProcrustesAligner": "xlscore.paper.alignment",
    "TokenScore": "xlscore.paper.compat",
    "bert_score_compatible": "xlscore.paper.compat",
    "Lexicon": "xlscore.lexicon.dictionary",
    "PaperScorer": "xlscore.paper.paper_scorer",
    "PaperSettings": "xlscore.scoring.presets",
    "CorpusResult": "xlscore.scoring.corpus_result",
    "SystemScore": "xlscore.system_score",
    "RankedTranslation": "xlscore.scoring.scorer",
    "ScoreResult": "xlscore.scoring.scorer",
    "XLScorer": "xlscore.scoring.scorer",
    "score": "xlscore.scoring.scorer",
}

if TYPE_CHECKING:
    from xlscore.encoders import packs
    from xlscore.encoders.encoder import Encoder, WordVectors
    from xlscore.estimator.model import QualityEstimator
    from xlscore.lexicon.dictionary import Lexicon
    from xlscore.paper.alignment import ProcrustesAligner
    from xlscore.paper.compat import TokenScore, bert_score_compatible
    from xlscore.paper.paper_scorer import PaperScorer
    from xlscore.scoring.corpus_result import CorpusResult
    from xlscore.scoring.presets import PaperSettings
    from xlscore.scoring.scorer import RankedTranslation, ScoreResult, XLScorer, score
    from xlscore.system_score import SystemScore


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
    "CorpusResult",
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
    "SystemScore",
    "TokenScore",
    "WordVectors",
    "XLScoreError",
    "XLScorer",
    "__version__",
    "bert_score_compatible",
    "packs",
    "score",
]
