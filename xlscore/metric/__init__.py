"""The paper's metric (Vetrov & Gorn): lexicon and word translation, anchor pairs, the orthogonal
Procrustes map, BERTScore over all words or anchors, idf weighting, the candidates' consensus,
word-level evidence and bert_score compatibility."""
