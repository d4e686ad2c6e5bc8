"""How a row's topic reads: its Vietnamese name, "—" when the classifier declined, "" when never asked.

The classifier gives no topic to text outside its domain (another language, too short, unsure:
``classify.domain``); the store then keeps no category but the confidence it was asked with. The
reason is not stored: it is worked out again from the text, by the same check, when someone looks.
"""

from __future__ import annotations

from itertools import chain

from ..classify.domain import out_of_domain
from ..core.text.text import phrases
from ..core.text.topics import display_name

NO_TOPIC = "—"


def declined(category, confidence, user_label=None) -> bool:
    """The classifier was asked and gave no topic (not: the article was never classified)."""
    return not category and not user_label and confidence is not None


def topic_text(category, confidence, user_label=None) -> str:
    """The table's Topic cell."""
    if user_label:
        return display_name(user_label)
    if declined(category, confidence):
        return NO_TOPIC
    if not category:
        return ""
    return display_name(category) if confidence is None else f"{display_name(category)} ({confidence:.0%})"


def no_topic_reason(text: str, confidence: float | None) -> str:
    """Why the classifier gave this text no topic, for people ("No topic: not Vietnamese")."""
    reason = out_of_domain(list(chain.from_iterable(phrases(text or ""))))
    if not reason:
        reason = f"low confidence ({confidence:.0%})" if confidence else "the classifier was unsure"
    return f"No topic: {reason}"
