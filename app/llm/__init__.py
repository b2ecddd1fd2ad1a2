"""The one place that talks to LLM providers: extraction and key reconciliation.

Importing this package never imports an SDK; ``openai`` and ``anthropic`` are optional extras,
imported only when their provider is built.
"""
