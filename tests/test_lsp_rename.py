"""`drama lsp`'s rename through pygls's client (issue 26): a party, trait, treasure or move renamed in every script, in the cast split over files, and in the writer's phrases (a move's `says`, `hit`, `miss`, the clauses)."""

from __future__ import annotations

from lsprotocol import types as lsp

from conftest import EMBERFALL_SETTING, write
from dsl.pipeline import check
from test_lsp import Session, _text_after, session_test

HEROES = """\
parties:
  Kara:
    name: Kara the Ember-Witch
    quintessence: 6
    traits: {Sorcery: 3, Agility: 1}
    treasures: {Ember Staff: 2, Lucky Coin: 1}
    moves:
      fireball:
        use: Sorcery + Ember Staff
        says:
          en: "raises the Ember Staff at {target}"
          fr: "lève le Ember Staff vers {target}"
        hit: "{target} reels, and the Overlord's hall burns"
        miss: {en: "{target} ducks under the Ember Staff's flame"}
    clauses:
      but not tapestries: taking care, Ember Staff low, not to set the Overlord's tapestries alight
      so that it is over soon:
        en: >-
          a fireball thrown in haste
          by the Ember Staff
"""

FOES = """\
parties:
  Overlord:
    name: Overlord Bastrastras
    quintessence: 7
    traits: {Cunning: 3, Brutality: 2}
    treasures: {Obsidian Crown: 2}
    moves:
      crush:
        use: Brutality + Obsidian Crown
        says: {en: "brings the Obsidian Crown down on {target}"}
      defend:
        use: Cunning
        says: "the Overlord sneers, Ember Staff or no Ember Staff"
"""

SCRIPT = """\
drama "Fight" with Kara, Overlord
Kara fireball -> Overlord but not tapestries, rolled 6 6
Overlord defends, rolled 2
Overlord crush -> Kara, rolled 5 1
Kara defends with Agility + Lucky Coin, rolled 2
end drama
"""

SCENARIO = "title: T\nsetting: setting.yaml\ncast: [heroes.yaml, foes.yaml]\nscript: script.drama\n"


def _adventure(folder):
    write(folder, "setting.yaml", EMBERFALL_SETTING)
    write(folder, "heroes.yaml", HEROES)
    write(folder, "foes.yaml", FOES)
    write(folder, "script.drama", SCRIPT)
    write(folder, "scenario.yaml", SCENARIO)


def _apply(folder, s: Session, edit: lsp.WorkspaceEdit) -> dict[str, str]:
    """Every file as the client leaves it after the edit, written back; name -> text."""
    out = {}
    for name in ("heroes.yaml", "foes.yaml", "script.drama", "scenario.yaml"):
        text = (folder / name).read_text()
        edits = edit.changes.get(s.uri(name))
        if edits:
            text = _text_after(text, edits)
            write(folder, name, text)
        out[name] = text
    return out


def test_rename_reaches_the_writers_phrases_in_every_cast_file(tmp_path):
    """A treasure renamed in its move, its party's words and clauses (`Ember Staff's` too), not in
    another party's phrases; a party renamed in the phrases of every party of the cast, whichever
    file holds them; a move renamed in its party's clauses. After each rename `drama check` is clean."""
    _adventure(tmp_path)
    assert check(str(tmp_path / "scenario.yaml")) == []

    @session_test
    async def body(s: Session):
        await s.open("script.drama")
        # a treasure, from the script: `Lucky Coin`'s neighbour `Ember Staff` of Kara, from the cast
        line = HEROES.split("\n").index("    treasures: {Ember Staff: 2, Lucky Coin: 1}")
        edit = await s.client.text_document_rename_async(lsp.RenameParams(
            **s.at("heroes.yaml", line, 18), new_name="Cinder Rod"))
        files = _apply(tmp_path, s, edit)
        heroes = files["heroes.yaml"]
        assert "Ember Staff" not in heroes
        for phrase in ('en: "raises the Cinder Rod at {target}"', 'fr: "lève le Cinder Rod vers {target}"',
                       "miss: {en: \"{target} ducks under the Cinder Rod's flame\"}",
                       "taking care, Cinder Rod low,", "by the Cinder Rod", "use: Sorcery + Cinder Rod"):
            assert phrase in heroes, phrase
        assert "Ember Staff or no Ember Staff" in files["foes.yaml"]      # the Overlord's words: not his
        # a party, from the script: its key in foes.yaml, the script, and Kara's phrases in heroes.yaml
        edit = await s.client.text_document_rename_async(lsp.RenameParams(
            **s.at("script.drama", 0, 26), new_name="Tyrant"))
        files = _apply(tmp_path, s, edit)
        assert "  Tyrant:\n    name: Overlord Bastrastras" in files["foes.yaml"]
        assert "the Tyrant sneers" in files["foes.yaml"]
        assert "and the Tyrant's hall burns" in files["heroes.yaml"]
        assert "not to set the Tyrant's tapestries alight" in files["heroes.yaml"]
        assert "Overlord" not in files["script.drama"] and "Tyrant defends, rolled 2" in files["script.drama"]
        # a move, from the script: its key, and the clause that names it
        edit = await s.client.text_document_rename_async(lsp.RenameParams(
            **s.at("script.drama", 1, 7), new_name="firestorm"))
        files = _apply(tmp_path, s, edit)
        assert "      firestorm:\n" in files["heroes.yaml"] and "a firestorm thrown in haste" in files["heroes.yaml"]
        assert files["script.drama"].split("\n")[1].startswith("Kara firestorm -> Tyrant")
        # the clause's key is a qualifier as the script writes it: never renamed
        assert "      but not tapestries:" in files["heroes.yaml"]
    body(tmp_path)
    assert check(str(tmp_path / "scenario.yaml")) == []
