"""What a tenant is told when a job, a segment or a rule fails: a stable code and message.

A provider's own words (its error body, the URL of a local model server), an exception's text
(which may hold a piece of what a user said) and a stack are the operator's business: they go to
the worker's log, with the job's id. The job row a tenant reads says ``<code>: <message>``, the
same for every failure of a kind, so a client can act on the code.
"""

from __future__ import annotations

import logging

from app.llm.errors import FatalProviderError, SegmentOutputError, TransientProviderError
from app.services.offload import PoolRestarted, TimeLimitExceeded

log = logging.getLogger(__name__)

PROVIDER_REFUSED = "provider_refused"
PROVIDER_UNAVAILABLE = "provider_unavailable"
MODEL_OUTPUT_INVALID = "model_output_invalid"
TIME_LIMIT = "time_limit"
INTERNAL = "internal_error"
RULE_FAILED = "rule_failed"

MESSAGES = {
    PROVIDER_REFUSED: "the model provider refused the request (its key, model or request)",
    PROVIDER_UNAVAILABLE: "the model provider did not answer after every retry",
    MODEL_OUTPUT_INVALID: "the model's answer could not be used, even after a repair",
    TIME_LIMIT: "extraction ran past its time limit (TESSERA_CPU_SECONDS)",
    INTERNAL: "an unexpected error; the worker's log has the details",
    RULE_FAILED: "a rule of the extractor failed on this turn; its other rules still ran",
}


def code_of(error: BaseException) -> str:
    """The failure code of an exception."""
    if isinstance(error, FatalProviderError):
        return PROVIDER_REFUSED
    if isinstance(error, TransientProviderError):
        return PROVIDER_UNAVAILABLE
    if isinstance(error, SegmentOutputError):
        return MODEL_OUTPUT_INVALID
    if isinstance(error, TimeLimitExceeded | PoolRestarted):
        return TIME_LIMIT
    return INTERNAL


def described(error: BaseException, where: str) -> str:
    """``<code>: <message>`` for a tenant; the error itself goes to the log, with ``where``."""
    code = code_of(error)
    log.warning("%s failed (%s): %s: %s", where, code, type(error).__name__, error)
    status = getattr(error, "status", None)
    suffix = f" (HTTP {status})" if isinstance(status, int) else ""
    return f"{code}: {MESSAGES[code]}{suffix}"
