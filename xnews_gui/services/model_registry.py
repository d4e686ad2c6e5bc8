"""The topic models of a data folder: every trained model kept with its card, one of them in use.

    models/
      versions/1/topic.npz, topic.card.json     a trained model and its card (never overwritten)
      versions/2/...
      state.json                                {"active": "2", "floor": null, "labels_from": "1"}

The model shipped with XNews is always there as ``SHIPPED``. A newly trained model joins the
versions without being used: ``use(id)`` makes it (or any earlier one, or the shipped one) the
model crawls and re-classification read. ``state.json`` is written through a temporary file and a
rename, so a reader sees the old state or the new one. ``floor`` is the user's abstention floor
(None: each model's own); ``labels_from`` names the model the stored articles were last labelled
with as a whole (a re-classification), so the app can say when stored labels come from another.

A data folder of an older XNews holds its own model as ``models/topic.npz``: it becomes version 1,
in use as before. Qt-free.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..paths import BUNDLED_MODEL, models_dir
from ..classify.card_check import well_formed_card
from ..classify.model import ModelError, TopicClassifier, card_path

SHIPPED = "shipped"
MODEL_FILE = "topic.npz"
STATE_FILE = "state.json"
_STAGING = ".staging-"


class RegistryError(ValueError):
    """A request the registry refuses; the message says why (the CLI prints it, exit code 2)."""


@dataclass(frozen=True)
class ModelVersion:
    id: str  # "shipped", "1", "2", ...
    path: Path
    card: dict

    @property
    def name(self) -> str:
        return "the shipped model" if self.id == SHIPPED else f"model {self.id}"

    @property
    def title(self) -> str:
        return "Shipped model" if self.id == SHIPPED else f"Model {self.id}"

    @property
    def accuracy(self) -> float | None:
        value = (self.card.get("metrics") or {}).get("accuracy")
        return float(value) if isinstance(value, (int, float)) else None

    @property
    def created(self) -> str:
        return str(self.card.get("created") or "")


def read_card(model_path: Path) -> dict:
    """The card beside a model file (fast), else the one inside it (loads the model)."""
    side = card_path(model_path)
    if side.is_file():
        try:
            card = json.loads(side.read_text(encoding="utf-8"))
            if isinstance(card, dict):
                return well_formed_card(card)
        except (OSError, ValueError):
            pass
    return TopicClassifier.load(model_path).card


class Registry:
    def __init__(self, root: Path, shipped: Path = BUNDLED_MODEL):
        self.root = Path(root)
        self.dir = models_dir(self.root)
        self.versions_dir = self.dir / "versions"
        self.shipped = Path(shipped)
        self._adopt_legacy()

    # --- reading ------------------------------------------------------------------------
    def ids(self) -> list[str]:
        """The trained versions' ids, oldest first (the shipped model not included)."""
        if not self.versions_dir.is_dir():
            return []
        found = [p.name for p in self.versions_dir.iterdir()
                 if p.name.isdigit() and (p / MODEL_FILE).is_file()]
        return sorted(found, key=int)

    def path_of(self, version_id: str) -> Path:
        if version_id == SHIPPED:
            return self.shipped
        version_id = str(version_id).strip()
        path = self.versions_dir / version_id / MODEL_FILE
        if not version_id.isdigit() or not path.is_file():
            known = ", ".join([SHIPPED, *self.ids()])
            raise RegistryError(f"no model {version_id!r} (models: {known}); see `models list`")
        return path

    def get(self, version_id: str) -> ModelVersion:
        path = self.path_of(version_id)
        return ModelVersion(str(version_id), path, read_card(path))

    def versions(self) -> list[ModelVersion]:
        """The shipped model, then every trained one, oldest first; a version whose card cannot be
        read is listed with an empty card."""
        out = []
        for version_id in [SHIPPED, *self.ids()]:
            path = self.path_of(version_id)
            try:
                card = read_card(path)
            except Exception:  # noqa: BLE001 - a damaged file is listed (and can be removed), not fatal
                card = {}
            out.append(ModelVersion(version_id, path, card))
        return out

    def state(self) -> dict:
        try:
            state = json.loads((self.dir / STATE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            state = {}
        return state if isinstance(state, dict) else {}

    def active_id(self) -> str:
        """The model in use: the state's choice while its file exists, else the shipped model."""
        chosen = str(self.state().get("active") or SHIPPED)
        if chosen != SHIPPED and not (self.versions_dir / chosen / MODEL_FILE).is_file():
            return SHIPPED
        return chosen

    def active_path(self) -> Path:
        return self.path_of(self.active_id())

    def active(self) -> ModelVersion:
        return self.get(self.active_id())

    def floor(self) -> float | None:
        """The user's abstention floor for every model, or None (each model's own)."""
        value = self.state().get("floor")
        return float(value) if isinstance(value, (int, float)) and 0 <= value < 1 else None

    def labels_from(self) -> str:
        """The model the stored articles were last re-classified with (the shipped one before any)."""
        return str(self.state().get("labels_from") or SHIPPED)

    def load_active(self) -> TopicClassifier:
        """The model in use, with the user's floor when one is set."""
        model = TopicClassifier.load(self.active_path())
        floor = self.floor()
        if floor is not None:
            model.floor = floor
        return model

    # --- changing ---------------------------------------------------------------------------
    def use(self, version_id: str) -> ModelVersion:
        """Make a version (or the shipped model) the one in use."""
        version = self.get(str(version_id))
        try:  # a model that cannot be read is never made the one crawls use (they would label nothing)
            TopicClassifier.load(version.path)
        except ModelError as exc:
            raise RegistryError(f"model {version.id} cannot be used: {exc}") from None
        self._write_state(active=version.id)
        return version

    def set_floor(self, floor: float | None) -> None:
        if floor is not None and not 0 <= float(floor) < 1:
            raise RegistryError(f"a confidence floor lies in [0, 1) (got {floor})")
        self._write_state(floor=None if floor is None else round(float(floor), 4))

    def mark_reclassified(self, version_id: str) -> None:
        self._write_state(labels_from=str(version_id))

    def remove(self, version_id: str) -> None:
        """Delete a trained version; the shipped model and the one in use cannot be removed."""
        version_id = str(version_id).strip()
        if version_id == SHIPPED:
            raise RegistryError("the shipped model cannot be removed")
        self.path_of(version_id)  # exists?
        if version_id == self.active_id():
            raise RegistryError(f"model {version_id} is in use: make another one active first (`models use ...`)")
        shutil.rmtree(self.versions_dir / version_id)

    def add(self, model: TopicClassifier) -> ModelVersion:
        """Keep a new model as the next version (not in use). Written in a staging folder first and
        renamed into place: a version folder is always complete."""
        self.versions_dir.mkdir(parents=True, exist_ok=True)
        self.clean_staging()
        staging = self.versions_dir / f"{_STAGING}{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        try:
            model.save(staging / MODEL_FILE)
            # every numbered folder counts, a complete version or not (one left without its model file
            # would be taken again and again: the rename fails on a folder that is not empty)
            taken = [int(p.name) for p in self.versions_dir.iterdir() if p.name.isdigit()]
            number = max([0, *map(int, self.ids()), *taken]) + 1
            while True:
                version_id = str(number)
                try:
                    staging.rename(self.versions_dir / version_id)
                    break
                except OSError:  # another process took that number meanwhile
                    if not (self.versions_dir / version_id).exists():
                        raise
                    number += 1
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return self.get(version_id)

    def clean_staging(self) -> None:
        """Remove what a killed training left half-written (its process is gone)."""
        if not self.versions_dir.is_dir():
            return
        for path in self.versions_dir.glob(f"{_STAGING}*"):
            pid = path.name[len(_STAGING):]
            if pid.isdigit() and int(pid) != os.getpid() and _alive(int(pid)):
                continue
            shutil.rmtree(path, ignore_errors=True)

    def _write_state(self, **changes) -> None:
        state = {"active": self.active_id(), "floor": self.floor(), "labels_from": self.labels_from()}
        state.update(changes)
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.dir / f"{STATE_FILE}.{os.getpid()}.part"
        tmp.write_text(json.dumps(state, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, self.dir / STATE_FILE)

    def _adopt_legacy(self) -> None:
        """An older XNews's own model (models/topic.npz, in use then) becomes version 1, in use."""
        legacy = self.dir / MODEL_FILE
        if not legacy.is_file() or (self.dir / STATE_FILE).exists():
            return
        target = self.versions_dir / "1" if not self.ids() else None
        if target is None:
            return
        try:
            target.mkdir(parents=True)
            legacy.replace(target / MODEL_FILE)
            if card_path(legacy).is_file():
                card_path(legacy).replace(card_path(target / MODEL_FILE))
            self._write_state(active="1", labels_from="1")
        except OSError:
            pass  # read-only or raced by another process: the shipped model stays in use, nothing lost


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
