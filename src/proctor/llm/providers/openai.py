"""OpenAI (and any OpenAI-compatible server: vLLM, Ollama, llama.cpp, gateways) through the
official SDK's chat completions, with log-probabilities when asked."""

from __future__ import annotations

import importlib
from typing import Any

from proctor.llm.client import PROVIDER_CLASSES, Completion, classify_sdk_error
from proctor.llm.refs import ModelRef


class OpenAIProvider:
    def __init__(self, ref: ModelRef, key: str, base_url: str | None, role: str) -> None:
        openai = importlib.import_module("openai")
        self.ref = ref
        self.client = openai.OpenAI(
            api_key=key,
            base_url=base_url,
            max_retries=0,
            timeout=120.0,
            default_headers={"X-Proctor-Role": role},
        )

    def complete(self, system: str, user: str, *, max_tokens: int, logprobs: bool) -> Completion:
        kwargs: dict[str, Any] = {"logprobs": True} if logprobs else {}
        try:
            response = self.client.chat.completions.create(
                model=self.ref.model,
                max_completion_tokens=max_tokens,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                **kwargs,
            )
        except Exception as exc:
            raise classify_sdk_error(exc) from exc
        choice = response.choices[0]
        values = None
        content = getattr(getattr(choice, "logprobs", None), "content", None)
        if content:
            values = [float(t.logprob) for t in content]
        usage = response.usage
        return Completion(
            choice.message.content or "",
            self.ref.model,
            usage.prompt_tokens if usage else 0,
            usage.completion_tokens if usage else 0,
            values,
        )


PROVIDER_CLASSES["openai"] = OpenAIProvider
