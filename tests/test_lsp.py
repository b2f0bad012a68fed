"""`drama lsp`: the language server driven in-process by pygls's LSP client, over pipes: for each
feature, open a document, edit it, and look at the answers."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import os
import re
import threading
import time
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pygls.io_ import StdinAsyncReader, StdoutWriter, run_async
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from conftest import EMBERFALL_CAST, EMBERFALL_SETTING, SCENARIOS, drama, write
from dsl.lsp.server import KEYWORD_HELP, make_server
from dsl.syntax.vocabulary import KEYWORDS

SCENARIO = "title: Test\nsetting: setting.yaml\ncast: cast.yaml\nscript: script.drama\n"
SCRIPT = """\
scene "The Hall"
drama "Fight" with Kara, Bren, Overlord
Kara fireball -> Overlord with Sorcery + Ember Staff, rolled 6 6
Overlord defends with Cunning, rolled 2
end drama
"""


class Session:
    """A language server in a thread, and a client talking to it over two pipes."""

    def __init__(self, root: Path):
        self.root = root
        self.published: dict[str, list[lsp.Diagnostic]] = {}
        self.counts: dict[str, int] = {}
        self.versions: dict[str, int] = {}
        self.log: list[tuple[str, int | None, list[lsp.Diagnostic]]] = []   # every publication, in order

    async def __aenter__(self) -> "Session":
        to_server_r, to_server_w = os.pipe()
        to_client_r, to_client_w = os.pipe()
        self.server = make_server()
        self.thread = threading.Thread(target=self.server.start_io, daemon=True,
                                       args=(os.fdopen(to_server_r, "rb"), os.fdopen(to_client_w, "wb")))
        self.thread.start()
        self.client = LanguageClient("test", "1")

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: lsp.PublishDiagnosticsParams):
            self.published[params.uri] = params.diagnostics
            self.counts[params.uri] = self.counts.get(params.uri, 0) + 1
            self.log.append((params.uri, params.version, params.diagnostics))

        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        self.client.protocol.set_writer(StdoutWriter(os.fdopen(to_server_w, "wb")))
        self.reading = asyncio.ensure_future(run_async(
            stop_event=self.client._stop_event, protocol=self.client.protocol,
            reader=StdinAsyncReader(os.fdopen(to_client_r, "rb"), self.pool)))
        self.capabilities = (await self.client.initialize_async(lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(), root_uri=from_fs_path(str(self.root))))).capabilities
        self.client.initialized(lsp.InitializedParams())
        return self

    async def __aexit__(self, *exc) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        self.thread.join(10)
        self.client._stop_event.set()
        self.reading.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)

    def uri(self, name: str | Path) -> str:
        return from_fs_path(str(self.root / name))

    async def diagnostics(self, name, before: int) -> list[lsp.Diagnostic]:
        """The next diagnostics published for the document after `before` publications."""
        uri = self.uri(name)
        deadline = time.monotonic() + 60
        while self.counts.get(uri, 0) <= before:
            if time.monotonic() > deadline:
                raise AssertionError(f"no diagnostics published for {uri}")
            await asyncio.sleep(0.02)
        return list(self.published[uri])

    async def open(self, name, text: str | None = None, language: str = "drama") -> list[lsp.Diagnostic]:
        path = self.root / name
        text = path.read_text(encoding="utf-8") if text is None else text
        before = self.counts.get(self.uri(name), 0)
        self.versions[name] = 1
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=self.uri(name), language_id=language, version=1, text=text)))
        return await self.diagnostics(name, before)

    async def change(self, name, text: str) -> list[lsp.Diagnostic]:
        before = self.counts.get(self.uri(name), 0)
        self.versions[name] += 1
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=self.uri(name), version=self.versions[name]),
            [lsp.TextDocumentContentChangeWholeDocument(text=text)]))
        return await self.diagnostics(name, before)

    def at(self, name, line: int, character: int):
        return dict(text_document=lsp.TextDocumentIdentifier(uri=self.uri(name)),
                    position=lsp.Position(line, character))


def session_test(function):
    """Run an async test with a Session over the folder it was given (a fresh tmp_path)."""
    @functools.wraps(function)
    def run(tmp_path):
        async def main():
            async with Session(tmp_path) as session:
                await asyncio.wait_for(function(session), 120)
        asyncio.run(main())
    return run


def adventure(folder: Path, script: str = SCRIPT) -> None:
    write(folder, "setting.yaml", EMBERFALL_SETTING)
    write(folder, "cast.yaml", EMBERFALL_CAST)
    write(folder, "script.drama", script)
    write(folder, "scenario.yaml", SCENARIO)


# ---------------------------------------------------------------- diagnostics

@pytest.fixture
def folder(tmp_path):
    adventure(tmp_path)
    return tmp_path


def test_diagnostics_are_those_of_drama_check_as_the_writer_types(folder):
    @session_test
    async def body(s: Session):
        assert await s.open("script.drama") == []
        typo = SCRIPT.replace("-> Overlord", "-> Overlrod")
        (found,) = await s.change("script.drama", typo)
        assert found.code == "E201" and found.source == "drama"
        assert found.severity == lsp.DiagnosticSeverity.Error
        assert found.message.startswith("there is no party 'Overlrod' in the cast")
        assert "help: did you mean 'Overlord'?" in found.message
        assert found.range == lsp.Range(lsp.Position(2, 17), lsp.Position(2, 25))
        assert found.code_description.href.endswith("docs/errors.md#e201-an-unknown-party")
        # the same as `drama check`, which reads the files on disk
        write(folder, "script.drama", typo)
        checked = drama("check", folder / "scenario.yaml")
        assert "script.drama:3:18: error[E201]: there is no party 'Overlrod'" in checked.stderr
        assert await s.change("script.drama", SCRIPT) == []        # fixed: cleared
    body(folder)


def test_a_repeated_line_has_a_diagnostic_at_each_of_its_occurrences(folder):
    # the occurrences share one parsed node (nodes.Script); each diagnostic is at its own line
    typo = "Kara fireball -> Overlrod, rolled 6\nround\n"
    text = SCRIPT.replace("end drama\n", typo * 3 + "end drama\n")

    @session_test
    async def body(s: Session):
        found = await s.open("script.drama", text)
        assert [(d.code, d.range) for d in found] == [
            ("E201", lsp.Range(lsp.Position(line, 17), lsp.Position(line, 25))) for line in (4, 6, 8)]
    body(folder)


def test_warnings_have_warning_severity_and_included_files_their_include(folder):
    write(folder, "scenes/more.drama", "if Overlord quintessence > 90\n> never\nend\n")
    @session_test
    async def body(s: Session):
        await s.open("script.drama", SCRIPT.replace("end drama\n", 'include "scenes/more.drama"\nend drama\n'))
        (found,) = await s.open("scenes/more.drama")
        assert found.code == "W001" and found.severity == lsp.DiagnosticSeverity.Warning
        (related,) = found.related_information
        assert related.location.uri == s.uri("script.drama") and related.location.range.start.line == 4
        assert related.message == "included from here"
    body(folder)


def test_diagnostics_of_a_yaml_file_and_of_the_script_it_breaks(folder):
    @session_test
    async def body(s: Session):
        await s.open("script.drama")
        cast = EMBERFALL_CAST.replace("quintessence: 6", "quintessence: six")
        found = await s.open("cast.yaml", cast, language="yaml")
        assert [d.code for d in found] == ["E104"]
        assert found[0].range.start.line == cast.split("\n").index("    quintessence: six")
        setting = await s.open("setting.yaml", EMBERFALL_SETTING + "tie: vote\n", language="yaml")
        assert [d.code for d in setting] == ["E103"] and "did you mean 'ties'?" in setting[0].message
        # the YAML files are completed by the YAML extension, from the schemas, not here
        none = await s.client.text_document_completion_async(lsp.CompletionParams(**s.at("setting.yaml", 0, 0)))
        assert list(none.items) == []
    body(folder)


COMPOSE = "services:\n  web:\n    image: nginx\n"
WORKFLOW = "on: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n"


def test_only_drama_files_get_drama_diagnostics(folder):
    """Other projects' YAML in the folder (a compose file, a CI workflow, a `setting.yaml` that no
    scenario names) get no diagnostic; drama's (named by a scenario, with our modeline, `*.cast.yaml`) do."""
    write(folder, "docker-compose.yaml", COMPOSE)
    write(folder, ".github/workflows/ci.yaml", WORKFLOW)
    write(folder, "other/setting.yaml", "services: {}\n")
    write(folder, ".travis.yml", "language: python\nscript: pytest\n")
    marked = "# yaml-language-server: $schema=../editors/schemas/setting.schema.json\nrund: 6 seconds\n"
    write(folder, "extra/house.yaml", marked)
    write(folder, "extra/more.cast.yaml", "parties: {Kara: {quintessence: six}}\n")

    @session_test
    async def body(s: Session):
        for name in ("docker-compose.yaml", ".github/workflows/ci.yaml", "other/setting.yaml", ".travis.yml"):
            assert await s.open(name, language="yaml") == [], name
            kind = await s.client.protocol.send_request_async("drama/fileKind", {"uri": s.uri(name)})
            assert kind is None, name
        assert [d.code for d in await s.open("extra/house.yaml", language="yaml")] == ["E103"]
        assert [d.code for d in await s.open("extra/more.cast.yaml", language="yaml")] == ["E104"]
        bad = EMBERFALL_SETTING.replace("ties: vote", "tie: vote")
        assert [d.code for d in await s.open("setting.yaml", bad, language="yaml")] == ["E103"]
        kinds = {name: await s.client.protocol.send_request_async("drama/fileKind", {"uri": s.uri(name)})
                 for name in ("setting.yaml", "cast.yaml", "scenario.yaml", "script.drama", "extra/house.yaml")}
        assert kinds == {"setting.yaml": "setting", "cast.yaml": "cast", "scenario.yaml": "scenario",
                         "script.drama": "script", "extra/house.yaml": "setting"}
    body(folder)


def test_a_burst_of_changes_publishes_the_last_version_and_never_a_stale_one(folder):
    """Changes coalesced: a burst ends with the diagnostics of its last version, and the versions
    published only grow."""
    @session_test
    async def body(s: Session):
        await s.open("script.drama")
        uri = s.uri("script.drama")
        for k in range(12):
            s.versions["script.drama"] += 1
            text = SCRIPT.replace("-> Overlord", f"-> Overlord{'x' * (k % 3)}")
            s.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(uri=uri, version=s.versions["script.drama"]),
                [lsp.TextDocumentContentChangeWholeDocument(text=text)]))
            await asyncio.sleep(0.01)
        last = s.versions["script.drama"]
        deadline = time.monotonic() + 60
        while not any(u == uri and v == last for u, v, _ in s.log):
            assert time.monotonic() < deadline, s.log
            await asyncio.sleep(0.02)
        versions = [v for u, v, _ in s.log if u == uri]
        assert versions == sorted(versions) and len(versions) < 12
        (found,) = s.published[uri]            # k = 11: `Overlordxx`
        assert found.code == "E201" and "'Overlordxx'" in found.message
    body(folder)


def test_cr_line_endings(folder):
    """A script with CR-only line endings (the parser reads them, so must the server)."""
    text = SCRIPT.replace("-> Overlord", "-> Overlrod").replace("\n", "\r")
    laid = SCRIPT.replace("Kara fireball -> Overlord", "Kara   fireball->Overlord").replace("\n", "\r")

    @session_test
    async def body(s: Session):
        (found,) = await s.open("script.drama", text)
        assert found.code == "E201" and found.range == lsp.Range(lsp.Position(2, 17), lsp.Position(2, 25))
        await s.change("script.drama", SCRIPT.replace("\n", "\r"))
        ident = lsp.TextDocumentIdentifier(uri=s.uri("script.drama"))
        (scene,) = await s.client.text_document_document_symbol_async(lsp.DocumentSymbolParams(ident))
        assert scene.name == "The Hall" and [c.name for c in scene.children] == ["drama Fight"]
        party = await s.client.text_document_hover_async(lsp.HoverParams(**s.at("script.drama", 2, 19)))
        assert party.contents.value.startswith("**Overlord**")
        where = await s.client.text_document_definition_async(lsp.DefinitionParams(**s.at("script.drama", 3, 3)))
        assert where.uri == s.uri("cast.yaml")
        await s.change("script.drama", laid)
        (edit,) = await s.client.text_document_formatting_async(lsp.DocumentFormattingParams(
            ident, lsp.FormattingOptions(2, True)))
        # the edit as a spec-following client applies it: lines end at LF, CRLF or CR
        lines = re.split(r"\r\n|\r|\n", laid)
        assert edit.range.start == lsp.Position(0, 0)
        assert edit.range.end == lsp.Position(len(lines) - 1, len(lines[-1]))
        assert edit.new_text == SCRIPT
    body(folder)


def test_a_script_that_no_scenario_reads_is_parsed(tmp_path):
    @session_test
    async def body(s: Session):
        (found,) = await s.open("alone.drama", "round\nKara fireball ->\n")
        assert found.code == "E001" and found.range.start.line == 1
    body(tmp_path)


# ---------------------------------------------------------------- completion

def _labels(result) -> list[str]:
    return [item.label for item in result.items]


def _apply(line: str, item) -> str:
    """The line after the client applies a completion item's textEdit (UTF-16 = code points here)."""
    edit = item.text_edit
    return line[:edit.range.start.character] + edit.new_text + line[edit.range.end.character:]


async def _complete(s: "Session", text: str, line: str):
    """Completion at the end of `line`, appended to the script (the last line)."""
    body = text + line
    await s.change("script.drama", body)
    number = body.count("\n")
    return await s.client.text_document_completion_async(lsp.CompletionParams(**s.at("script.drama", number, len(line))))


def test_completion_offers_what_fits_the_place(folder):
    write(folder, "scenes/camp.drama", "> the camp\n")
    write(folder, "scenario.yaml", SCENARIO + "roles:\n  hero: Kara\n")

    @session_test
    async def body(s: Session):
        await s.open("script.drama")
        start = await _complete(s, SCRIPT, "ro")
        assert _labels(start) == ["round"]
        first = await _complete(s, SCRIPT, "")
        assert {"round", "scene", "drama", "end drama", "include", "Kara", "Overlord", "hero"} <= set(_labels(first))
        # after the actor: her moves and the statement verbs, not the 76 keywords
        kara = _labels(await _complete(s, SCRIPT, "Kara "))
        assert "fireball" in kara and {"defends", "recovers", "holds"} <= set(kara)
        assert not {"a", "an", "false", "of", "scene"} & set(kara)
        # a target: the parties but the actor
        target = await _complete(s, SCRIPT, "Kara fireball -> Ov")
        assert _labels(target) == ["Overlord"]
        assert set(_labels(await _complete(s, SCRIPT, "Kara fireball -> "))) == {"hero", "Bren", "Overlord", "Goblins"}
        # after `with`: the party's traits, treasures and moves; after `+`, only the other kind
        uses = await _complete(s, SCRIPT, "Bren bash -> Goblins with ")
        assert set(_labels(uses)) == {"Strength", "Healing", "Iron Shield", "Rope"}
        moves = _labels(await _complete(s, SCRIPT, "Kara fireball -> Overlord with "))
        assert moves[0] == "Sorcery + Ember Staff" and "Agility" in moves
        assert _labels(await _complete(s, SCRIPT, "Kara fireball -> Overlord with Sorcery + ")) == [
            "Ember Staff", "Lucky Coin"]
        # every item replaces what is typed: `Ember S` becomes `Ember Staff`, not `Ember Ember Staff`
        line = "Kara fireball -> Overlord with Sorcery + Ember S"
        (staff,) = (await _complete(s, SCRIPT, line)).items
        assert _apply(line, staff) == "Kara fireball -> Overlord with Sorcery + Ember Staff"
        # conditions: after a party, what a condition says of it
        hero = _labels(await _complete(s, SCRIPT, "if hero "))
        assert {"is defeated", "won the last exchange", "quintessence"} <= set(hero)
        assert not {"Kara", "Bren", "Overlord"} & set(hero)
        assert {"hero", "Kara", "not", "round"} <= set(_labels(await _complete(s, SCRIPT, "if ")))
        # the parties of a dramatic situation, each once, and no repeats of a role
        listed = _labels(await _complete(s, SCRIPT, 'drama "Again" with Kara, '))
        assert "Kara" not in listed and "Bren" in listed and "a chase" in listed
        assert len(listed) == len(set(listed))
        assert _labels(await _complete(s, SCRIPT, "Kara fireball -> Overlord, ro")) == ["roll", "rolled"]
        assert _labels(await _complete(s, SCRIPT, 'include "')) == ["scenes/camp.drama"]
        assert set(_labels(await _complete(s, SCRIPT, "  "))) == {"hero", "Kara", "Bren", "Overlord", "Goblins"}
        assert _labels(await _complete(s, SCRIPT, "> Kara ")) == []
        for result in (start, first, target, uses):
            assert all(item.text_edit is not None for item in result.items)
    body(folder)


def test_completion_of_roles(folder):
    write(folder, "scenario.yaml", SCENARIO + "roles:\n  hero: Kara\n")
    @session_test
    async def body(s: Session):
        await s.open("script.drama", SCRIPT + "hero fireball -> Bren with \n")
        target = await s.client.text_document_completion_async(lsp.CompletionParams(**s.at("script.drama", 2, 17)))
        assert "hero" in _labels(target)
        uses = await s.client.text_document_completion_async(lsp.CompletionParams(**s.at("script.drama", 5, 27)))
        assert "Sorcery" in _labels(uses)            # the role's party's sheet
    body(folder)


# ---------------------------------------------------------------- hover

def test_hover_over_a_party_a_keyword_and_an_error_code(folder):
    @session_test
    async def body(s: Session):
        await s.open("script.drama", SCRIPT + "# E201 is an unknown party\n")
        party = await s.client.text_document_hover_async(lsp.HoverParams(**s.at("script.drama", 2, 19)))
        assert party.contents.value.startswith("**Overlord**: Overlord Bastrastras")
        assert "quintessence 7" in party.contents.value and "traits: Cunning 3, Brutality 2" in party.contents.value
        kara = await s.client.text_document_hover_async(lsp.HoverParams(**s.at("script.drama", 2, 1)))
        assert "moves: fireball = Sorcery + Ember Staff" in kara.contents.value
        keyword = await s.client.text_document_hover_async(lsp.HoverParams(**s.at("script.drama", 3, 11)))
        assert keyword.contents.value == "`defends`: " + KEYWORD_HELP["defends"]
        assert "Overlord defends with Cunning" in KEYWORD_HELP["defends"]
        code = await s.client.text_document_hover_async(lsp.HoverParams(**s.at("script.drama", 5, 3)))
        assert code.contents.value.startswith("**E201**: an unknown party")
        assert "docs/errors.md#e201-an-unknown-party" in code.contents.value
        nothing = await s.client.text_document_hover_async(lsp.HoverParams(**s.at("script.drama", 0, 0)))
        assert nothing is None or "scene" in nothing.contents.value
    body(folder)


def test_every_keyword_has_a_line_of_reference():
    assert set(KEYWORD_HELP) == set(KEYWORDS) and all(KEYWORD_HELP.values())


# ---------------------------------------------------------------- definition, outline, formatting

def test_go_to_definition_of_a_party_and_an_include(folder):
    write(folder, "scenes/camp.drama", "> the camp\n")
    @session_test
    async def body(s: Session):
        await s.open("script.drama", SCRIPT + 'include "scenes/camp.drama"\n')
        party = await s.client.text_document_definition_async(lsp.DefinitionParams(**s.at("script.drama", 3, 3)))
        assert party.uri == s.uri("cast.yaml")
        assert party.range.start.line == EMBERFALL_CAST.split("\n").index("  Overlord:")
        include = await s.client.text_document_definition_async(lsp.DefinitionParams(**s.at("script.drama", 5, 12)))
        assert include.uri == s.uri("scenes/camp.drama")
    body(folder)


def test_the_outline_of_scenes_and_dramatic_situations(tmp_path):
    for path in (SCENARIOS / "ashen-pass").rglob("*"):
        if path.is_file():
            write(tmp_path, str(path.relative_to(SCENARIOS / "ashen-pass")), path.read_text())
    @session_test
    async def body(s: Session):
        await s.open("ashen-pass.drama")
        found = await s.client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
            lsp.TextDocumentIdentifier(uri=s.uri("ashen-pass.drama"))))
        assert [symbol.name for symbol in found] == ["The Ashen Pass", "Wolves at the Cairn"]
        assert [child.name for child in found[1].children] == ["drama Wolves at the Cairn"]
        assert found[1].kind == lsp.SymbolKind.Module and found[1].children[0].kind == lsp.SymbolKind.Event
    body(tmp_path)


def test_formatting_through_drama_fmt(folder):
    @session_test
    async def body(s: Session):
        messy = SCRIPT.replace("Kara fireball -> Overlord", "Kara   fireball->Overlord") + "\n\n\n"
        await s.open("script.drama", messy)
        (edit,) = await s.client.text_document_formatting_async(lsp.DocumentFormattingParams(
            lsp.TextDocumentIdentifier(uri=s.uri("script.drama")), lsp.FormattingOptions(2, True)))
        assert edit.new_text == SCRIPT and edit.range.start == lsp.Position(0, 0)
        await s.change("script.drama", SCRIPT)
        assert list(await s.client.text_document_formatting_async(lsp.DocumentFormattingParams(
            lsp.TextDocumentIdentifier(uri=s.uri("script.drama")), lsp.FormattingOptions(2, True)))) == []
    body(folder)


def test_the_server_says_what_it_can_do(folder):
    @session_test
    async def body(s: Session):
        caps = s.capabilities
        assert caps.hover_provider and caps.definition_provider and caps.document_symbol_provider
        assert caps.document_formatting_provider and caps.completion_provider
    body(folder)


def test_drama_lsp_speaks_over_standard_input_and_output(folder):
    """The command editors start: a real `python -m dsl lsp` process."""
    import sys

    async def main():
        client = LanguageClient("test", "1")
        published = asyncio.Event()
        seen = []

        @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on(params):
            seen.append(params)
            published.set()

        env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
        await client.start_io(sys.executable, "-m", "dsl", "lsp", env=env)
        result = await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
        assert result.server_info.name == "drama"
        client.initialized(lsp.InitializedParams())
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(
            uri=from_fs_path(str(folder / "script.drama")), language_id="drama", version=1,
            text=SCRIPT.replace("Cunning", "Cunnin"))))
        await asyncio.wait_for(published.wait(), 60)
        assert [d.code for d in seen[-1].diagnostics] == ["E202"]
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    asyncio.run(main())


# ---------------------------------------------------------------- the story as you type, the map

def _bundled(tmp_path: Path, name: str) -> None:
    for path in (SCENARIOS / name).rglob("*"):
        if path.is_file():
            write(tmp_path, str(path.relative_to(SCENARIOS / name)), path.read_text())


def test_the_preview_tells_the_run_as_the_writer_types_and_answers_its_choices(tmp_path):
    _bundled(tmp_path, "river-veyne")

    @session_test
    async def body(s: Session):
        await s.open("river-veyne.drama")
        ask = functools.partial(s.client.workspace_execute_command_async)
        uri = s.uri("river-veyne.drama")
        first = await ask(lsp.ExecuteCommandParams("drama.preview", [uri, {"seed": 0}]))
        assert first["error"] is None and first["title"] == "The River Veyne"
        (choice,) = first["choices"]
        assert choice["label"] == "At the river" and choice["by"] == "seeded"
        assert set(choice["options"]) == {"Wade across", "Look for the ford"}
        # each told event is linked to its line of the script
        told = [line for line in first["lines"] if line["line"] is not None]
        text = (tmp_path / "river-veyne.drama").read_text().split("\n")
        assert told and all(line["uri"] == uri for line in told)
        narration = next(line for line in told if "Spring melt" in line["text"])
        assert text[narration["line"]].startswith("> Spring melt")
        # the writer answers the choice in the preview
        other = next(o for o in choice["options"] if o != choice["taken"])
        answered = await ask(lsp.ExecuteCommandParams("drama.preview", [uri, {"seed": 0, "choices": {
            "At the river": other}}]))
        assert answered["choices"][0]["taken"] == other and answered["choices"][0]["by"] != "seeded"
        # ... and types: the preview follows the buffer, not the file on disk
        edited = "\n".join(text).replace("Spring melt has swollen the Veyne.", "The Veyne roars.")
        await s.change("river-veyne.drama", edited)
        again = await ask(lsp.ExecuteCommandParams("drama.preview", [uri, {"seed": 0}]))
        assert any("The Veyne roars." in line["text"] for line in again["lines"])
        story = await ask(lsp.ExecuteCommandParams("drama.preview", [uri, {"seed": 0, "view": "transcript"}]))
        assert story["view"] == "transcript" and any("The Veyne roars." in l["text"] for l in story["lines"])
        # the map: scenes, choices and their options
        graph = again["map"]
        assert graph.startswith("flowchart TD") and '{"choose At the river"}' in graph
        assert again["map_svg"].startswith("<svg") and "choose At the river" in again["map_svg"]
        assert '-- "Wade across" -->' in graph and '-- "Look for the ford" -->' in graph
        # an error is shown, with where it is
        broken = await s.change("river-veyne.drama", edited.replace("choose \"At the river\"", "choose At"))
        assert broken
        bad = await ask(lsp.ExecuteCommandParams("drama.preview", [uri, {"seed": 0}]))
        assert bad["error"] and bad["error_line"] is not None
    body(tmp_path)


def test_the_map_shows_included_files(tmp_path):
    _bundled(tmp_path, "grey-ford")

    @session_test
    async def body(s: Session):
        await s.open("grey-ford.drama")
        found = await s.client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            "drama.preview", [s.uri("grey-ford.drama"), {}]))
        assert '[["include far-bank.drama"]]' in found["map"] and '"scene The Far Bank"' in found["map"]
    body(tmp_path)


# ---------------------------------------------------------------- what a writer navigates with

def _text_after(text: str, edits) -> str:
    """`text` with the edits of one file applied, as a client does (from the last to the first)."""
    lines = text.split("\n")
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        line = lines[edit.range.start.line]
        lines[edit.range.start.line] = line[:edit.range.start.character] + edit.new_text + line[edit.range.end.character:]
    return "\n".join(lines)


def test_rename_a_party_a_trait_and_a_move_across_the_cast_and_every_script(folder):
    write(folder, "scenes/more.drama", "Kara fireball -> Goblins with Sorcery, roll\nif Kara is defeated\n> gone\nend\n")
    script = SCRIPT.replace("end drama\n", 'include "scenes/more.drama"\nend drama\n')
    write(folder, "script.drama", script)
    write(folder, "scenario.yaml", SCENARIO + "roles:\n  hero: Kara\n")

    @session_test
    async def body(s: Session):
        await s.open("script.drama")
        # a party: its key in the cast, the role bound to it, every script
        where = lsp.RenameParams(**s.at("script.drama", 2, 1), new_name="Kara Vell")
        edit = await s.client.text_document_rename_async(where)
        changes = edit.changes
        assert set(changes) == {s.uri("script.drama"), s.uri("scenes/more.drama"), s.uri("cast.yaml"),
                                s.uri("scenario.yaml")}
        assert _text_after(script, changes[s.uri("script.drama")]).split("\n")[1:3] == [
            'drama "Fight" with Kara Vell, Bren, Overlord',
            '"Kara Vell" fireball -> Overlord with Sorcery + Ember Staff, rolled 6 6']
        more = _text_after((folder / "scenes/more.drama").read_text(), changes[s.uri("scenes/more.drama")])
        assert more.startswith('"Kara Vell" fireball') and "if Kara Vell is defeated" in more
        cast = _text_after(EMBERFALL_CAST, changes[s.uri("cast.yaml")])
        assert "  Kara Vell:\n    name: Kara the Ember-Witch" in cast
        assert "hero: Kara Vell" in _text_after((folder / "scenario.yaml").read_text(), changes[s.uri("scenario.yaml")])
        # a trait: Kara's only, and in her moves too
        trait = await s.client.text_document_rename_async(lsp.RenameParams(**s.at("script.drama", 2, 32),
                                                                            new_name="Pyromancy"))
        cast = _text_after(EMBERFALL_CAST, trait.changes[s.uri("cast.yaml")])
        assert "traits: {Pyromancy: 3, Agility: 1}" in cast and "fireball: Pyromancy + Ember Staff" in cast
        assert "Pyromancy" in _text_after((folder / "scenes/more.drama").read_text(),
                                          trait.changes[s.uri("scenes/more.drama")])
        # a move, from the cast
        line = EMBERFALL_CAST.split("\n").index("      fireball: Sorcery + Ember Staff")
        move = await s.client.text_document_rename_async(lsp.RenameParams(**s.at("cast.yaml", line, 8),
                                                                           new_name="firestorm"))
        assert _text_after(script, move.changes[s.uri("script.drama")]).split("\n")[2].startswith("Kara firestorm ->")
        refs = await s.client.text_document_references_async(lsp.ReferenceParams(
            **s.at("script.drama", 2, 20), context=lsp.ReferenceContext(include_declaration=True)))
        assert {r.uri for r in refs} == {s.uri("script.drama"), s.uri("cast.yaml")}
        assert len([r for r in refs if r.uri == s.uri("script.drama")]) == 3     # drama line, target, defence
    body(folder)


def test_code_actions_fix_a_did_you_mean_and_add_a_missing_defence(folder):
    @session_test
    async def body(s: Session):
        await s.open("script.drama")
        for typo, code in ((SCRIPT.replace("-> Overlord", "-> Overlrod"), "E201"),
                           (SCRIPT.replace("with Cunning", "with Cunnin"), "E202")):
            (diagnostic,) = await s.change("script.drama", typo)
            assert diagnostic.code == code
            (fix,) = await s.client.text_document_code_action_async(lsp.CodeActionParams(
                lsp.TextDocumentIdentifier(s.uri("script.drama")), diagnostic.range,
                lsp.CodeActionContext(diagnostics=[diagnostic])))
            fixed = _text_after(typo, fix.edit.changes[s.uri("script.drama")])
            assert fixed.split("\n")[diagnostic.range.start.line] == SCRIPT.split("\n")[diagnostic.range.start.line]
        bare = SCRIPT.replace("Overlord defends with Cunning, rolled 2\n", "")
        await s.change("script.drama", bare)
        (add,) = await s.client.text_document_code_action_async(lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(s.uri("script.drama")), lsp.Range(lsp.Position(2, 0), lsp.Position(2, 0)),
            lsp.CodeActionContext(diagnostics=[])))
        assert add.title == "Add a defence for Overlord"
        added = _text_after(bare, add.edit.changes[s.uri("script.drama")])
        assert added.split("\n")[3] == "Overlord defends with Cunning + Obsidian Crown, roll"
        assert [d.code for d in await s.change("script.drama", added)] == ["W004"]   # it checks (a roll may tie)
    body(folder)


def test_folding_semantic_tokens_and_workspace_symbols(folder):
    script = SCRIPT + 'choose "Next"\noption "Run"\n> away\noption "Stay"\n> here\nend\nif Kara is defeated\n> gone\nend\n'

    @session_test
    async def body(s: Session):
        await s.open("script.drama", script)
        ident = lsp.TextDocumentIdentifier(s.uri("script.drama"))
        folds = await s.client.text_document_folding_range_async(lsp.FoldingRangeParams(ident))
        spans = {(f.start_line, f.end_line) for f in folds}
        assert {(5, 10), (11, 13), (1, 4), (0, 13)} <= spans, spans
        tokens = (await s.client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(ident))).data
        legend = s.capabilities.semantic_tokens_provider.legend.token_types
        decoded, line, start = [], 0, 0
        lines = script.split("\n")
        for k in range(0, len(tokens), 5):
            dl, ds, length, kind, _ = tokens[k:k + 5]
            line, start = line + dl, (start + ds if dl == 0 else ds)
            decoded.append((lines[line][start:start + length], legend[kind]))
        assert ("Kara", "variable") in decoded and ("fireball", "function") in decoded
        assert ("Sorcery", "property") in decoded and ("Ember Staff", "enumMember") in decoded
        assert ("Cunning", "property") in decoded
        found = await s.client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="fi"))
        names = {symbol.name for symbol in found}
        assert "drama Fight" in names
        parties = await s.client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="Over"))
        assert any(p.name == "Overlord" and p.location.uri == s.uri("cast.yaml") for p in parties)
        outline = await s.client.text_document_document_symbol_async(lsp.DocumentSymbolParams(ident))
        assert [c.name for c in outline[0].children] == ["drama Fight", 'choose "Next"']
        assert [o.name for o in outline[0].children[1].children] == ['option "Run"', 'option "Stay"']
    body(folder)


# ---------------------------------------------------------------- diagnostics with their context, the cause once

def test_a_diagnostic_says_through_which_scenario_and_what_its_roles_are_there(tmp_path):
    """ashen-pass is played by two casts: `hero` is Kara in one, Ysolde in the other; Kara's trait
    is wrong only for Ysolde, and the diagnostic says so."""
    _bundled(tmp_path, "ashen-pass")
    text = (tmp_path / "ashen-pass.drama").read_text().replace(
        "hero strike -> wolves, roll", "hero strike -> wolves with Sorcery, roll", 1)

    @session_test
    async def body(s: Session):
        found = await s.open("ashen-pass.drama", text)
        (error,) = [d for d in found if d.severity == lsp.DiagnosticSeverity.Error]
        assert error.code == "E202" and "Ysolde" in error.message
        assert 'note: in the scenario with-wanderers.yaml ("The Ashen Pass (Ysolde and Anselm)"), where hero is ' \
            'Ysolde' in error.message, error.message
    body(tmp_path)


def test_one_typo_is_one_diagnostic_in_the_editor_and_on_the_command_line(tmp_path):
    """A misspelt party on the `drama` line was 10 diagnostics, 9 of them follow-ons of the dry run
    (no situation began); a misspelt trait added a stray E401 further down."""
    _bundled(tmp_path, "emberfall")
    good = (tmp_path / "throne-hall.drama").read_text()
    mutations = [good.replace("with Kara, Bren, Overlord, Goblins", "with Kara, Bren, Overlrod, Goblins", 1),
                 good.replace("with Sorcery + Ember Staff", "with Sorcry + Ember Staff", 1),
                 good.replace("Overlord crush -> Bren", "Overlord crush -> Brne", 1)]

    @session_test
    async def body(s: Session):
        await s.open("throne-hall.drama")
        for mutated in mutations:
            found = await s.change("throne-hall.drama", mutated)
            assert len([d for d in found if d.severity == lsp.DiagnosticSeverity.Error]) == 1, \
                [(d.code, d.range.start.line, d.message.split("\n")[0]) for d in found]
    body(tmp_path)
    for mutated in mutations:
        write(tmp_path, "throne-hall.drama", mutated)
        checked = drama("check", tmp_path / "scenario.yaml")
        assert checked.stderr.count("error[") == 1, checked.stderr
