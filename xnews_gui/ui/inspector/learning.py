"""Save's first step: learn the picked rules again from the site, in a worker (see ``site_rules``)."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QMessageBox

from .. import workers
from .draft import label_for, short
from .site_rules import keep_picked, learn, merge, site_job


def _learn_job(draft, job):
    return draft, job, *learn(job)


class SiteLearning(QObject):
    """``start(then)`` learns the inspector's pending fields and calls ``then()`` afterwards (also when
    learning failed: the picked rules are kept and saved). ``notes`` are the last learning's notes."""

    learned = Signal(list)  # the notes shown to the person
    asking = Signal(object)  # the question (a QMessageBox) when learning would change values that were good

    def __init__(self, inspector):
        super().__init__(inspector)
        self.inspector = inspector
        self.notes: list[str] = []
        self._then = None
        self._job = None
        self.question: QMessageBox | None = None

    @property
    def busy(self) -> bool:
        return self._job is not None

    def start(self, then) -> bool:
        """Begin learning; False when nothing needs it (``then`` is not called then)."""
        ins = self.inspector
        if ins.draft is None or self.busy:
            return self.busy
        pages = {r.url: html for r in ins.preview.model.rows() if not r.error and (html := ins.cache.get(r.url))}
        job = site_job(ins.draft, pages)
        if job is None:
            return False
        self._job, self._then = job, then
        worker = workers.Worker(_learn_job, ins.draft, job)
        worker.signals.result.connect(self._learned)
        worker.signals.error.connect(self._failed)
        workers.start(worker, ins.pool)
        ins.say(f"Learning the rules from the site: the clicked page and {len(pages)} article pages of the "
                "preview\u2026")
        return True

    @Slot(object)
    def _learned(self, result) -> None:
        draft, job, profile, notes, changed = result
        ins = self.inspector
        if draft is not ins.draft or job is not self._job:
            self._job = self._then = None
            return  # another profile is open now
        if changed:  # a rule that worked would give other values: the person decides
            self._ask(draft, job, profile, notes, changed)
            return
        self._apply(draft, job, profile, notes)

    def _apply(self, draft, job, profile, notes) -> None:
        ins = self.inspector
        done = merge(draft, job, profile)
        self.notes = notes
        pages = len(job.siblings)
        text = "; ".join(notes) if notes else "the picked rules hold on the other pages"
        ins.say(f"Learned from {pages} other page{'s' if pages != 1 else ''} of the site: {text}.")
        self.learned.emit(notes)
        if done:
            ins.rules_replaced()
        self._finish()

    def _ask(self, draft, job, profile, notes, changed) -> None:
        lines = []
        for c in changed[:6]:
            before, after = where_they_differ(c.before, c.after)
            lines.append(f"\u2022 {label_for(c.field)} on {c.url.rsplit('/', 1)[-1] or c.url}:\n    before: {before}"
                         f"\n    after:  {after}")
        more = f"\n\u2026 and {len(changed) - 6} more" if len(changed) > 6 else ""
        box = QMessageBox(QMessageBox.Icon.Question, "Save profile",
                          f"The rules learned from the site give other values on {len(changed)} page"
                          f"{'s' if len(changed) != 1 else ''} where the rules gave good ones:\n\n"
                          + "\n".join(lines) + more + "\n\nUse the learned rules, or keep the rules as they are?",
                          parent=self.inspector)
        use = box.addButton("Use the learned rules", QMessageBox.ButtonRole.AcceptRole)
        box.addButton("Keep the rules as they are", QMessageBox.ButtonRole.RejectRole)
        box.finished.connect(lambda _code: self._answered(box, box.clickedButton() is use, draft, job, profile, notes))
        self.question = box
        self.asking.emit(box)
        box.open()  # not exec(): the app goes on while the question waits

    def _answered(self, box, use: bool, draft, job, profile, notes) -> None:
        self.question = None
        box.deleteLater()
        if draft is not self.inspector.draft or job is not self._job:
            self._job = self._then = None
            return
        if use:
            self._apply(draft, job, profile, notes)
            return
        keep_picked(draft, job)
        self.inspector.say("Kept the rules as they were: the values that worked stay as they were.")
        self._finish()

    @Slot(str)
    def _failed(self, message: str) -> None:
        ins = self.inspector
        job, draft = self._job, ins.draft
        if draft is not None and job is not None:
            draft.learned.update(job.generations)  # keep the picked rules: saving must not loop on an error
        ins.say(f"Could not learn the rules from the site ({message}); the picked rules are saved as they are.")
        self._finish()

    def _finish(self) -> None:
        then, self._job, self._then = self._then, None, None
        if then is not None and self.inspector.draft is not None:
            then()


def where_they_differ(before: str, after: str, width: int = 90) -> tuple[str, str]:
    """The two values as the question shows them: their word counts, and each from a few words before the
    first word where they part (two bodies that start alike read the same over their first 90 characters)."""
    a, b = before.split(), after.split()
    if not b:
        return f"({len(a)} word{'' if len(a) == 1 else 's'}) {short(before, width)}", "(empty)"
    same = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, same - 3)
    lead = "\u2026 " if start else ""

    def shown(words: list[str]) -> str:
        rest = " ".join(words[start:])
        count = f"({len(words)} word{'' if len(words) == 1 else 's'}) "
        return count + (short(lead + rest, width) if rest else f"ends after word {len(words)}")

    return shown(a), shown(b)
