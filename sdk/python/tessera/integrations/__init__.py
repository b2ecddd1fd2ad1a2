"""Tessera inside agent frameworks: LangGraph, the OpenAI Agents SDK (optional extras)."""
