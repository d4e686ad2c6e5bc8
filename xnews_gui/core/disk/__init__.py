"""Files on disk: files named by users and profiles read safely, the raw page packs."""
