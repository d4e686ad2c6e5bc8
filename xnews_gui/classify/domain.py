"""Is a text something the Vietnamese topic model can label at all?

The model has only ever seen Vietnamese news: given English or a two-line stub it
still names a topic, often with high confidence. Before trusting it we ask two
cheap questions of the normalised syllables the model reads anyway:

* enough words?  (``MIN_WORDS``) - else "too short";
* Vietnamese?    the share of words written with a letter only Vietnamese uses
  (ă đ ơ ư, or a tone mark such as ạ ả ế ữ), less the share of words with a letter
  Vietnamese never uses (ð ö ř ç, Cyrillic, CJK) (``MIN_SHARE``). The letters that
  French or Spanish share (é à ô) count for neither.
"""

from __future__ import annotations

from ..core.text.language import VIETNAMESE_SHARE, vietnamese_share
from ..core.text.text import NUMBER_TOKEN

MIN_WORDS = 20
MIN_SHARE = VIETNAMESE_SHARE


def out_of_domain(syllables: list[str]) -> str:
    """'' when the model may label this text, else the reason it should not.

    ``syllables`` are ``core.text.phrases`` words: lower case, NFC, numbers as "0".
    """
    count = len(syllables) - syllables.count(NUMBER_TOKEN)
    if count < MIN_WORDS:
        return f"too short ({count} words)"
    if vietnamese_share(syllables) < MIN_SHARE:
        return "not Vietnamese"
    return ""
