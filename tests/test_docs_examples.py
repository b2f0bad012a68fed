"""Docs that cannot drift: every console example of README.md and docs/*.md is
run, and its output compared with the page.

A page is read in order, in a fresh folder of its own (holding a copy of the
repository's `scenarios/` and `tests/`, so that paths such as
`scenarios/emberfall/scenario.yaml` work):

- a line that is only a file name in backticks and a colon (`` `scene.drama`: ``)
  followed by a fenced block writes that file, as the page shows it, before the
  examples after it run (a later block of the same name replaces it);
- each ```console block is one shell session: every line starting with `$ `
  is a command (`drama` is `python -m dsl` from this checkout), and the lines
  after it, up to the next `$ `, are what it prints (standard output and
  error, in the order printed);
- an HTML comment just before a block changes how it is treated
  (the convention of docs/architecture.md, "Examples in the docs"):
  `<!-- docs-test: skip -->` does not run it, `<!-- docs-test: output varies -->`
  runs it and checks only that no traceback is printed, and
  `<!-- docs-test: cwd DIR -->` runs it in DIR (relative to the page's folder).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^(```+|~~~+)\s*([\w.+-]*)")
_FILE = re.compile(r"^`([^`\s]+)`:\s*$")
_MARK = re.compile(r"^<!--\s*docs-test:\s*(.+?)\s*-->\s*$")


@dataclass
class Block:
    kind: str                 # "file" or "console"
    line: int                 # where it starts in the page
    text: str
    name: str = ""            # the file's name
    marks: list[str] = field(default_factory=list)


def blocks(page: Path) -> list[Block]:
    """The file and console blocks of a page, in order."""
    lines = page.read_text(encoding="utf-8").split("\n")
    found: list[Block] = []
    marks: list[str] = []
    name = None
    i = 0
    while i < len(lines):
        line = lines[i]
        mark = _MARK.match(line)
        fence = _FENCE.match(line)
        named = _FILE.match(line)
        if mark:
            marks.append(mark.group(1))
        elif named:
            name = named.group(1)
        elif fence:
            close, lang = fence.group(1), fence.group(2)
            j = i + 1
            while j < len(lines) and not lines[j].startswith(close):
                j += 1
            body = "\n".join(lines[i + 1:j])
            if lang == "console":
                found.append(Block("console", i + 1, body, marks=marks))
            elif name is not None:
                found.append(Block("file", i + 1, body + "\n", name=name, marks=marks))
            marks, name = [], None
            i = j
        elif line.strip():
            name = None if not line.startswith("<!--") else name
            if not line.startswith("<!--"):
                marks = []
        i += 1
    return found


def commands(text: str) -> list[tuple[str, str]]:
    """(command, expected output) of a console block."""
    out: list[tuple[str, list[str]]] = []
    continued = False
    for line in text.split("\n"):
        if continued:                   # a command continued with a backslash
            out[-1] = (out[-1][0] + "\n" + line, out[-1][1])
        elif line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
        continued = bool(out) and not out[-1][1] and line.endswith("\\")
    return [(command, "\n".join(expected)) for command, expected in out]


def _tidy(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.rstrip("\n").split("\n")).strip("\n")


def matches(expected: str, got: str) -> bool:
    """Whether the output is the page's; a line `...` (or `…`) on the page stands for any lines."""
    expected, got = _tidy(expected), _tidy(got)
    if expected == got:
        return True
    lines = expected.split("\n")
    if not any(line.strip() in ("...", "…") for line in lines):
        return False
    pattern = "\n".join("(?:.*\n)*?.*" if line.strip() in ("...", "…") else re.escape(line) for line in lines)
    return re.fullmatch(pattern, got) is not None


def run_session(cwd: Path, pairs: list[tuple[str, str]]) -> list[str]:
    """Run the commands in one bash session; the output of each."""
    marker = "@@docs-test@@"
    script = [f'drama() {{ "{sys.executable}" -m dsl "$@"; }}', "__status=0"]
    for k, (command, _) in enumerate(pairs):
        script.append(f"echo '{marker}{k}'")
        script.append(f"(exit $__status); {command}")
        script.append("__status=$?")
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1", COLUMNS="100", NO_COLOR="1",
               PYTHONHASHSEED="0")
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300)
    parts = re.split(rf"^{marker}(\d+)\n?", done.stdout, flags=re.M)
    outputs = [""] * len(pairs)
    for index in range(1, len(parts), 2):
        outputs[int(parts[index])] = parts[index + 1]
    return outputs


def _folder(tmp_path: Path) -> Path:
    for name in ("scenarios", "tests", "benchmarks"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return tmp_path


# pages that show no console example to run (their figures and sessions are measured or
# played elsewhere: benchmarks, tests/test_play.py), so that a page that loses its examples by
# a mistake in the fences fails here
_WITHOUT_EXAMPLES = {"performance.md", "play.md", "reliability.md", "rules.md"}


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_console_examples_match_the_page(tmp_path, page):
    folder = _folder(tmp_path)
    wrong = []
    ran = 0
    for block in blocks(page):
        if block.kind == "file":
            target = folder / block.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, encoding="utf-8")
            continue
        if "skip" in block.marks:
            continue
        cwd = folder
        for mark in block.marks:
            if mark.startswith("cwd "):
                cwd = folder / mark[4:].strip()
        pairs = commands(block.text)
        if not pairs:
            continue
        outputs = run_session(cwd, pairs)
        ran += len(pairs)
        for (command, expected), got in zip(pairs, outputs):
            got = got.replace(str(folder) + "/", "").replace(str(folder), ".")
            if "Traceback (most recent call last)" in got:
                wrong.append(f"{page.name}:{block.line}: `{command}` printed a traceback:\n{got}")
            elif "output varies" not in block.marks and not matches(expected, got):
                wrong.append(f"{page.name}:{block.line}: `{command}`\n--- the page\n{expected}\n"
                             f"--- printed\n{got}")
    assert ran or page.name in _WITHOUT_EXAMPLES, f"{page.name} has no console example the test ran"
    assert not wrong, f"{len(wrong)} of {ran} commands differ from the page:\n\n" + "\n\n".join(wrong)
