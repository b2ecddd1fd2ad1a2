"""The offline rule extractor, one module per pattern family, and what the families share."""

from app.domain.extraction.rules.extractor import FAMILIES, RuleExtractor, extract_rules

__all__ = ["FAMILIES", "RuleExtractor", "extract_rules"]
