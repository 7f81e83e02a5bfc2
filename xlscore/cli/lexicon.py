"""``xlscore lexicon build|lookup``: the dictionary cache built or checked, words looked up."""

from __future__ import annotations

import argparse

from xlscore.errors import InputError


def add_lexicon_parser(sub) -> None:
    """Register ``xlscore lexicon``."""
    p = sub.add_parser(
        "lexicon",
        help="build the dictionary cache or look words up",
        description="build: build (or check) the cached dictionary and print "
        "its size; lookup WORD ...: show how words translate.",
    )
    p.add_argument("action", choices=["build", "lookup"])
    p.add_argument("words", nargs="*", help="words to look up")
    p.add_argument("--lexicon", metavar="PATH", help="a ru<TAB>en word list instead")
    p.set_defaults(func=cmd_lexicon)


def cmd_lexicon(args: argparse.Namespace) -> int:
    from xlscore.lexicon.dictionary import Lexicon
    from xlscore.text.scripts import is_cyrillic

    lex = Lexicon.load(args.lexicon)
    if args.action == "build":
        keys = len(lex.table)
        print(
            f"{lex.describe()}: {len(lex)} Russian->English pairs, {keys} Russian keys, "
            f"{len(lex.headwords)} English headwords, {len(lex.en_forms)} English forms"
        )
        return 0
    if not args.words:
        raise InputError("lexicon lookup needs at least one word")
    for word in args.words:
        if is_cyrillic(word):
            found = sorted(lex.translate(word))
            print(
                f"{word}: keys {', '.join(lex.ru_keys(word))} -> "
                + (", ".join(found) if found else "(no translation)")
            )
        else:
            print(f"{word}: English keys {', '.join(sorted(lex.en_keys(word)))}")
    return 0
