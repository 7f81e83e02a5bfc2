"""Text as every part of xlscore sees it: normalising, cutting into words with character
offsets (:mod:`.words`, the one place text is cut into words), and Russian morphology with one
cache of analyses (:mod:`.morph`)."""
