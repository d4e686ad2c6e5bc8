"""Induction, verification and repair: rules from clicks, checked on sibling pages, repaired when a site changes."""
