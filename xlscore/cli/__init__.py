"""The ``xlscore`` command line: a thin layer over the library (which never imports it)."""
