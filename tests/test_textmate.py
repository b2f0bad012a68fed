"""The TextMate grammar of .drama scripts (editors/vscode/syntaxes/): made from the keyword vocabulary,
up to date, and checked with vscode-tmgrammar-test on the files of tests/textmate/."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from conftest import ROOT
from dsl.syntax.textmate import grammar, grammar_text
from dsl.syntax.vocabulary import KEYWORDS, STATEMENT_WORDS

GRAMMAR = ROOT / "editors" / "vscode" / "syntaxes" / "drama.tmLanguage.json"
CASES = ROOT / "tests" / "textmate"
TOOLS = ROOT / "editors" / "vscode" / "node_modules" / ".bin"


def test_the_grammar_file_is_up_to_date():
    assert GRAMMAR.read_text(encoding="utf-8") == grammar_text(), (
        "regenerate it: python -m dsl.syntax.textmate > editors/vscode/syntaxes/drama.tmLanguage.json")


def _rules(node):
    if isinstance(node, dict):
        for key in ("match", "begin"):
            if key in node:
                yield node
        for value in node.values():
            yield from _rules(value)
    elif isinstance(node, list):
        for value in node:
            yield from _rules(value)


@pytest.mark.parametrize("word", sorted(KEYWORDS))
def test_every_keyword_of_the_vocabulary_has_a_keyword_scope(word):
    """A keyword added to the grammar gets a scope (the grammar reads the vocabulary)."""
    scoped = [rule for rule in _rules(grammar()) if "match" in rule and
              re.fullmatch(rule["match"], word) and re.search(r"keyword|support\.constant", rule.get("name", ""))]
    assert scoped, word
    if word in STATEMENT_WORDS:
        starts = grammar()["repository"]["statement-start"]["patterns"]
        text = grammar()["repository"]["text-statement"]["begin"]
        assert any(re.match(rule.get("match", rule.get("begin", "")), word) for rule in starts) or \
            re.match(text, word + " x") or word == "end", word


def _tool(name: str):
    found = TOOLS / name
    if found.exists():
        return str(found)
    return shutil.which(name)


@pytest.mark.parametrize("tool,cases", [("vscode-tmgrammar-test", "*.drama"), ("vscode-tmgrammar-snap", "snap/*.drama")])
def test_vscode_tmgrammar_test_on_the_cases(tool, cases):
    """The assertions of tests/textmate/*.drama and the snapshots of tests/textmate/snap/ (update
    those with `vscode-tmgrammar-snap -u ...` after a deliberate change)."""
    command = _tool(tool)
    if command is None:
        pytest.skip(f"{tool} (npm) is not installed: `npm install --prefix editors/vscode` installs it "
                    "(.ci/run does)")
    args = [command, "-g", str(GRAMMAR)] + (["-s", "source.drama"] if "snap" in tool else ["-c"]) + [str(CASES / cases)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ERROR" not in done.stdout and "✗" not in done.stdout, done.stdout


def test_the_grammar_is_valid_json_with_its_scope():
    data = json.loads(GRAMMAR.read_text())
    assert data["scopeName"] == "source.drama" and data["fileTypes"] == ["drama"]
