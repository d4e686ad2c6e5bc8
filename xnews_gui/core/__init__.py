"""The Qt-free core: profiles, rules, selector induction, extraction, sanitising, URLs, text."""
