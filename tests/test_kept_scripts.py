"""Scripts kept parsed in the user's cache folder (dsl/syntax/kept.py, issue 28): a kept script is
exactly what its text parses to, only a clean parse is kept, and an entry that is damaged,
hostile or made by other code is never used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsl import user_cache
from dsl.syntax import kept, nodes, parse, tree

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted(p for folder in ("scenarios", "tests") for p in (ROOT / folder).rglob("*.drama"))
SKIRMISH = ROOT / "scenarios" / "skirmish" / "scenario.yaml"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "drama"


def _shape(script: nodes.Script) -> list[int]:
    """Which statements are the same node: for each, the index of its first occurrence."""
    ids = [id(s) for s in script.shared]
    return [ids.index(i) for i in ids]


def _singletons(script: nodes.Script) -> list[bool]:
    """For each statement, whether each of its values is one of the nodes compared by identity."""
    return [value is tree.NO_DICE or value is tree.NO_USES
            for s in script.shared for value in vars(s).values()]


def _parsed_twice(text: str, file: str, line_offset: int = 0):
    """Parse with `keep` twice, as two starts would: (the first, the second, how many times Lark read)."""
    reads = []
    real = kept.parsed

    def counting(text, file, line_offset, read):
        def counted():
            reads.append(1)
            return read()
        return real(text, file, line_offset, counted)
    kept.parsed = counting
    try:
        errors_first, errors_second = [], []
        first = parse(text, file, line_offset, errors=errors_first, keep=True)
        second = parse(text, file, line_offset, errors=errors_second, keep=True)
    finally:
        kept.parsed = real
    return first, second, len(reads), errors_first, errors_second


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_kept_script_is_the_script_its_text_parses_to(path, folder):
    text = path.read_text(encoding="utf-8")
    fresh_errors: list = []
    fresh = parse(text, str(path), 3, errors=fresh_errors)
    first, second, reads, errors_first, errors_second = _parsed_twice(text, str(path), 3)
    assert first == fresh and second == fresh
    assert [e.format() for e in errors_first] == [e.format() for e in errors_second] \
        == [e.format() for e in fresh_errors]
    if fresh_errors:
        assert reads == 2                       # reported at every start, never kept
    else:
        assert reads == 1                       # the second start read the kept one
        assert list(folder.glob("script-*.marshal"))
    assert _shape(second) == _shape(fresh)          # a repeated statement is still one node
    assert _singletons(second) == _singletons(fresh)
    assert [s.statements for s in (second,)] == [fresh.statements]


LINES = [line for p in SCRIPTS for line in p.read_text(encoding="utf-8").splitlines()][:4000]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.sampled_from(LINES), min_size=1, max_size=25),
       edits=st.lists(st.tuples(st.integers(0, 24), st.sampled_from(["", "  ", "x", "->", "\t", "end", "#"])),
                      max_size=3))
def test_any_text_parses_the_same_kept_or_not(folder, lines, edits):
    """Lines of the repository's scripts, shuffled and damaged: with a cache the script and its
    errors are those of a parse without one, at the first start and the next."""
    lines = list(lines)
    for at, put in edits:
        if at < len(lines):
            lines[at] = lines[at][: len(lines[at]) // 2] + put
    text = "\n".join(lines) + "\n"
    fresh_errors: list = []
    fresh = parse(text, "mixed.drama", errors=fresh_errors)
    first, second, _, errors_first, errors_second = _parsed_twice(text, "mixed.drama")
    assert first == fresh == second
    assert [e.format() for e in errors_first] == [e.format() for e in errors_second] \
        == [e.format() for e in fresh_errors]
    assert _shape(second) == _shape(fresh)


def test_a_script_is_kept_for_its_file_and_place_too(folder):
    """The same text read as another file, or further down a YAML file, has other positions."""
    text = (ROOT / "scenarios" / "skirmish" / "ford.drama").read_text(encoding="utf-8")
    parse(text, "one.drama", keep=True)
    other = parse(text, "two.drama", keep=True)
    lower = parse(text, "one.drama", 10, keep=True)
    assert other == parse(text, "two.drama")
    assert lower == parse(text, "one.drama", 10)
    assert other.statements[0].pos.file == "two.drama" and lower.statements[0].pos.line == other.statements[0].pos.line + 10


def test_a_kept_script_made_by_other_code_is_not_used(folder, monkeypatch):
    """The package's code is the entry's version: an edited module reads every script again."""
    text = "Ash strike -> Chief, rolled 6\n"
    parse(text, "a.drama", keep=True)
    monkeypatch.setattr(user_cache, "_code", ["another package"])
    reads = []
    assert kept.parsed(text, "a.drama", 0, lambda: reads.append(1) or (parse(text, "a.drama"), True)) \
        == parse(text, "a.drama")
    assert reads == [1]


@pytest.mark.parametrize("planted", [
    [["os:system"], ["n", 0, "x", "echo hostile"]],
    [["builtins:exec"], ["n", 0]],
    [["dsl.syntax.tree:Action"], ["n", 7]],
    [["dsl.syntax.parse:parse"], ["n", 0]],
    [["dsl.syntax.tree"], ["n", 0]],
    [[], ["q", 1]],
    [[], ["r", 99]],
    "not a pair",
    [[], ["t", ["s", "NO_SUCH"]]],
    [["dsl.syntax.tree:Dice"], ["n", 0, "text", "none"]],
], ids=["a function", "exec", "a class out of range", "not a class", "no name", "a tag", "a node not read",
        "another shape", "no such singleton", "a node, not a script"])
def test_a_damaged_or_hostile_entry_is_read_again_never_run(planted, folder):
    """An entry with the right key but made by anyone else: the text is parsed again, nothing runs."""
    text = "Ash strike -> Chief, rolled 6\n"
    made = user_cache.kept("script", f"a.drama\n0\n{text}", lambda: planted,
                           version=(kept._FORMAT, user_cache.package_code()))
    assert made == planted
    assert parse(text, "a.drama", keep=True) == parse(text, "a.drama")


def _drama(*args, cache_home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache_home),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "dsl", *args], capture_output=True, text=True, encoding="utf-8",
                          env=env, timeout=120)


def test_a_run_from_a_kept_script_gives_the_events_of_a_fresh_one(tmp_path):
    unwritable = tmp_path / "file"
    unwritable.write_text("not a folder")
    args = ("run", str(SKIRMISH), "--seed", "7", "--format", "json")
    fresh = _drama(*args, cache_home=unwritable)
    assert fresh.returncode == 0, fresh.stderr
    first = _drama(*args, cache_home=tmp_path)
    assert list((tmp_path / "drama").glob("script-*.marshal"))
    second = _drama(*args, cache_home=tmp_path)
    assert fresh.stdout == first.stdout == second.stdout
    assert [json.loads(line)["type"] for line in second.stdout.splitlines()][:2]


def test_a_warm_start_loads_no_parser(tmp_path):
    """The point of keeping it: a check of an unchanged scenario imports neither Lark's generated
    parser nor the tree builder."""
    report = ("import sys, atexit\n"
              "atexit.register(lambda: print(sorted(sys.modules), file=sys.stderr))\n"
              "from dsl.cli import main\nmain(sys.argv[1:])\n")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for command in ("check", "run"):
        subprocess.run([sys.executable, "-m", "dsl", command, str(SKIRMISH)], env=env, capture_output=True,
                       timeout=120)
        done = subprocess.run([sys.executable, "-c", report, command, str(SKIRMISH)], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        imported = set(eval(done.stderr.strip().splitlines()[-1]))      # noqa: S307 - our own list
        assert not imported & {"dsl.syntax.lark_parser", "dsl.syntax.builder", "dsl.syntax.syntax_errors"}, command
