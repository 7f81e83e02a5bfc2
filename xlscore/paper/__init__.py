"""The paper's method (Vetrov & Gorn) as a wing of its own: the orthogonal Procrustes map
(:mod:`.alignment`, fitted by :mod:`.mapping`), BERTScore over all words or anchors with idf
weighting and rescaling (:mod:`.weighting`), the paper's scorer (:mod:`.paper_scorer`) and
bert_score compatibility (:mod:`.compat`).
Only the scorer's factory (:class:`xlscore.XLScorer`) imports it, and only when a field or the
preset asks for the paper's columns: the default score never enters it."""
