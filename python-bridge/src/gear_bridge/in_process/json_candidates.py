"""The texts the hosts' parsers try as JSON, in their order, as the service finds them
(adapters/judge-output/json-candidates.ts): the official GEAR parser's candidates and the scored
parser's variants of them."""

from __future__ import annotations

from .json_reading import skip_space

__all__ = ["json_candidates", "scored_candidates", "fenced_blocks", "first_balanced_braces", "first_balanced_object", "without_outer_fence"]


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
    """jsonCandidateVariants without its last candidate (the text from the first "{" with the
    closers a cut tail left out): json_candidates, then the first "{" to the last "}". A reader that
    finds no payload in these leaves the output to the service."""
    cleaned = text.strip()
    candidates = json_candidates(cleaned)
    first = cleaned.find("{")
    last = cleaned.rfind("}")
    if first >= 0 and last > first:
        candidates.append(cleaned[first:last + 1].strip())
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
