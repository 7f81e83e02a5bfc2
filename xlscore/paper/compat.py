"""bert_score-compatible scoring: sub-word tokens, one encoder, no merging, no alignment, no idf.

For BERT-style models with WordPiece or SentencePiece tokenizers (the packs, BERT, RuBERT,
XLM-R) this reproduces what ``bert_score.score(candidates, references, model_type=<folder>,
num_layers=<layer>)`` computes (idf off, no rescaling); bert_score treats GPT-2/RoBERTa BPE
tokenizers differently (a prefix space), which is not reproduced, so that xlscore's numbers can be
checked against the reference implementation and compared with published BERTScore figures:

* each sentence is only stripped, then tokenised with the model's special tokens (no prompt
  prefix, no Unicode normalisation) and cut at the model's maximum length;
* every token, special tokens included, is a target of the greedy matching, but special tokens
  weigh 0 as matched tokens (bert_score sets the idf of ``[CLS]``/``[SEP]`` to 0);
* precision is over the candidate's tokens, recall over the reference's.

For a translation, the candidate is the translation and the reference is the source.
One difference is kept on purpose: a sentence with no token besides the special ones (an
empty line) counts its special tokens equally here, where bert_score divides by zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from xlscore.encoders.bertscore import score_pairs
from xlscore.encoders.encoder import Encoder
from xlscore.errors import InputError


@dataclass(frozen=True)
class TokenScore:
    """bert_score's precision, recall and F1 for one candidate/reference pair."""

    precision: float
    recall: float
    f1: float


def bert_score_compatible(
    candidates: Sequence[str],
    references: Sequence[str],
    encoder: Encoder,
    *,
    progress: bool = False,
) -> list[TokenScore]:
    """Score ``candidates`` against ``references`` as bert_score does with the same model
    folder and ``num_layers=encoder.layer`` (idf off): to 1e-6 with an encoder loaded with
    ``dtype="fp32"`` (bert_score computes in float32); with ``"auto"`` on a processor with
    bfloat16 units, to bfloat16 rounding. Scores do not depend on the order or batching of the
    inputs; each distinct sentence is embedded once."""
    if isinstance(candidates, str) or isinstance(references, str):
        raise TypeError("bert_score_compatible takes lists of sentences, not single strings")
    if len(candidates) != len(references):
        raise InputError(f"{len(candidates)} candidates but {len(references)} references")
    texts = list(dict.fromkeys([*candidates, *references]))
    where = {t: i for i, t in enumerate(texts)}
    embedded = encoder.embed_tokens(texts, progress=progress)
    special = set(encoder._head + encoder._tail)
    weights = [torch.tensor([0.0 if t in special else 1.0 for t in ids]) for ids, _ in embedded]
    c = [where[t] for t in candidates]
    r = [where[t] for t in references]
    p, rec, f = score_pairs(
        [embedded[i][1] for i in c],
        [embedded[i][1] for i in r],
        [weights[i] for i in c],
        [weights[i] for i in r],
    )
    return [TokenScore(float(x), float(y), float(z)) for x, y, z in zip(p, rec, f)]
