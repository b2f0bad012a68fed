"""YAML files kept composed in the user's cache folder (dsl/loader/kept_yaml.py, issue 28): a kept
tree is the one ruamel.yaml composes (tags, text, lines and columns, styles, values, shared
nodes), only a clean file is kept, and a damaged entry is composed again."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsl import user_cache
from dsl.loader import kept_yaml, yamlnodes
from dsl.loader.yamlnodes import Context, YamlFile
from dsl.pipeline import Program, check

ROOT = Path(__file__).resolve().parent.parent
YAML_FILES = sorted(p for folder in ("scenarios", "tests", "docs") for p in (ROOT / folder).rglob("*.yaml"))
SCENARIOS = sorted(p for p in YAML_FILES if p.name == "scenario.yaml")


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "drama"


def _fresh_process():
    """What a new process has: nothing composed yet (its own cache of compositions emptied)."""
    with yamlnodes._LOCK:
        yamlnodes._COMPOSED.clear()


def _tree(f: YamlFile):
    """Everything the loader reads of a file's tree, node by node (shared nodes by their first place)."""
    seen: dict[int, int] = {}

    def node(n):
        if id(n) in seen:
            return ("again", seen[id(n)])
        seen[id(n)] = len(seen)
        head = (type(n).__name__, str(n.tag), (n.start_mark.line, n.start_mark.column),
                (n.end_mark.line, n.end_mark.column) if n.end_mark else None)
        if type(n).__name__ == "ScalarNode":
            value = f.values.get(id(n), "<none>")
            return (*head, n.value, n.style, type(value).__name__, value)
        if type(n).__name__ == "MappingNode":
            return (*head, bool(n.flow_style), tuple((node(k), node(v)) for k, v in n.value))
        return (*head, bool(n.flow_style), tuple(node(i) for i in n.value))
    return None if f.root is None else node(f.root)


def _read(path: str, text: str):
    errors: list = []
    try:
        f = YamlFile.parse(path, text, Context(errors))
    except Exception as stop:      # (Skip: the file could not be used)
        return None, [e.format() for e in errors], type(stop).__name__
    return _tree(f), [e.format() for e in errors], None


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_kept_file_is_the_tree_ruamel_composes(path, folder):
    text = path.read_text(encoding="utf-8")
    _fresh_process()
    first = _read(str(path), text)
    _fresh_process()
    second = _read(str(path), text)
    assert second == first
    if first[2] is None and not first[1]:
        assert list(folder.glob("yaml-*.marshal"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: str(p.parent.relative_to(ROOT)))
def test_a_scenario_checks_and_runs_the_same_from_kept_files(path, folder):
    def once():
        _fresh_process()
        errors = [e.format() for e in check(str(path))]
        try:
            events = Program.compile(str(path)).run(seed=3)
        except Exception as error:          # (a scenario of the tests that does not run)
            events = type(error).__name__
        return errors, repr(events)
    assert once() == once() == once()


TEXTS = [p.read_text(encoding="utf-8") for p in YAML_FILES]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.sampled_from(TEXTS),
       edits=st.lists(st.tuples(st.integers(0, 4000), st.sampled_from(
           ["", " ", ":", "- ", "&a ", "*a", "<<: *a\n", "!!int ", "\t", "'", "\"", "\n", "{", "[", "yes", "~",
            "0x1F", "2001-01-01", "\\0"])), max_size=4))
def test_any_yaml_reads_the_same_kept_or_not(folder, text, edits):
    """Repository YAML damaged at random: with a cache, the tree and the errors are those of a
    composition without one, at the first start and the next."""
    for at, put in edits:
        at = min(at, len(text))
        text = text[:at] + put + text[at + 1:]
    _fresh_process()
    first = _read("mixed.yaml", text)
    _fresh_process()
    second = _read("mixed.yaml", text)
    assert second == first


@pytest.mark.parametrize("planted", [
    ["s", 3, None, None, "x", None, "x"],
    ["q", "tag:yaml.org,2002:seq", [0, 0], [1, 0], None, [["r", 5]]],
    ["z", "tag", None, None],
    "not a node",
    ["m", "tag:yaml.org,2002:map", [0, 0], [1, 0], None, [["s"]]],
    ["s", "tag:yaml.org,2002:str", [0, 0], [0, 1], 7, None, "x"],
], ids=["a tag that is no text", "a node not read", "a kind", "another shape", "a short node", "no text"])
def test_a_damaged_entry_is_composed_again(planted, folder):
    path = ROOT / "scenarios" / "skirmish" / "cast.yaml"
    text = path.read_text(encoding="utf-8")
    _fresh_process()
    fresh = _read(str(path), text)
    from ruamel.yaml import __version__ as ruamel_version
    for entry in folder.glob("yaml-*.marshal"):
        entry.unlink()
    user_cache.kept("yaml", f"{path}\n{text}", lambda: planted,
                    version=(kept_yaml._FORMAT, ruamel_version, user_cache.package_code()))
    _fresh_process()
    assert _read(str(path), text) == fresh


def test_a_file_with_a_warning_or_an_error_is_never_kept(folder):
    text = "name: Ash\nname: Ash again\n"          # E102, a duplicate key
    _fresh_process()
    first = _read("dup.yaml", text)
    assert first[1] and "E102" in first[1][0]
    _fresh_process()
    assert _read("dup.yaml", text) == first
    import marshal
    stored = [marshal.loads(p.read_bytes()) for p in folder.glob("yaml-*.marshal")]
    assert [value for _, source, value in stored if source == f"dup.yaml\n{text}"] == [None]


def test_the_language_server_keeps_no_file_for_other_processes(folder):
    """An edited file is a new text at every change: the server's processes keep none of them
    (they would fill the folder and push out what a start needs)."""
    kept_yaml.keep(False)
    try:
        for n in range(3):
            _fresh_process()
            assert _read("edited.yaml", f"name: Ash {n}\n")[1] == []
    finally:
        kept_yaml.keep(True)
    assert not list(folder.glob("yaml-*.marshal"))
