"""Encoders that return word vectors: sub-word pieces merged into words, models loaded from the hub
or from offline packs, the arithmetic they compute in (their ``dtype``), and BERTScore's greedy
matching of two texts' vectors (:mod:`.bertscore`)."""
