"""Structured output: the answer asked for as JSON constrained to the offer, in each server's own shape.

For one offer, :func:`choice_schema` is a JSON schema whose ``selected`` items are an ``enum`` of the ids
just offered (``uniqueItems``, and ``maxItems`` = the smaller of the number offered and the visits left)
and whose ``rationale`` is a string of at most :data:`RATIONALE_MAX_CHARS` characters. A server that turns
the schema into a grammar (llama.cpp, vLLM, Ollama) can then only write an answer that parses and names
offered ids; OpenAI's strict mode holds the model to the same enum.

With ``scores=on`` the schema also holds ``scores``: one ``{"id", "score"}`` item per offered id, the id from
the same ``enum`` and the score a whole number from 0 to :data:`SCORE_MAX` (:func:`scores_property`).

Each server takes it in its own shape (:func:`request_fields`):

- llama.cpp (``local:``): ``response_format`` ``{"type": "json_schema", "json_schema": {"name", "schema"}}``,
  the whole schema (its grammar engine, LLGuidance, enforces ``uniqueItems`` and ``maxLength`` too);
- vLLM (``vllm:``): the same with ``"strict": true``, the whole schema;
- OpenAI (``openai:``): ``"strict": true`` with the subset strict mode accepts: every property required,
  ``additionalProperties: false``, no ``uniqueItems`` and no ``maxLength`` (strict mode refuses keywords it
  does not support, so they are left out rather than risk an HTTP 400 per call);
- Ollama (``ollama:``): its ``/v1`` endpoint reads only ``json_schema.schema`` from ``response_format`` and
  hands it on as its native ``format`` (the schema alone, no ``name`` or ``strict``); its grammar does not
  enforce ``uniqueItems``, so that is left out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from core import NodeView

RATIONALE_MAX_CHARS: Final = 240
SCORE_MAX: Final = 100
"""A score is asked for as a whole number from 0 to this; the walk counts it divided by this (0 to 1)."""
_SCORE_TOKENS: Final = 10
"""Tokens of one score item beside its id: ``{"id":"…","score":85},``."""
SCHEMA_NAME: Final = "navigator_choice"
_BASE_TOKENS: Final = 48


def max_selected(candidates: Sequence[NodeView], remaining_visits: int) -> int:
    """How many ids an answer may hold: no more than were offered, nor than there are visits left."""
    return max(0, min(len({view.id for view in candidates}), remaining_visits))


def choice_schema(candidates: Sequence[NodeView], remaining_visits: int,
                  rationale_chars: int = RATIONALE_MAX_CHARS, max_items: int | None = None,
                  scores: bool = False) -> dict[str, Any]:
    """The schema of one answer to this offer (the whole of it; :func:`request_fields` trims it per server):
    ``selected`` first (at most ``max_items`` ids, when given), then a rationale of at most ``rationale_chars``
    characters (0: none asked for), then, with ``scores``, a score per offered id (:func:`scores_property`)."""
    ids = list(dict.fromkeys(view.id for view in candidates))
    most = max_selected(candidates, remaining_visits)
    most = most if max_items is None else min(most, max_items)
    properties: dict[str, Any] = {
        "selected": {"type": "array", "items": {"type": "string", "enum": ids}, "uniqueItems": True, "maxItems": most},
    }
    if rationale_chars:
        properties["rationale"] = {"type": "string", "maxLength": rationale_chars}
    if scores:
        properties["scores"] = scores_property(ids)
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def scores_property(ids: list[str]) -> dict[str, Any]:
    """``scores`` in the schema: one item per offered id (each id from the offer's ``enum``, at most once), with a
    whole-number score from 0 to :data:`SCORE_MAX`."""
    return {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"id": {"type": "string", "enum": ids},
                           "score": {"type": "integer", "minimum": 0, "maximum": SCORE_MAX}},
            "required": ["id", "score"],
            "additionalProperties": False,
        },
        "uniqueItems": True,
        "maxItems": len(ids),
    }


def default_max_tokens(candidates: Sequence[NodeView], remaining_visits: int,
                       rationale_chars: int = RATIONALE_MAX_CHARS, scores: bool = False) -> int:
    """Enough tokens for the longest ids an answer may give and the whole rationale (counted as one token per
    character, the worst case), and with ``scores`` a score item for every id offered, so that the limit never
    cuts a well-formed answer short."""
    ids = sorted((len(view.id) // 2 + 4 for view in candidates), reverse=True)
    scored = sum(size + _SCORE_TOKENS for size in ids) if scores else 0
    return _BASE_TOKENS + sum(ids[: max_selected(candidates, remaining_visits)]) + rationale_chars + scored


def _without(schema: Any, *keywords: str) -> Any:
    """``schema`` with ``keywords`` removed wherever they appear (a copy)."""
    if isinstance(schema, dict):
        return {key: _without(value, *keywords) for key, value in schema.items() if key not in keywords}
    if isinstance(schema, list):
        return [_without(item, *keywords) for item in schema]
    return schema


def compact_grammar(schema: dict[str, Any]) -> str:
    """``schema`` (a :func:`choice_schema`) as a llama.cpp GBNF grammar of the answer written with no whitespace,
    holding at least one id: ``{"selected":["refunds","invoices"],"rationale":"..."}``.

    It is ``grammar=compact`` in a ``local:`` model id. The JSON schema's own grammar lets a model put a newline
    and an indent before every id, and a small model does: an answer of 2 ids took 39 tokens where the compact
    one takes 18 to 27 (bench/prompts/README.md). The ids are the same enum, each at most once in a row's
    ``maxItems``; the rationale the same bounded string. At least one id, because a small model offered an empty
    list closes it at once: every walk would stop at its first offer (a walk still stops at a leaf, or when the
    visits run out)."""
    selected = schema["properties"]["selected"]
    ids = " | ".join(json.dumps(json.dumps(value, ensure_ascii=False)) for value in selected["items"]["enum"])
    most = int(selected["maxItems"])
    more = f' ("," id){{0,{most - 1}}}' if most > 1 else ""
    rationale = schema["properties"].get("rationale")
    said = "" if rationale is None else f' ",\\"rationale\\":\\"" char{{0,{rationale["maxLength"]}}} "\\""'
    rules = [f'root ::= "{{\\"selected\\":[" id{more} "]"{said} "}}"', f"id ::= {ids}"]
    if rationale is not None:
        rules.append('char ::= [^"\\\\\\x00-\\x1f] | "\\\\" ["\\\\/bfnrt]')
    return "\n".join(rules) + "\n"


def sent_schema(provider: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The schema as ``provider`` is sent it (what the transcript shows)."""
    if provider == "openai":
        trimmed: dict[str, Any] = _without(schema, "uniqueItems", "maxLength")
        return trimmed
    if provider == "ollama":
        trimmed = _without(schema, "uniqueItems")
        return trimmed
    return schema


def request_fields(provider: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The request body's fields that ask ``provider`` for output matching ``schema``."""
    shown = sent_schema(provider, schema)
    if provider == "ollama":
        return {"response_format": {"type": "json_schema", "json_schema": {"schema": shown}}}
    json_schema: dict[str, Any] = {"name": SCHEMA_NAME, "schema": shown}
    if provider in ("openai", "vllm"):
        json_schema["strict"] = True
    return {"response_format": {"type": "json_schema", "json_schema": json_schema}}


