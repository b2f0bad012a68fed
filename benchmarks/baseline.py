"""The tree before the speed work of issue 28 (6fa1b91), checked out as a temporary git worktree, so that a benchmark measures before and after in one run.

    from baseline import base_tree, environment
    with base_tree() as before:
        subprocess.run([sys.executable, "-c", "import dsl"], env=environment(before))

`environment(tree)` sets `PYTHONPATH=tree`, so that `import dsl` (and
`python -m dsl`) is that tree's package, not the installed one.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE = "6fa1b91"          # "Placeholders: one place says a name is unknown", the code before issue 28


@contextmanager
def base_tree(commit: str = BASE):
    """A worktree of `commit` in a temporary folder, removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="drama-before-"))
    tree = folder / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), commit],
                   check=True, capture_output=True)
    try:
        yield tree
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


# imported by `site` at start-up, after the .pth files: an editable install of drama
# (pip install -e) adds a finder that would hand a tree the modules it lacks from the
# installed tree (6fa1b91 has no dsl/syntax/, say); without it, each tree is itself
_SITECUSTOMIZE = """\
import sys
sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in getattr(f, "__module__", "")
                    and "__editable__" not in type(f).__module__]
"""
_shim: list[str] = []


def _shim_folder() -> str:
    if not _shim:
        folder = tempfile.mkdtemp(prefix="drama-bench-site-")
        Path(folder, "sitecustomize.py").write_text(_SITECUSTOMIZE)
        atexit.register(shutil.rmtree, folder, True)
        _shim.append(folder)
    return _shim[0]


def environment(tree: Path) -> dict[str, str]:
    """The environment that makes `import dsl` the package of `tree`, and only of `tree`;
    bytecode is written and read as on a user's machine (a PYTHONDONTWRITEBYTECODE of the
    caller's would have every start compile every module again)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), _shim_folder()]), PYTHONHASHSEED="0")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def load_average() -> str:
    """The machine's load, as `uptime` shows it (the machine is shared: say how busy it was)."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} CPUs"
