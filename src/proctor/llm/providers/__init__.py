"""Model providers. Adding one is one module here that registers its class in
``PROVIDER_CLASSES`` (and its name in ``proctor.llm.refs.PROVIDERS``)."""

from proctor.llm.providers import anthropic, openai

__all__ = ["anthropic", "openai"]
