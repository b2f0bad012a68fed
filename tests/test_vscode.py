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
        f"./schemas/{kind}.schema.json" for kind in ("setting", "cast", "scenario", "test")}
    # only names no other project uses: a bare setting.yaml or scenario.yaml gets our schema only
    # when `drama lsp` says it is drama's (drama/fileKind, through the YAML extension's contributor API)
    patterns = [p for e in contributes["yamlValidation"] for p in e["fileMatch"]]
    assert sorted(patterns) == ["*.cast.yaml", "*.scenario.yaml", "*.setting.yaml", "*.test.yaml"]
    # the client starts `drama lsp`; it is bundled (dist/extension.js, by esbuild) from src/
    assert data["main"] == "./dist/extension.js"
    client = (VSCODE / "src" / "extension.js").read_text()
    assert 'args: ["lsp"]' in client and "vscode-languageclient/node" in client
    assert "drama/fileKind" in client and "registerContributor" in client and "drama.preview" in client
    assert contributes["configuration"]["properties"]["drama.server.command"]["default"] == "drama"
    # vscode-languageclient 9 needs VS Code 1.82; the schemas need the YAML extension
    assert data["engines"]["vscode"] == "^1.82.0"
    assert data["extensionDependencies"] == ["redhat.vscode-yaml"]
    assert (VSCODE / "LICENSE").read_text().startswith("MIT License") and data["license"] == "MIT"
    assert [c["command"] for c in contributes["commands"]] == ["drama.showPreview"]


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
    assert {"extension/package.json", "extension/dist/extension.js", "extension/language-configuration.json",
            "extension/syntaxes/drama.tmLanguage.json", "extension/schemas/cast.schema.json",
            "extension/schemas/test.schema.json", "extension/media/preview.js", "extension/LICENSE.txt"} <= names
    # bundled: no node_modules, no sources, a handful of files (not 167)
    assert not any("node_modules" in name or name.startswith("extension/src/") for name in names), names
    assert len(names) < 25, sorted(names)


def test_the_client_and_the_preview_page_are_valid_javascript():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    for script in (VSCODE / "src" / "extension.js", VSCODE / "media" / "preview.js"):
        done = subprocess.run([node, "--check", str(script)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
