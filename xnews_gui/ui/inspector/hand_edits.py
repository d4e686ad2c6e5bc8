"""The inspector's Rules table edited by hand (a mixin of ``Inspector``): a selector, kind or take typed into
a row, or a rule deleted (right-click > Delete rule, or the Delete key on its row)."""

from __future__ import annotations

from PySide6.QtCore import Slot

from ...core.profile.rules import Rule, RuleError
from .draft import label_for


class HandEdits:
    @Slot(str, object)
    def _rule_edited(self, key: str, rule: Rule) -> None:
        if not self.draft:
            return
        try:
            if key.startswith("remove:"):
                self.draft.set_remove(int(key.split(":")[1]), rule)
            else:
                self.draft.set_rule(key, rule)
        except RuleError as exc:
            self.panel.show_error(str(exc))
            return
        self._say(f"{label_for(key)} edited by hand: {rule.selector}")
        self._changed()

    @Slot(str)
    def _rule_deleted(self, key: str) -> None:
        if not self.draft or self.draft.rule_for(key) is None:
            return
        self.draft.delete(key)
        self._say(f"Deleted the {label_for(key)} rule" + ("" if key.startswith("remove:") else
                                                           " and its clicks (pick it again to make a new one)."))
        self._changed()
