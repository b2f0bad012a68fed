"""The grammar ships inside the wheel: build it, install it into a fresh virtual
environment, and run a scenario with the installed `drama` command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module", autouse=True)
def no_pythonpath():
    """The installed package must come from the wheel, even when the tests run with
    PYTHONPATH pointing at a source tree (a worktree's `PYTHONPATH=$PWD`)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("PYTHONPATH", raising=False)
        yield


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtual environment with the project's wheel installed; its bin folder."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    # build from a copy, so that the build leaves nothing in the working tree
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis"))
    wheels = work / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                    "-w", str(wheels), str(source)], check=True, capture_output=True, text=True)
    (wheel,) = wheels.glob("drama-*.whl")
    env_dir = work / "env"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    # the dependencies (lark, ruamel.yaml, jinja2, click) come from the folders of the
    # interpreter running the tests, listed after the venv's own: the package itself
    # can only come from the wheel
    site = subprocess.run([str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    deps = [p for p in sys.path if p.endswith("-packages") and Path(p).is_dir()]
    (Path(site) / "test-dependencies.pth").write_text("\n".join(deps) + "\n")
    subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "--no-deps", "--force-reinstall",
                    "--no-index", str(wheel)], check=True, capture_output=True, text=True)
    return bin_dir


def test_wheel_contains_the_grammar(installed):
    out = subprocess.run([str(installed / "python"), "-c",
                          "import dsl, pathlib; print(pathlib.Path(dsl.__file__).parent)"],
                         check=True, capture_output=True, text=True, cwd="/")
    package = Path(out.stdout.strip())
    assert str(package).startswith(str(installed.parent)), package
    assert (package / "grammar" / "drama.lark").is_file()


def test_installed_drama_runs_the_emberfall_play_log(installed, tmp_path):
    scenario = tmp_path / "emberfall"
    shutil.copytree(ROOT / "scenarios" / "emberfall", scenario)
    done = subprocess.run([str(installed / "drama"), "run", str(scenario / "scenario.yaml"), "--format", "json"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["type"] == "start" and events[-1]["type"] == "final"
    assert events[-1]["parties"]["Kara"]["quintessence"] == 4
    assert [e["party"] for e in events if e["type"] == "defeat"] == ["Overlord"]


def test_installed_drama_reports_a_version(installed):
    done = subprocess.run([str(installed / "drama"), "--version"], capture_output=True, text=True)
    assert done.returncode == 0
    assert "drama" in done.stdout


def test_installed_drama_new_copies_an_example_without_the_checkout(installed, tmp_path):
    """The examples ship inside the package: `drama new --example` works far from the repository."""
    done = subprocess.run([str(installed / "drama"), "new", "pass", "--example", "ashen-pass"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    checked = subprocess.run([str(installed / "drama"), "check", "pass/with-embers.yaml"],
                             capture_output=True, text=True, cwd=tmp_path)
    assert checked.returncode == 0 and checked.stdout == "pass/with-embers.yaml: ok\n", checked.stderr
    starter = subprocess.run([str(installed / "drama"), "new", "mine"], capture_output=True, text=True, cwd=tmp_path)
    assert starter.returncode == 0 and (tmp_path / "mine" / "adventure.drama").is_file(), starter.stderr


def test_installed_package_registers_the_pygments_lexer(installed):
    """The `pygments.lexers` entry point: any tool using Pygments finds the lexer of .drama files."""
    done = subprocess.run([str(installed / "python"), "-c",
                           "from pygments.lexers import get_lexer_by_name, get_lexer_for_filename;"
                           "print(get_lexer_for_filename('bridge.drama').name, type(get_lexer_by_name('drama')).__module__)"],
                          capture_output=True, text=True, cwd="/")
    assert done.returncode == 0 and done.stdout == "drama dsl.syntax.lexer\n", done.stderr
