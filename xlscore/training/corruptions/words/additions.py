"""Words the ``addition`` kind (:mod:`xlscore.training.corruptions.structure`) inserts
where the source has nothing: adjectives before a noun (inflected to agree with it by
pymorphy3) and adverbs before a verb (indeclinable, inserted as written).
"""

from __future__ import annotations

ADDED_ADJECTIVES: list[str] = [
    "новый",
    "крупный",
    "важный",
    "местный",
    "главный",
    "бывший",
    "серьёзный",
    "небольшой",
    "известный",
    "официальный",
    "международный",
    "частный",
    "государственный",
    "последний",
    "значительный",
    "региональный",
    "иностранный",
    "опытный",
    "срочный",
    "дополнительный",
    "старый",
    "секретный",
    "спорный",
]

ADDED_ADVERBS: list[str] = [
    "уже",
    "снова",
    "почти",
    "также",
    "впервые",
    "неожиданно",
    "официально",
    "полностью",
    "частично",
    "значительно",
    "лишь",
    "вновь",
    "якобы",
    "дважды",
    "окончательно",
    "временно",
    "добровольно",
    "срочно",
    "публично",
    "тайно",
]
