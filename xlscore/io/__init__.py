"""Input and output: reading sources and translations, human judgments, writing results,
Parquet/JSONL pair files, the user cache."""
