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
    "app/db": (
        "fastapi",
        "app.api",
        "app.services",
        "app.cli",
        "app.runtime",
        "app.main",
        "workers",
    ),
    # What is not the database's tables (Redis: the queue, request rates, model budgets; the job
    # signals, which listen on a Postgres connection of their own): no SQL, no routes.
    "app/adapters": (
        *("fastapi", "sqlalchemy", "app.api", "app.services", "app.cli"),
        *("app.runtime", "app.main", "app.mcp", "app.ui", "workers"),
    ),
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
    # The composition root (app.main) mounts MCP and the inspector beside the REST routes.
    "app/api": ("workers", "app.cli", "app.mcp", "app.ui", "app.main"),
    # Providers are adapters the services call; they know nothing of the service around them.
    "app/llm": (
        *("fastapi", "starlette", "sqlalchemy", "arq", "app.api", "app.db", "app.services"),
        *("app.cli", "app.mcp", "app.ui", "app.runtime", "app.main", "workers"),
    ),
    # The runtime is built from the layers below; who serves it is app.main's business.
    "app/runtime.py": ("fastapi", "app.api", "app.mcp", "app.ui", "app.cli", "app.main", "workers"),
    "app/cli": ("workers",),
    # Routes parse, call a service and shape the reply: no SQL, no rows, no sessions.
    "app/api/routes": ("app.db", "sqlalchemy", "asyncpg"),
    # The MCP endpoint and the inspector page are routes too: they talk to services only.
    "app/mcp": ("app.db", "sqlalchemy", "asyncpg", "workers", "app.cli"),
    "app/ui": ("app.db", "sqlalchemy", "asyncpg", "workers", "app.cli"),
    "workers": ("fastapi", "app.api", "app.cli"),
}


def _files(package: str) -> list[Path]:
    where = ROOT / package
    return [where] if where.suffix == ".py" else list(where.rglob("*.py"))


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
        for path in _files(package):
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


# The domain's rooms in the order data flows; a room may use the rooms before it (memory and
# context read what extraction made; integrity proves the history memory wrote), never one after
# it. The modules at the top of app/domain are what every room shares, and use no room.
ROOMS = ("ingest", "extraction", "memory", "integrity", "context")


def _room(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["app", "domain"] or len(parts) < 3:
        return None
    return parts[2] if parts[2] in ROOMS else "shared"


def test_the_domain_rooms_import_only_the_rooms_before_them():
    violations = []
    for path in (ROOT / "app" / "domain").rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        mine = _room(module)
        for name in _imports(path):
            theirs = _room(name)
            if theirs is None or theirs == mine:
                continue
            if theirs != "shared" and (mine == "shared" or ROOMS.index(theirs) > ROOMS.index(mine)):
                violations.append(f"{module} ({mine}) imports {name} ({theirs})")
    assert violations == []


def test_the_domain_has_its_rooms_and_each_package_says_what_it_exports():
    for room in ROOMS:
        init = ROOT / "app" / "domain" / room / "__init__.py"
        assert init.exists(), room
    for init in (ROOT / "app" / "domain").rglob("__init__.py"):
        tree = ast.parse(init.read_text())
        if not tree.body:
            continue  # an empty marker
        doc = ast.get_docstring(tree)
        assert doc and "\n" not in doc.strip(), f"{init}: a one-line docstring"
        names = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets}
        if any(isinstance(n, ast.ImportFrom) for n in tree.body):
            assert "__all__" in names, f"{init}: say what the package exports in __all__"


def _module_graph() -> dict[str, set[str]]:
    """Which of our modules each module imports (at any depth of its code)."""
    modules = {}
    for path in (ROOT / "app").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                if target in modules and target != module:
                    found.add(target)
                # Importing a module runs its packages' __init__ first.
                parts = target.split(".")
                for n in range(2, len(parts)):
                    parent = ".".join(parts[:n])
                    if (
                        parent in modules
                        and parent != module
                        and not module.startswith(parent + ".")
                    ):
                        found.add(parent)
        graph[module] = found
    return graph


def test_no_import_circle_in_app():
    graph = _module_graph()
    circles = []
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for other in sorted(graph[module]):
            if state.get(other) == 1:
                circles.append(" -> ".join([*path[path.index(other) :], other]))
            elif other not in state:
                visit(other)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert circles == []


OWN_PACKAGES = ("app", "workers", "bench", "tessera_client")


def test_no_module_imports_another_modules_private_name():
    """``from app.x import _y`` (or ``x._y`` on an imported module of ours) is a shared secret."""
    offenders = []
    for package in ("app", "workers", "bench"):
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text())
            ours: set[str] = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    if node.module.split(".")[0] not in OWN_PACKAGES:
                        continue
                    for alias in node.names:
                        if alias.name.startswith("_"):
                            offenders.append(f"{path.relative_to(ROOT)}: {alias.name}")
                        ours.add(alias.asname or alias.name)
                elif isinstance(node, ast.Import):
                    for alias in node.names:
                        if alias.name.split(".")[0] in OWN_PACKAGES:
                            ours.add((alias.asname or alias.name).split(".")[0])
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and isinstance(node.value, ast.Name)
                    and node.value.id in ours
                ):
                    offenders.append(f"{path.relative_to(ROOT)}: {node.value.id}.{node.attr}")
    assert offenders == []


MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 80
MAX_PARAMETERS = 6


def test_no_file_in_app_is_over_800_lines_and_no_function_over_80():
    long = []
    for path in (ROOT / "app").rglob("*.py"):
        source = path.read_text()
        if len(source.splitlines()) > MAX_FILE_LINES:
            long.append(f"{path.relative_to(ROOT)}: {len(source.splitlines())} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {size}")
    assert long == []


def test_use_cases_and_the_domain_take_at_most_six_parameters():
    """Past six, parameters travel as a small typed record (``NewVersion``, ``PageQuery``)."""
    many = []
    for package in ("app/services", "app/domain"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    args = node.args
                    names = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
                    count = len([n for n in names if n not in ("self", "cls")])
                    if count > MAX_PARAMETERS:
                        many.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {count}")
    assert many == []
