"""The demo articles' text: Vietnamese news prose from sentence templates, deterministic per seed.

resources/demo_site/stories.json holds, per section, ~20 sentence templates and the values of the
section's slots (agencies, clubs, hospitals ...), plus openers, general sentences and closers. In a
template ``{slot}`` is the article's value (``{Slot}`` capitalised) and ``[a|b]`` picks one
alternative. People, places and the section's slots keep one value per article (a story names the
same club throughout); numbers are drawn afresh at each use. An article uses a third of its
section's templates with its own names and numbers, so two stories of a section share few word
shingles and the near-duplicate check (core/text/neardup.py) keeps them apart; a syndicated copy
(``wire_copy``) is the same text under another headline and byline: a true near-duplicate.
"""

from __future__ import annotations

import json
import random
import re

from ..paths import RESOURCES

_SLOT = re.compile(r"\{(\w+)\}")
_CHOICE = re.compile(r"\[([^\[\]]*)\]")
_ROMAN = ("I", "II", "III", "IV")


def load() -> dict:
    return json.loads((RESOURCES / "demo_site" / "stories.json").read_text(encoding="utf-8"))


def _thousands(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def _numbers(rng: random.Random) -> dict:
    r = rng.randint
    return {
        "n": lambda: str(r(2, 9)), "n2": lambda: str(r(11, 60)), "pct": lambda: str(r(3, 48)),
        "big": lambda: _thousands(r(12, 98) * 10 ** r(1, 2) + r(0, 9)),
        "dec": lambda: f"{r(1, 9)},{r(1, 9)}", "date": lambda: f"{r(1, 28)}/{r(1, 12)}",
        "day": lambda: f"ngày {r(1, 28)}/{r(1, 12)}",
        "month": lambda: f"tháng {r(1, 12)}", "mnum": lambda: str(r(1, 12)), "year": lambda: str(r(2027, 2030)),
        "quarter": lambda: _ROMAN[r(0, 3)], "age": lambda: str(r(6, 85)), "minute": lambda: str(r(3, 90)),
        "index": lambda: f"1.{r(180, 320)},{r(10, 99)}", "gold": lambda: f"{r(80, 95)},{r(1, 9)}",
        "fx": lambda: f"25.{r(100, 999)}", "clock": lambda: f"{r(6, 21)} giờ {r(1, 5)}0",
    }


def _name(rng: random.Random, people: dict) -> str:
    return " ".join(rng.choice(people[part]) for part in ("family", "middle", "given"))


def article_slots(rng: random.Random, stories: dict, slug: str, subject: str, action: str, place: str,
                  places: list[str]) -> dict:
    """The values one article's templates are filled with."""
    person = _name(rng, stories["people"])
    person2 = _name(rng, stories["people"])
    while person2 == person:
        person2 = _name(rng, stories["people"])
    slots = {"subject": subject, "action": action, "place": place, "person": person, "person2": person2,
             "place2": rng.choice([p for p in places if p != place]), "ward": rng.choice(stories["wards"])}
    for key, values in stories["categories"][slug]["slots"].items():
        slots[key] = rng.choice(values)
    slots.update(_numbers(rng))
    return slots


def fill(template: str, slots: dict, rng: random.Random) -> str:
    text = _CHOICE.sub(lambda m: rng.choice(m.group(1).split("|")), template)

    def value(m: re.Match) -> str:
        key = m.group(1)
        got = slots[key.lower()]
        got = got() if callable(got) else got
        return got[:1].upper() + got[1:] if key[:1].isupper() else got

    text = _SLOT.sub(value, text)
    return text[:1].upper() + text[1:]


def paragraphs(rng: random.Random, stories: dict, slug: str, slots: dict) -> tuple[str, ...]:
    """An opening paragraph (what happened, where), 4-5 paragraphs of detail, a closing line."""
    own = rng.sample(stories["categories"][slug]["sentences"], k=rng.randint(5, 6))
    general = rng.sample(stories["general"], k=rng.randint(1, 2))
    said = lambda templates: [fill(t, slots, rng) for t in templates]  # noqa: E731
    opening = f"{fill(rng.choice(stories['openers']), slots, rng)} {said(own[:1])[0]}"
    body = said(own[1:])
    for sentence in said(general):
        body.insert(rng.randint(1, len(body)), sentence)
    count = rng.randint(3, 4)
    cuts = sorted(rng.sample(range(1, len(body)), k=count - 1))
    middle = [" ".join(body[a:b]) for a, b in zip([0] + cuts, cuts + [len(body)])]
    return (opening, *middle, fill(rng.choice(stories["closers"]), slots, rng))


def summary(rng: random.Random, slots: dict) -> str:
    return fill("{Subject} [vừa|đã] {action} tại {place}, [một động thái được dư luận chú ý|"
                "theo thông tin phát đi {day}|sau nhiều tháng chuẩn bị].", slots, rng)


def wire_copy(original: tuple[str, ...], stories: dict, place: str, desk: int = 0) -> tuple[str, ...]:
    """The same story as a news agency's copy another desk ran: the agency's dateline in front, the
    closing line dropped, the agency named at the end (each desk in its own words)."""
    wire = stories["wire"]
    footer = wire["footers"][desk % len(wire["footers"])]
    return (wire["prefix"].replace("{place}", place) + original[0], *original[1:-1], footer)
