"""The bilingual lexicon: which Russian word translates which English word. Müller's
dictionary and the English word list (:mod:`.dictionary`, read from DICT files by
:mod:`.dictd`), the word translators over them (:mod:`.translators`; without a dictionary,
word alignment by matching vectors, :mod:`.wordalign`), and the anchor pairs of a source and
its translation (:mod:`.anchor_pairs`), which the default score's evidence and the paper's
method both read."""
