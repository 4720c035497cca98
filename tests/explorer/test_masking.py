"""The one secret masker (explorer.masking): every secret the explorer can be given is kept out of what it writes."""

from __future__ import annotations

import pytest

from explorer.masking import MASK, Secrets


def test_a_vllm_key_is_masked_as_an_openai_key_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """VLLM_API_KEY's value stayed raw in recorder traces and spans (issue 38, point 13)."""
    monkeypatch.setenv("VLLM_API_KEY", "vllm-secret-0123456789")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-0123456789")
    text = 'sent {"key": "vllm-secret-0123456789"} and sk-openai-0123456789'
    assert Secrets.from_environment().mask(text) == f'sent {{"key": "{MASK}"}} and {MASK}'


def test_the_credential_of_a_header_with_a_scheme_is_masked_alone_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """For ``authorization=Bearer%20TOKEN``, "Bearer TOKEN" was masked but TOKEN alone was not."""
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-team=observability,authorization=Bearer%20tok-abcdef123456")
    secrets = Secrets.from_environment()
    assert secrets.mask("Bearer tok-abcdef123456 / tok-abcdef123456 / Bearer%20tok-abcdef123456") == (
        f"{MASK} / {MASK} / {MASK}")
    assert secrets.mask("a Bearer scheme") == "a Bearer scheme"  # the scheme is no secret
