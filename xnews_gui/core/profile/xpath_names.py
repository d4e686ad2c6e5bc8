"""The names a rule's XPath may use (XPath 1.0's functions, no variables) and the cost it may have: libxml2
cannot be stopped once it evaluates, so a predicate that reads the whole page for every element (a page of
40,000 elements took 36 s on one rule) is refused when the rule is read."""

from __future__ import annotations

import re

# XPath 1.0's function library, which is all a rule's XPath may call: libxml2 compiles any other
# name (and any $variable) and fails only when a page makes it evaluate them.
_XPATH_FUNCTIONS = frozenset(
    "last position count id local-name namespace-uri name string concat starts-with contains substring-before "
    "substring-after substring string-length normalize-space translate boolean not true false lang number sum "
    "floor ceiling round".split())
_NODE_TESTS = frozenset({"node", "text", "comment", "processing-instruction"})
_OPERATORS = frozenset({"and", "or", "div", "mod"})  # before a parenthesis: "a and (b or c)", no call
_XPATH_LITERAL = re.compile(r"\"[^\"]*\"|'[^']*'")
_XPATH_CALL = re.compile(r"(?<![\w.:-])([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)\s*\(")
_XPATH_VARIABLE = re.compile(r"\$\s*([A-Za-z_][\w.:-]*)")


def check_xpath_names(selector: str) -> None:
    """Refuse an XPath that calls a function XPath 1.0 does not define or reads a variable."""
    code = _XPATH_LITERAL.sub('""', selector)
    variable = _XPATH_VARIABLE.search(code)
    if variable:
        raise ValueError(f"invalid XPath {selector!r}: variables such as ${variable[1]} are not allowed")
    for name in _XPATH_CALL.findall(code):
        if name not in _XPATH_FUNCTIONS and name not in _NODE_TESTS and name not in _OPERATORS:
            raise ValueError(f"invalid XPath {selector!r}: unknown function {name}() "
                             f"(XPath 1.0's functions only, such as contains() or normalize-space())")


# inside a predicate: a path from the document's root, or the whole-document axes
_ROOT_PATH = re.compile(r"(?:^|[\[(,=<>!|+\s-])\s*/")  # (not after "*": "*/img" is a relative path)
_WHOLE_AXIS = re.compile(r"\b(?:preceding|following)::")


def check_xpath_cost(selector: str) -> None:
    """Refuse an XPath whose predicates read the whole page again for each element they test."""
    code = _XPATH_LITERAL.sub('""', selector)
    depth, start = 0, 0
    for i, char in enumerate(code):
        if char == "[":
            depth += 1
            if depth == 1:
                start = i + 1
        elif char == "]" and depth:
            depth -= 1
            if depth == 0:
                predicate = code[start:i]
                if _ROOT_PATH.search(predicate) or _WHOLE_AXIS.search(predicate):
                    raise ValueError(f"invalid XPath {selector!r}: a condition [{predicate.strip()[:60]}] that "
                                     "reads the whole page for each element tested (a path from the root, or "
                                     "preceding::/following::) could take minutes on a large page; use "
                                     "preceding-sibling::/following-sibling:: or a relative path")


def xpath_literal(value: str) -> str:
    """``value`` as an XPath 1.0 string literal (one with both kinds of quote: a concat())."""
    if "'" not in value:
        return f"'{value}'"
    if '"' not in value:
        return f'"{value}"'
    return "concat('" + value.replace("'", "',\"'\",'") + "')"
