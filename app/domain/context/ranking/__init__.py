"""Ranking the log's passages for a question: how the score is made is told in ``scorer``."""
