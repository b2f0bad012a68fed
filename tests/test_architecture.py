"""docs/architecture.md's table of modules is kept true: it lists every module of the package, and only those."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _modules() -> set[str]:
    package = ROOT / "dsl"
    return {str(path.relative_to(ROOT)) for path in package.rglob("*.py")
            if "grammar" not in path.relative_to(package).parts}


def _rows() -> set[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\| `(dsl/[^`]+\.py)` \|", text, flags=re.M))


def test_the_module_table_lists_every_module_of_the_package():
    missing = sorted(_modules() - _rows())
    assert not missing, f"modules missing from docs/architecture.md's table: {missing}"


def test_the_module_table_lists_no_module_that_is_gone():
    gone = sorted(_rows() - _modules())
    assert not gone, f"docs/architecture.md's table names modules that do not exist: {gone}"


def test_every_module_opens_with_a_docstring_of_its_role():
    bare = sorted(name for name in _modules() if not ast.get_docstring(ast.parse((ROOT / name).read_text("utf-8"))))
    assert not bare, f"modules without a docstring: {bare}"


def _test_files() -> set[str]:
    tests = ROOT / "tests"
    return {str(path.relative_to(ROOT)) for path in tests.rglob("*.py")
            if path.name != "__init__.py" and "cases" not in path.relative_to(tests).parts}


def _test_rows() -> set[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\| `(tests/[^`]+\.py)` \|", text, flags=re.M))


def test_the_tests_table_lists_every_test_file_and_none_that_is_gone():
    assert sorted(_test_files() - _test_rows()) == [], "test files missing from docs/architecture.md's tests table"
    assert sorted(_test_rows() - _test_files()) == [], "docs/architecture.md's tests table names files that are gone"


def test_drama_render_loads_no_engine(tmp_path):
    """Layers reach one way (issue 25 point 7): rendering a saved event log reads events, not the
    engine that made them (`python -X importtime` lists every module a real `drama render` imports)."""
    import subprocess
    import sys
    log = tmp_path / "events.jsonl"
    made = subprocess.run([sys.executable, "-m", "dsl", "run", str(ROOT / "scenarios/emberfall/scenario.yaml"),
                           "--format", "json", "-o", str(log)], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    shown = subprocess.run([sys.executable, "-X", "importtime", "-m", "dsl", "render", str(log), "--as", "transcript"],
                           capture_output=True, text=True)
    assert shown.returncode == 0 and shown.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in shown.stderr.splitlines() if "|" in line}
    assert "dsl.render" in imported
    assert not {name for name in imported if name.startswith(("dsl.engine", "dsl.interpreter"))}


def test_the_error_type_reads_no_file(tmp_path):
    """`DramaError.format` shows the line it points at only from text it is given (or that is
    attached to it); reading the file is `dsl.messages.shown`'s (issue 25 point 7)."""
    from dsl.errors import DramaError, Position
    from dsl.messages import shown
    script = tmp_path / "script.drama"
    script.write_text("round\nKara holds\n", encoding="utf-8")
    error = DramaError("E001", "unexpected", position=Position(str(script), 2, 1, 5))
    assert "Kara holds" not in error.format()
    assert "Kara holds" in error.format("round\nKara holds\n") and "Kara holds" in shown(error)


def _imports(path: Path, name: str, inside_functions: bool = False) -> set[str]:
    """The modules of the package that a module imports when it is imported (and, with
    `inside_functions`, when its functions run), not for annotations only under TYPE_CHECKING."""
    tree = ast.parse(path.read_text("utf-8"))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for one in ast.walk(node):
            if isinstance(one, (ast.FunctionDef, ast.AsyncFunctionDef)) and not inside_functions:
                break
            if isinstance(one, ast.ImportFrom) and one.level:
                base = ".".join(package[:len(package) - one.level + 1] + ([one.module] if one.module else []))
                found.update({f"{base}.{a.name}" for a in one.names} | {base})
            elif isinstance(one, ast.ImportFrom) and (one.module or "").startswith("dsl"):
                found.update({f"{one.module}.{a.name}" for a in one.names} | {one.module})
            elif isinstance(one, ast.Import):
                found.update(a.name for a in one.names if a.name.startswith("dsl"))
    return found


def test_no_import_cycle_among_the_modules():
    """Issue 25: the modules import one another in one direction when they are loaded."""
    _no_cycle(inside_functions=False)


def test_no_import_cycle_at_run_time():
    """Issue 25: nor when their functions run (an import put off into a function is
    still an import: put off, it hides a cycle rather than breaking it)."""
    _no_cycle(inside_functions=True)


def _no_cycle(inside_functions: bool) -> None:
    modules = {}
    for path in (ROOT / "dsl").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    # (a module's own packages are loaded before it, whatever it imports from them)
    graph = {name: {m for m in _imports(path, name, inside_functions) if m in modules and m != name and not name.startswith(m + ".")}
             for name, path in modules.items()}
    state: dict[str, int] = {}      # 1: being visited, 2: done

    def visit(name: str, chain: list[str]) -> None:
        state[name] = 1
        for other in sorted(graph[name]):
            assert state.get(other) != 1, "an import cycle: " + " -> ".join(chain[chain.index(other):] + [other]) \
                if other in chain else other
            if other not in state:
                visit(other, chain + [other])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_the_cyclic_collector_is_managed_in_one_module():
    """One source of truth: only dsl/collector.py pauses, freezes or runs the garbage collector."""
    users = sorted(name for name in _modules() if name != "dsl/collector.py"
                   and re.search(r"^\s*(?:import gc\b|from gc import)", (ROOT / name).read_text("utf-8"), re.M))
    assert not users, f"modules that manage the collector themselves: {users}"
