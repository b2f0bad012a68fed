"""The VS Code extension of editors/vscode/: what its package.json contributes exists, and it packages
into a .vsix (when npm's tools are installed: `npm ci --prefix editors/vscode`, as .ci/run does)."""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile

import pytest

from conftest import ROOT

VSCODE = ROOT / "editors" / "vscode"


def manifest() -> dict:
    return json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))


def test_the_manifest_contributes_the_language_grammar_and_schemas():
    data = manifest()
    contributes = data["contributes"]
    (language,) = contributes["languages"]
    assert language["id"] == "drama" and language["extensions"] == [".drama"]
    configuration = json.loads((VSCODE / language["configuration"]).read_text())
    assert configuration["comments"] == {"lineComment": "#"}
    assert ["(", ")"] in configuration["brackets"]
    (grammar,) = contributes["grammars"]
    assert (VSCODE / grammar["path"]).is_file() and grammar["scopeName"] == "source.drama"
    for entry in contributes["yamlValidation"]:
        name = entry["url"].removeprefix("./schemas/")
        assert (ROOT / "editors" / "schemas" / name).is_file(), entry     # copied in by `npm run package`
    assert {e["url"] for e in contributes["yamlValidation"]} == {
        f"./schemas/{kind}.schema.json" for kind in ("setting", "cast", "scenario")}
    # the client starts `drama lsp`
    client = (VSCODE / data["main"]).read_text()
    assert 'args: ["lsp"]' in client and "vscode-languageclient/node" in client
    assert contributes["configuration"]["properties"]["drama.server.command"]["default"] == "drama"


def test_it_packages_into_a_vsix(tmp_path):
    vsce = VSCODE / "node_modules" / ".bin" / "vsce"
    if not vsce.exists() or shutil.which("npm") is None:
        pytest.skip("@vscode/vsce (npm) is not installed: `npm ci --prefix editors/vscode` installs it (.ci/run does)")
    copy = tmp_path / "editors"
    shutil.copytree(ROOT / "editors" / "schemas", copy / "schemas")
    shutil.copytree(VSCODE, copy / "vscode", symlinks=True,
                    ignore=shutil.ignore_patterns("*.vsix", "schemas"))
    done = subprocess.run(["npm", "run", "package", "--silent"], cwd=copy / "vscode", capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    with zipfile.ZipFile(copy / "vscode" / "drama-language.vsix") as vsix:
        names = set(vsix.namelist())
    assert {"extension/package.json", "extension/extension.js", "extension/language-configuration.json",
            "extension/syntaxes/drama.tmLanguage.json", "extension/schemas/cast.schema.json",
            "extension/node_modules/vscode-languageclient/package.json"} <= names
