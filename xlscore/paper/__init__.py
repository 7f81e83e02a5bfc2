"""The paper's method (Vetrov & Gorn) as a wing of its own: the orthogonal Procrustes map
(:mod:`.alignment`, fitted by :mod:`.mapping`), BERTScore over all words or anchors with idf
weighting and rescaling (:mod:`.weighting`), the paper's scorer (:mod:`.paper_scorer`) and
bert_score compatibility (:mod:`.compat`).
Only the scorer's factory (:class:`xlscore.XLScorer`) imports it: it builds the paper's scorer
when the fields ask for the paper's columns (which its score, without an estimator, always
adds) or a saved map signs the scores, else on first use of ``XLScorer.paper``. The default
score never enters it."""
