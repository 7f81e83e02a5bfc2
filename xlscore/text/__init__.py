"""Text as every part of xlscore sees it: normalising, cutting into words with character
offsets (:mod:`.words`, the one place text is cut into words), and Russian morphology with one
cache of analyses (:mod:`.morph`); the scripts a word is written in (:mod:`.scripts`, and
which Cyrillic language a text is in, :mod:`.cyrillic_languages`); a corpus's pairs checked,
cut into chunks of segments and de-duplicated (:mod:`.pairs`)."""
