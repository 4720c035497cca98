"""Which decisions an LLM answered, and which: the model and the provider, and the span kind each decision gets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openinference.semconv.trace import OpenInferenceSpanKindValues

from ...navigators.answered import Answered
from .attributes import pair

__all__ = ["INPUT_ROLES", "LLM_PROVIDERS", "OUTPUT_ROLES", "PARAMETERS_LABEL", "PROVIDER_LABEL", "Llm", "llm_of",
           "span_kind"]

LLM_PROVIDERS = {"openai:": "openai", "ollama:": "ollama"}
"""Model prefixes of the navigators that call an LLM, and the provider each names when its answer does not say."""
PROVIDER_LABEL = "provider"
"""An LLM decision's transcript pair naming what really answered (``llama.cpp``, ``vllm``...): it wins over the
prefix, since ``openai:`` speaks to any server with the OpenAI API."""
PARAMETERS_LABEL = "parameters"
"""An LLM decision's transcript pair holding the invocation parameters sent, as one line of JSON."""
PERSON_PREFIXES = ("manual:",)
INPUT_ROLES = {"system": "system", "user": "user"}
OUTPUT_ROLES = {"answer": "assistant", "assistant": "assistant"}


@dataclass(frozen=True)
class Llm:
    """What an LLM decision talked to: the model's name and the provider."""

    model: str
    provider: str


def llm_of(model: str, transcript: Sequence[tuple[str, str]]) -> Llm | None:
    """The LLM behind a decision: a ``provider`` pair in its transcript, else the navigator's prefix; ``None`` when
    no LLM answered it."""
    provider = pair(transcript, PROVIDER_LABEL)
    prefix = next((p for p in LLM_PROVIDERS if model.startswith(p)), None)
    if prefix is not None:
        return Llm(model[len(prefix):], provider or LLM_PROVIDERS[prefix])
    if provider is not None:
        return Llm(model.partition(":")[2] or model, provider)
    return None


def span_kind(model: str, how: Answered, llm: Llm | None) -> OpenInferenceSpanKindValues:
    """``CHAIN`` for a decision no navigator made (forced, replayed, taken from a what-if, a person's), ``LLM`` for
    one an LLM answered, ``TOOL`` for the other navigators."""
    if how in (Answered.FORCED, Answered.REPLAYED, Answered.WHAT_IF) or model.startswith(PERSON_PREFIXES):
        return OpenInferenceSpanKindValues.CHAIN
    if llm is not None:
        return OpenInferenceSpanKindValues.LLM
    return OpenInferenceSpanKindValues.TOOL
