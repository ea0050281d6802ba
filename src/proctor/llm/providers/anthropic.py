"""Anthropic (and Anthropic-compatible endpoints) through the official SDK."""

from __future__ import annotations

import importlib

from proctor.llm.client import PROVIDER_CLASSES, Completion, classify_sdk_error
from proctor.llm.refs import ModelRef


class AnthropicProvider:
    def __init__(self, ref: ModelRef, key: str, base_url: str | None, role: str) -> None:
        anthropic = importlib.import_module("anthropic")
        self.ref = ref
        self.client = anthropic.Anthropic(
            api_key=key,
            base_url=base_url,
            max_retries=0,
            timeout=120.0,
            default_headers={"X-Proctor-Role": role},
        )

    def complete(self, system: str, user: str, *, max_tokens: int, logprobs: bool) -> Completion:
        try:
            message = self.client.messages.create(
                model=self.ref.model,
                max_tokens=max_tokens,
                system=system,
                messages=[{"role": "user", "content": user}],
            )
        except Exception as exc:
            raise classify_sdk_error(exc) from exc
        text = "".join(getattr(b, "text", "") for b in message.content)
        usage = message.usage
        return Completion(text, self.ref.model, usage.input_tokens, usage.output_tokens, None)


PROVIDER_CLASSES["anthropic"] = AnthropicProvider
