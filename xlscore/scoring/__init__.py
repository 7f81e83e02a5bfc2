"""Scoring: what turns a corpus into results. :mod:`~xlscore.scoring.scorer` (``XLScorer``, the
one entry) cuts the corpus into blocks (:mod:`~xlscore.scoring.blocks`: prepared, read by the
estimator's passes, finished), runs the rule checks once per pair
(:mod:`~xlscore.scoring.rule_checks`), blends each pair's parts into its score
(:mod:`~xlscore.scoring.blend`: the estimate, the checks, the consensus, the floor) and signs
the settings that acted (:mod:`xlscore.signature`, the record beside the results). Beside them,
the parts every way of scoring shares: the settings and presets (:mod:`.presets`), the prepared
corpus (:mod:`.corpus`), anchoring as the evidence needs it (:mod:`.anchoring`), each pair's
parts and evidence (:mod:`.pair_parts`, :mod:`.evidence`), the candidates' consensus
(:mod:`.consensus`) and the untrained multilingual similarity (:mod:`.similarity`)."""
