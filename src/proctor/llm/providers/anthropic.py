"""Anthropic (and Anthropic-compatible endpoints) through the official SDK."""

from __future__ import annotations

import importlib
from typing import Any

from proctor.llm.client import (
    PROVIDER_CLASSES,
    REQUEST_TIMEOUT_SEC,
    Completion,
    RenewedClient,
    cut_before_text,
    token_count,
    unexpected_response,
    within,
)
from proctor.llm.failures import provider_error
from proctor.llm.refs import ModelRef


class AnthropicProvider(RenewedClient):
    def __init__(self, ref: ModelRef, key: str, base_url: str | None, role: str) -> None:
        anthropic = importlib.import_module("anthropic")
        self.ref = ref

        self._connect(anthropic, anthropic.Anthropic, key, base_url, role)

    def complete(
        self,
        system: str,
        user: str,
        *,
        max_tokens: int,
        logprobs: bool,
        timeout: float = REQUEST_TIMEOUT_SEC,
    ) -> Completion:
        """One request, over within ``timeout`` seconds in all (see :func:`within`)."""
        client = self.client

        def ask() -> Any:
            try:
                return client.messages.create(
                    model=self.ref.model,
                    max_tokens=max_tokens,
                    system=system,
                    messages=[{"role": "user", "content": user}],
                    timeout=timeout,
                )
            except Exception as exc:
                raise provider_error(exc, self.ref.model) from exc

        message = within(timeout, ask, lambda: self.abandon(client))
        return self._completion(message, max_tokens)

    def check_key(self, timeout: float) -> None:
        """One authenticated request that costs nothing (the first page of the models list);
        a refused key raises a :class:`ProviderError` of kind ``auth``."""
        try:
            self.client.models.list(limit=1, timeout=timeout)
        except Exception as exc:
            raise provider_error(exc) from exc

    def check_model(self, model: str, timeout: float) -> None:
        """The models lookup of ``model`` (``GET /v1/models/{model}``, an alias too)."""
        try:
            self.client.models.retrieve(model, timeout=timeout)
        except Exception as exc:
            raise provider_error(exc) from exc

    def model_ids(self, timeout: float) -> list[str]:
        """The ids of the models list's first page (of up to 1,000)."""
        try:
            page = self.client.models.list(limit=1000, timeout=timeout)
        except Exception as exc:
            raise provider_error(exc) from exc
        ids = [getattr(m, "id", None) for m in getattr(page, "data", None) or []]
        return [i for i in ids if isinstance(i, str)]

    def _completion(self, message: Any, max_tokens: int) -> Completion:
        """The reply as a :class:`Completion`; a reply of another shape (an HTML page, ``{}``)
        is a :class:`ProviderError`, never an AttributeError from deep inside."""
        blocks = getattr(message, "content", None)
        if not isinstance(blocks, list):
            raise unexpected_response(self.ref, "no content blocks", message)
        texts = [getattr(b, "text", None) or "" for b in blocks]
        if not all(isinstance(t, str) for t in texts):
            raise unexpected_response(self.ref, "a content block's text is not a string", message)
        usage = getattr(message, "usage", None)
        if not "".join(texts).strip() and getattr(message, "stop_reason", None) == "max_tokens":
            raise cut_before_text(self.ref, max_tokens, usage, ("input_tokens", "output_tokens"))
        return Completion(
            "".join(texts),
            self.ref.model,
            token_count(getattr(usage, "input_tokens", 0)),
            token_count(getattr(usage, "output_tokens", 0)),
            None,
            cache_read_tokens=token_count(getattr(usage, "cache_read_input_tokens", 0)),
            cache_write_tokens=token_count(getattr(usage, "cache_creation_input_tokens", 0)),
        )


PROVIDER_CLASSES["anthropic"] = AnthropicProvider
