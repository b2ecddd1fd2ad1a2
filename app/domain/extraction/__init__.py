"""Extraction: the ``Extractor`` protocol, what it returns, and the offline rule extractor."""

from app.domain.extraction.extractor import Extraction, ExtractionInput, Extractor

__all__ = ["Extraction", "ExtractionInput", "Extractor"]
