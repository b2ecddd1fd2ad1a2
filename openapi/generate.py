"""Generate the Python client package (sdk/python/tessera_client) from the committed spec.

Run by `make openapi` after it writes the spec (openapi/openapi.json). The client is generated
into a temporary folder and only its package is then moved into place, so a failed run leaves the
committed client as it was. The distribution around it (sdk/python: pyproject.toml, README.md and
the idiomatic `tessera` package) is written by hand and never touched here.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SPEC = HERE / "openapi.json"
CONFIG = HERE / "client-config.yaml"
OUTPUT = HERE.parent / "sdk" / "python" / "tessera_client"
# The generator needs a project layout to write; only its package is kept.
META = "pdm"
# Left behind in the client folder by an editable install or by importing it; never generated.
IGNORED = {"__pycache__", ".pdm-build", ".ruff_cache"}


def client_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec as the generator can read it: no cross-field ``anyOf`` beside ``properties``."""
    # The server enforces those rules (at least one of several fields) and the spec declares
    # them; the generator would drop the whole model over one, so the client does without.
    # A reply served as text or JSON by a query parameter: the client reads it as text, as it
    # always has (the generator would parse both as the JSON model).
    for path in spec.get("paths", {}).values():
        for operation in path.values():
            for reply in operation.get("responses", {}).values():
                content = reply.get("content", {})
                if "text/plain" in content:
                    content.pop("application/json", None)
    schemas = spec.get("components", {}).get("schemas", {})
    for schema in schemas.values():
        if "properties" in schema and "anyOf" in schema:
            del schema["anyOf"]
    return spec


def generate(spec: Path, output: Path, *, verbose: bool = False) -> None:
    """Generate the client for ``spec``; its package replaces ``output``."""
    # The post hooks call `ruff`: the one installed beside this Python, not whatever is on PATH.
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    with tempfile.TemporaryDirectory(prefix="tessera-client-") as tmp:
        target = Path(tmp) / "client"
        readable = Path(tmp) / "openapi.json"
        readable.write_text(json.dumps(client_spec(json.loads(spec.read_text()))))
        command = [
            sys.executable,
            "-m",
            "openapi_python_client",
            "generate",
            "--path",
            str(readable),
            "--config",
            str(CONFIG),
            "--meta",
            META,
            "--output-path",
            str(target),
        ]
        run = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if verbose:
            sys.stderr.write(run.stdout + run.stderr)
        if run.returncode != 0 or not (target / "tessera_client").is_dir():
            if not verbose:
                sys.stderr.write(run.stdout + run.stderr)
            raise SystemExit(f"openapi-python-client failed (exit {run.returncode})")
        # Warnings mean parts of the spec (some error responses, today) have no typed model.
        warnings = [line for line in run.stderr.splitlines() if line.startswith("WARNING")]
        if warnings:
            print(
                f"openapi-python-client: {len(warnings)} warnings (--verbose shows them), "
                f"first: {warnings[0]}",
                file=sys.stderr,
            )
        if output.exists():
            shutil.rmtree(output)
        output.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(target / "tessera_client", output)


def files(root: Path) -> dict[str, bytes]:
    """Every generated file under ``root`` by relative path, without run-time leftovers."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not IGNORED.intersection(path.relative_to(root).parts)
    }


def main(argv: list[str] | None = None) -> int:
    """Command line: generate into sdk/python/tessera_client, or ``--output`` elsewhere."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=SPEC)
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--verbose", action="store_true", help="show the generator's output")
    args = parser.parse_args(argv)
    generate(args.spec, args.output, verbose=args.verbose)
    print(f"client: {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
