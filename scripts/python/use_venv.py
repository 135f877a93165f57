"""Runs the calling script again under the scripts' one Python environment (scripts/python/venv, with
what scripts/python/requirements.txt pins), unless it already runs there.

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
    import use_venv
    use_venv.ensure()
"""
import os
import pathlib
import subprocess
import sys

HELPER = pathlib.Path(__file__).resolve().parent / "venv"
MARKER = "WEBIMAGE_PYTHON_VENV_ACTIVE"


def ensure():
    """Re-executes the running script with the environment's Python; returns at once inside it."""
    if os.environ.get(MARKER) == "1":
        return
    python = subprocess.run([str(HELPER)], check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    os.environ[MARKER] = "1"
    os.execv(python, [python] + sys.argv)
