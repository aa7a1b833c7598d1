"""The wheel `make wheel` builds, installed with pip into a fresh venv (no
twainmq 0.2.3 there, nothing from this checkout on the path), runs the
example of docs/USING.md. scripts/python-test.sh gives the wheel's path."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WHEEL = os.environ.get("TWAINMQ_WHEEL")


def documented_example():
    """The Python block under docs/USING.md's "Python programs" heading."""
    text = (ROOT / "docs" / "USING.md").read_text()
    section = text.split("## Python programs", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.mark.skipif(not WHEEL, reason="needs TWAINMQ_WHEEL (make python-test sets it)")
def test_a_fresh_venv_installs_the_wheel_and_runs_the_documented_example(tmp_path):
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    py = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index", WHEEL], check=True)
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    got = subprocess.run([str(py), "-c", documented_example()], cwd=work, env=env, capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    assert "Hello!" in got.stdout, got.stdout
    where = subprocess.run([str(py), "-c", "import twainmq_rs, sys; print(twainmq_rs.__file__); import twainmq"], cwd=work, env=env, capture_output=True, text=True)
    assert str(venv) in where.stdout, "imported from the fresh venv"
    assert "No module named 'twainmq'" in where.stderr, "0.2.3 is not needed"
