"""Text utilities: Vietnamese normalisation and tokens, encodings, URLs, dates, near-duplicates, topic labels."""
