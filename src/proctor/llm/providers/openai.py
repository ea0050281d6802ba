"""OpenAI (and any OpenAI-compatible server: vLLM, Ollama, llama.cpp, gateways) through the
official SDK's chat completions, with log-probabilities when asked."""

from __future__ import annotations

import importlib
import re
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


class OpenAIProvider(RenewedClient):
    def __init__(self, ref: ModelRef, key: str, base_url: str | None, role: str) -> None:
        openai = importlib.import_module("openai")
        self.ref = ref
        self.logprobs_refused = False
        """The model refused a request for log-probabilities (OpenAI's reasoning models, Gemini's
        compatible endpoint): later calls leave them out."""

        self._connect(openai, openai.OpenAI, key, base_url, role)

    def complete(
        self,
        system: str,
        user: str,
        *,
        max_tokens: int,
        logprobs: bool,
        timeout: float = REQUEST_TIMEOUT_SEC,
    ) -> Completion:
        """One request (two when the model refuses log-probabilities), over within ``timeout``
        seconds in all (see :func:`within`)."""
        client = self.client
        response = within(
            timeout,
            lambda: self._ask(client, system, user, max_tokens, logprobs, timeout),
            lambda: self.abandon(client),
        )
        return self._completion(response, max_tokens)

    def _ask(
        self, client: Any, system: str, user: str, max_tokens: int, logprobs: bool, timeout: float
    ) -> Any:
        ask = logprobs and not self.logprobs_refused
        try:
            return self._create(client, system, user, max_tokens, ask, timeout)
        except Exception as exc:
            if not (ask and refuses_logprobs(exc)):
                raise provider_error(exc, self.ref.model) from exc
        # Log-probabilities are optional (perplexityLevel is left out without them): a model
        # that will not give them is asked again without.
        self.logprobs_refused = True
        try:
            return self._create(client, system, user, max_tokens, False, timeout)
        except Exception as again:
            raise provider_error(again, self.ref.model) from again

    def check_key(self, timeout: float) -> None:
        """One authenticated request that costs nothing (the models list); a refused key
        raises a :class:`ProviderError` of kind ``auth``."""
        try:
            self.client.models.list(timeout=timeout)
        except Exception as exc:
            raise provider_error(exc) from exc

    def check_model(self, model: str, timeout: float) -> None:
        """The models lookup of ``model`` (``GET /models/{model}``)."""
        try:
            self.client.models.retrieve(model, timeout=timeout)
        except Exception as exc:
            raise provider_error(exc) from exc

    def model_ids(self, timeout: float) -> list[str]:
        """The ids of the models list."""
        try:
            page = self.client.models.list(timeout=timeout)
        except Exception as exc:
            raise provider_error(exc) from exc
        ids = [getattr(m, "id", None) for m in getattr(page, "data", None) or []]
        return [i for i in ids if isinstance(i, str)]

    def _create(
        self, client: Any, system: str, user: str, max_tokens: int, logprobs: bool, timeout: float
    ) -> Any:
        kwargs: dict[str, Any] = {"logprobs": True} if logprobs else {}
        return client.chat.completions.create(
            model=self.ref.model,
            max_completion_tokens=max_tokens,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            timeout=timeout,
            **kwargs,
        )

    def _completion(self, response: Any, max_tokens: int) -> Completion:
        """The reply as a :class:`Completion`; a reply of another shape (an HTML page, ``{}``,
        no choices) is a :class:`ProviderError`, never an AttributeError from deep inside."""
        choices = getattr(response, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise unexpected_response(self.ref, "no choices", response)
        message = getattr(choices[0], "message", None)
        text = getattr(message, "content", None)
        if message is None or not isinstance(text, str | None):
            raise unexpected_response(self.ref, "the first choice has no message text", response)
        text = without_thinking(text or "")
        usage = getattr(response, "usage", None)
        if not text.strip() and getattr(choices[0], "finish_reason", None) == "length":
            raise cut_before_text(
                self.ref, max_tokens, usage, ("prompt_tokens", "completion_tokens")
            )
        prompt = token_count(getattr(usage, "prompt_tokens", 0))
        # The prompt tokens count the cached ones too (billed at the cache-read price).
        details = getattr(usage, "prompt_tokens_details", None)
        cached = min(token_count(getattr(details, "cached_tokens", 0)), prompt)
        return Completion(
            text,
            self.ref.model,
            prompt - cached,
            token_count(getattr(usage, "completion_tokens", 0)),
            _logprobs(choices[0]),
            cache_read_tokens=cached,
        )


THINKING = re.compile(r"\A\s*<(think|thinking)>.*?(?:</\1>\s*|\Z)", re.DOTALL)


def without_thinking(text: str) -> str:
    """The reply without the reasoning a local reasoning model (served by vLLM, Ollama or
    llama.cpp without a reasoning parser) puts before it in ``<think>…</think>``: its braces
    and words would be read as the verdict or the answer. One never closed (cut at the token
    limit) leaves no text."""
    return THINKING.sub("", text, count=1)


def refuses_logprobs(exc: BaseException) -> bool:
    """Whether an SDK error is the model refusing log-probabilities: a 400, 403 or 422 whose
    message names them ("logprobs is not supported with this model", "You are not allowed to
    request logprobs from this model")."""
    status = getattr(exc, "status_code", None)
    said = f"{getattr(exc, 'body', '') or ''} {exc}".lower()
    return status in (400, 403, 422) and "logprob" in said


def _logprobs(choice: Any) -> list[float] | None:
    """The generated tokens' log-probabilities, or None when any is missing or not a number."""
    content = getattr(getattr(choice, "logprobs", None), "content", None)
    if not isinstance(content, list) or not content:
        return None
    values: list[float] = []
    for token in content:
        value = getattr(token, "logprob", None)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        values.append(float(value))
    return values


PROVIDER_CLASSES["openai"] = OpenAIProvider
