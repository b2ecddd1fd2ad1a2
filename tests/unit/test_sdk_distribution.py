"""The light client distribution (sdk/python) is what an agent's project installs: no server."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_client_wheel_holds_only_the_two_client_packages(tmp_path: Path) -> None:
    # Built from a copy: a build leaves build/ and *.egg-info beside the sources.
    source = tmp_path / "src"
    leftovers = shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    shutil.copytree(ROOT / "sdk" / "python", source, ignore=leftovers)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(tmp_path),
            str(source),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    (wheel,) = tmp_path.glob("tessera_client-*.whl")
    with zipfile.ZipFile(wheel) as built:
        names = built.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = Parser().parsestr(built.read(metadata).decode())
    tops = {name.split("/")[0] for name in names if not name.endswith(".dist-info/")}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"tessera", "tessera_client"}
    assert "tessera/client.py" in names and "tessera_client/client.py" in names
    assert "tessera/py.typed" in names and "tessera_client/py.typed" in names
    requires = meta.get_all("Requires-Dist") or []
    always = sorted(re.split(r"[<>=!~;\[ ]", r)[0] for r in requires if "extra ==" not in r)
    assert always == ["attrs", "httpx"]  # nothing of the server, no app/ beside the agent's
    assert sorted(meta.get_all("Provides-Extra") or []) == ["agents", "langgraph"]
