"""Issue 27 item 4: a document of the project names no path of the machine it was written on."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "editors").glob("**/README.md")),
]
DOCUMENTS = [page for page in DOCUMENTS if "node_modules" not in page.parts]

# A path that exists only where the page was written: a workplace, a home
# folder, a notes folder, or the shared folder beside the repository that a
# reader of the project does not have.
MACHINE_PATH = re.compile(
    r"(?<![\w.])(?:/work/|/root/|/home/\w|/Users/\w|/mnt/\w|\.\./shared\b|\bshared/(?:rules|spec|samples|tools)\b|/notes/)"
)


@pytest.mark.parametrize("page", DOCUMENTS, ids=lambda page: str(page.relative_to(ROOT)))
def test_issue_27_a_document_names_no_path_of_the_machine(page):
    found = [
        f"{page.name}:{number}: {line.strip()}"
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if MACHINE_PATH.search(line)
    ]
    assert not found, "paths of the machine the page was written on:\n" + "\n".join(found)


def test_issue_27_the_pattern_catches_a_machine_path():
    assert MACHINE_PATH.search("see /work/notes/speed.md")
    assert MACHINE_PATH.search("the rules in ../shared/rules/dramatic-situations.txt")
    assert not MACHINE_PATH.search("drama run scenarios/emberfall/scenario.yaml -o /tmp/e.jsonl")
    assert not MACHINE_PATH.search("`dsl/lsp/worker.py`")
