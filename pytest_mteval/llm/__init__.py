"""Calling LLM endpoints: the httpx client, responses, prices and cost."""
