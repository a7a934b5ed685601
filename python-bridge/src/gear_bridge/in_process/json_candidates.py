"""The texts the hosts' parsers try as JSON, in their order, as the service finds them
(adapters/judge-output/json-candidates.ts): the official GEAR parser's candidates and the scored
parser's variants of them."""

from __future__ import annotations

from .json_reading import JS_SPACE, skip_space

__all__ = ["json_candidates", "scored_candidates", "fenced_blocks", "first_balanced_braces", "first_balanced_object", "without_outer_fence",
           "without_cut_tail", "with_missing_closers"]


def json_candidates(text: str) -> list[str]:
    """extractJsonCandidates: the stripped text, every fence body, the first balanced braces;
    deduplicated, non-empty, in that order."""
    stripped = text.strip()
    candidates = [stripped, *fenced_blocks(stripped)]
    balanced = first_balanced_braces(stripped)
    if balanced is not None:
        candidates.append(balanced.strip())
    return [c for c in dict.fromkeys(candidates) if c]


def scored_candidates(text: str) -> list[str]:
    """jsonCandidateVariants: json_candidates, then the first "{" to the last "}", then the text from
    the first "{" without a value its end may have cut, with the closers a cut tail left out."""
    cleaned = text.strip()
    candidates = json_candidates(cleaned)
    first = cleaned.find("{")
    last = cleaned.rfind("}")
    if first >= 0:
        if last > first:
            candidates.append(cleaned[first:last + 1].strip())
        candidates.append(with_missing_closers(without_cut_tail(cleaned[first:])).strip())
    return [c for c in dict.fromkeys(candidates) if c]


def fenced_blocks(text: str) -> list[str]:
    """re.findall(r"```(?:json)?\\s*(.*?)\\s*```", text, DOTALL | IGNORECASE), each stripped: after an
    unclosed fence no later fence can close either."""
    blocks: list[str] = []
    at = 0
    while True:
        open_at = text.find("```", at)
        if open_at < 0:
            return blocks
        start = open_at + 3
        if text[start:start + 4].lower() == "json" and text[start:start + 4].isascii():
            start += 4
        start = skip_space(text, start)
        close = text.find("```", start)
        if close < 0:
            return blocks
        blocks.append(text[start:close].strip())
        at = close + 3


def first_balanced_braces(text: str) -> str | None:
    """The first ``{...}`` whose braces balance, every brace counted (inside strings too)."""
    first = text.find("{")
    if first < 0:
        return None
    depth = 0
    for at in range(first, len(text)):
        ch = text[at]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[first:at + 1]
    return None


def first_balanced_object(text: str) -> str | None:
    """firstBalancedObject: the first ``{...}`` whose braces balance outside JSON strings, or None
    (gear's own reading for formats without a host parser: RaR-Explicit)."""
    first = text.find("{")
    if first < 0:
        return None
    depth = 0
    in_string = False
    at = first
    while at < len(text):
        ch = text[at]
        if in_string:
            if ch == "\\":
                at += 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[first:at + 1]
        at += 1
    return None


def without_outer_fence(text: str, json_optional: bool) -> str:
    """stripOuterFence: a leading ```json (RuscaRL's parse_json_to_dict) or, where
    ``json_optional``, a bare ``` too (the official GEAR one), and a trailing ```, with the
    whitespace inside them."""
    if text.startswith("```json"):
        text = text[7:].lstrip()
    elif json_optional and text.startswith("```"):
        text = text[3:].lstrip()
    return text[:-3].rstrip() if text.endswith("```") else text


_NUMBER_TAIL = frozenset("0123456789.eE+-")


def without_cut_tail(text: str) -> str:
    """dropCutTail: the stripped text without a final value its end may have cut (a number, or a
    string left open), with the key it belongs to and the comma before it."""
    s = text.strip()
    end = _open_string_start(s)
    if end < 0:
        if not s or s[-1] not in _NUMBER_TAIL or s.endswith(("true", "false", "null")):
            return s
        end = len(s)
        while end > 0 and s[end - 1] in _NUMBER_TAIL:
            end -= 1
    cut = s[:end].rstrip(JS_SPACE)
    if cut.endswith(":"):
        # The key goes too: the object gets no entry for a value it did not receive.
        cut = cut[:-1].rstrip(JS_SPACE)
        if cut.endswith('"'):
            key_start = cut.rfind('"', 0, len(cut) - 1)
            if key_start >= 0:
                cut = cut[:key_start].rstrip(JS_SPACE)
    return cut[:-1] if cut.endswith(",") else cut


def _open_string_start(text: str) -> int:
    """Where the JSON string still open at the end of ``text`` starts, or -1."""
    start = -1
    at = 0
    while at < len(text):
        ch = text[at]
        if start >= 0:
            if ch == "\\":
                at += 1
            elif ch == '"':
                start = -1
        elif ch == '"':
            start = at
        at += 1
    return start


def with_missing_closers(text: str) -> str:
    """appendMissingJsonClosers (the official ``_append_missing_json_closers``): the stripped text with
    an open string closed, then every "[" and "{" still open, innermost first (a closer that does
    not match the innermost opener is ignored)."""
    s = text.strip()
    stack: list[str] = []
    in_string = False
    escape = False
    for ch in s:
        if escape:
            escape = False
        elif ch == "\\":
            escape = True
        elif ch == '"':
            in_string = not in_string
        elif in_string:
            continue
        elif ch == "{":
            stack.append("}")
        elif ch == "[":
            stack.append("]")
        elif (ch == "}" or ch == "]") and stack and stack[-1] == ch:
            stack.pop()
    return s + ('"' if in_string else "") + "".join(reversed(stack))
