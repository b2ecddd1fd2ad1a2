"""The layer contract of DESIGN §1: imports point inward only."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# package -> prefixes it must never import
FORBIDDEN = {
    "app/domain": (
        "fastapi",
        "starlette",
        "sqlalchemy",
        "arq",
        "redis",
        "httpx",
        "asyncpg",
        "psycopg",
        "prometheus_client",
        "structlog",
        "opentelemetry",
        "app.api",
        "app.db",
        "app.services",
        "app.llm",
        "app.cli",
        "app.settings",
        "workers",
    ),
    "app/db": ("fastapi", "app.api", "app.services", "app.cli", "workers"),
    # Metrics are recorded by the API and the worker from what services return.
    "app/services": (
        "fastapi",
        "starlette",
        "prometheus_client",
        "prometheus_fastapi_instrumentator",
        "opentelemetry",
        "app.api",
        "app.cli",
        "workers",
    ),
    "app/api": ("workers", "app.cli"),
    # Routes parse, call a service and shape the reply: no SQL, no rows, no sessions.
    "app/api/routes": ("app.db", "sqlalchemy", "asyncpg"),
    # The MCP endpoint and the inspector page are routes too: they talk to services only.
    "app/mcp": ("app.db", "sqlalchemy", "asyncpg", "workers", "app.cli"),
    "app/ui": ("app.db", "sqlalchemy", "asyncpg", "workers", "app.cli"),
    "workers": ("fastapi", "app.api", "app.cli"),
}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_imports_point_inward():
    violations = []
    for package, forbidden in FORBIDDEN.items():
        for path in (ROOT / package).rglob("*.py"):
            for name in _imports(path):
                if any(name == f or name.startswith(f + ".") for f in forbidden):
                    violations.append(f"{path.relative_to(ROOT)} imports {name}")
    assert violations == []


def test_sql_lives_only_in_app_db():
    offenders = []
    for path in (ROOT / "app").rglob("*.py"):
        if path.is_relative_to(ROOT / "app" / "db"):
            continue
        if any(n.startswith("sqlalchemy") for n in _imports(path)):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


# Where requests are answered: the REST routes, the MCP tools, the inspector page.
ROUTE_PACKAGES = ("app/api/routes", "app/mcp", "app/ui")


def test_the_route_packages_exist():
    assert all(any((ROOT / package).rglob("*.py")) for package in ROUTE_PACKAGES)


def test_routes_reach_the_database_only_through_services():
    """No module that answers requests imports app.db, even inside a function."""
    offenders = []
    for path in (p for package in ROUTE_PACKAGES for p in (ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
                if node.module == "app":
                    names += [f"app.{a.name}" for a in node.names]
            offenders += [
                f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[:2] == ["app", "db"]
            ]
    assert offenders == []
