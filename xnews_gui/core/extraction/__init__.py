"""Extraction: (html, url, profile) -> Article; page metadata, main text, completeness, links, sanitising."""
