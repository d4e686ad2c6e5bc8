"""A model card as the app reads it. A model file, and the card beside it, come from outside: a key of
another type, a metrics table that does not add up or a floor table of another shape is left out (the
listing says less) instead of breaking `evaluate`, `models list` or the Classifier tab."""

from __future__ import annotations

from numbers import Real

_CARD_TYPES = {"metrics": dict, "metrics_original_split": dict, "training_set": dict, "comparison": dict,
               "confidence_floor": dict, "config": dict, "versions": dict, "store_changes": dict, "labels": list,
               "model": str, "command": str, "created": str, "features": int, "train_seconds": (int, float)}


def well_formed_card(card) -> dict:
    """``card`` without what the app could not read: keys of another type ({} for a non-dict), metrics that are
    no report, floor-table rows of another shape, a training set's counts that are no numbers, a comparison
    without its scores."""
    if not isinstance(card, dict):
        return {}
    out = {k: v for k, v in card.items()
           if not (k in _CARD_TYPES and (not isinstance(v, _CARD_TYPES[k]) or isinstance(v, bool)))}
    for key in ("metrics", "metrics_original_split"):
        if key in out and not _report(out[key]):
            del out[key]
    if "confidence_floor" in out:
        floor = dict(out["confidence_floor"])
        if "table" in floor:
            rows = floor["table"] if isinstance(floor["table"], list) else []
            floor["table"] = [r for r in rows if isinstance(r, dict) and _number(r.get("floor"))
                              and _number(r.get("coverage")) and (r.get("accuracy") is None or _number(r["accuracy"]))]
        out["confidence_floor"] = floor
    if "training_set" in out:
        out["training_set"] = {k: v for k, v in out["training_set"].items()
                               if not (k.endswith("_docs") and not (isinstance(v, int) and not isinstance(v, bool)))}
    if "comparison" in out and "new" in out["comparison"] and not _comparison(out["comparison"]):
        out["comparison"] = {"note": "not compared (the card's comparison cannot be read)"}
    return out


def _number(value) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def _scores(value) -> bool:
    return isinstance(value, dict) and _number(value.get("accuracy")) and _number(value.get("macro_f1"))


def _comparison(entry: dict) -> bool:
    return (isinstance(entry.get("documents"), int) and isinstance(entry.get("held_out"), str)
            and _scores(entry.get("new")) and (entry.get("in_use_scores") is None or _scores(entry["in_use_scores"]))
            and isinstance(entry.get("left_out", {}), dict))


def _report(value: dict) -> bool:
    from .metrics import Report

    try:
        report = Report.from_dict(value)
        report.format()
    except Exception:  # noqa: BLE001 - any shape that is not a report: left out
        return False
    return bool(report.labels) and all(isinstance(x, str) for x in report.labels) and \
        ("accuracy" not in value or _number(value["accuracy"]))
