"""Every command the README and the commands' --help show runs as written.

Each README ``sh`` block runs line by line in one shell, in a scratch folder that holds a copy
of ``examples/`` (so ``line.json`` written by one line is read by the next), with the installed
``fci`` on the PATH.  The quick start (install, then the tests themselves) is what CI runs.
Each ``python`` block runs on its own.  A command fails the test by exiting non-zero.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from fci_solver.cli import cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, re.S)


SH = [b for b in blocks("sh") if "pip install" not in b]
PY = blocks("python")


def help_examples() -> list[tuple[str, str]]:
    out = []

    def walk(cmd, path):
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                walk(sub, path + [name])
            return
        doc = cmd.help or ""
        if "Examples:" in doc:
            for line in doc.split("Examples:", 1)[1].splitlines():
                if line.strip().startswith("fci "):
                    out.append((" ".join(path), line.strip()))

    walk(cli, ["fci"])
    return out


@pytest.fixture
def scratch(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    return tmp_path, env


def run_shell(script: str, cwd, env):
    r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, f"{script}\nexit {r.returncode}\n{r.stderr[-2000:]}"
    return r


def test_the_readme_has_its_blocks():
    assert len(SH) >= 7 and len(PY) >= 2
    assert "shared/" not in README and "spec section" not in README


@pytest.mark.parametrize("block", SH, ids=[b.splitlines()[0][:60] for b in SH])
def test_every_readme_command_runs_as_written(block, scratch):
    cwd, env = scratch
    run_shell(block, cwd, env)


@pytest.mark.parametrize("block", PY, ids=[f"python-{i}" for i in range(len(PY))])
def test_every_readme_python_snippet_runs_on_its_own(block, scratch):
    cwd, env = scratch
    r = subprocess.run([sys.executable, "-c", block], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]


EXAMPLES = help_examples()


def test_every_command_has_examples():
    def leaves(cmd, path):
        if isinstance(cmd, click.Group):
            return [x for name, sub in cmd.commands.items() for x in leaves(sub, path + [name])]
        return [" ".join(path)]

    assert set(leaves(cli, ["fci"])) == {c for c, _ in EXAMPLES}


@pytest.mark.parametrize("command, line", EXAMPLES, ids=[line[:60] for _, line in EXAMPLES])
def test_every_help_example_runs(command, line, scratch):
    cwd, env = scratch
    run_shell(line, cwd, env)


def test_no_description_is_cut_off_in_the_command_list():
    from click.testing import CliRunner

    out = CliRunner().invoke(cli, ["--help"]).output
    for group in (None, "aye", "fattest", "foodfighters"):
        text = out if group is None else CliRunner().invoke(cli, [group, "--help"]).output
        listing = text.split("Commands:", 1)[1]
        assert "..." not in listing, listing
