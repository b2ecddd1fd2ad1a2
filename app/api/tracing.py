"""Optional OpenTelemetry tracing of the API: TESSERA_OTEL_ENABLED=true and the otel extra."""

from __future__ import annotations

import os

from fastapi import FastAPI

MISSING = (
    "TESSERA_OTEL_ENABLED is true but OpenTelemetry is not installed: "
    "install the otel extra (pip install 'tessera[otel]') or set TESSERA_OTEL_ENABLED=false"
)


def install_tracing(app: FastAPI) -> None:
    """A span per request, exported over OTLP as the standard OTEL_* variables say."""
    # Imported here, not at module level: the service runs without the otel extra.
    try:
        from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
    except ImportError as exc:
        # Fail at start-up rather than run untraced: whoever turned tracing on expects traces.
        raise RuntimeError(MISSING) from exc
    exporter: SpanExporter
    # The exporters read OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, ... themselves.
    if os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf") == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter()
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
            OTLPSpanExporter as HTTPSpanExporter,
        )

        exporter = HTTPSpanExporter()
    service = os.environ.get("OTEL_SERVICE_NAME", "tessera-api")
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    FastAPIInstrumentor.instrument_app(
        app, tracer_provider=provider, excluded_urls="/metrics$,/livez$,/readyz$"
    )
