"""The arithmetic a model can compute in (``--dtype``), named without importing torch, so
that the command line's parser and ``import xlscore`` stay light;
:mod:`xlscore.encoders.arithmetic` says what each name does."""

DTYPES = ("auto", "fp32", "bf16", "fp16", "int8")
