"""`drama fmt`: the canonical layout, comments and blank lines kept, idempotent, safe (never a file that
does not parse, atomic writes), `--check` with a diff; a property over generated scripts."""

from __future__ import annotations

import os
import stat

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import dsl
from conftest import SCENARIOS, drama, write
from dsl.errors import DramaError
from dsl.interpreter import Interpreter
from dsl.syntax.layout import layout
from dsl.syntax.printer import normalise
from test_control import _round_loop
from test_record import Generator, generated_cast, generated_settings

MESSY = """\
# a comment at the top
scene   The Hall    # the first scene
>   Torches gutter.



drama "Throne Hall"   with Kara,Bren ,  Overlord
initiative Kara 5,Bren 2 ,Overlord 6
  # the round begins
Overlord   crush->Bren with Brutality+Obsidian Crown ,rolled 6 2
Bren defends   with Strength + Iron Shield,rolled 3 1
Kara & Bren "pin him" -> Overlord
    # Kara first
\tKara with Sorcery ,   GM +1
  Bren with Strength, roll
Overlord defend
if  Kara quintessence <3
Kara recovers ,roll
end
end drama   "The end."  # done


"""

LAID_OUT = """\
# a comment at the top
scene "The Hall"  # the first scene
> Torches gutter.

drama "Throne Hall" with Kara, Bren, Overlord
initiative Kara 5, Bren 2, Overlord 6
# the round begins
Overlord crush -> Bren with Brutality + Obsidian Crown, rolled 6 2
Bren defends with Strength + Iron Shield, rolled 3 1
Kara & Bren "pin him" -> Overlord
  # Kara first
  Kara with Sorcery, GM +1
  Bren with Strength, roll
Overlord defend
if Kara quintessence <3
Kara recovers, roll
end
end drama "The end."  # done
"""


def test_the_canonical_layout_keeps_comments_and_blank_lines():
    assert layout(MESSY) == LAID_OUT
    assert layout(LAID_OUT) == LAID_OUT


def test_names_are_bare_where_they_read_back_and_quoted_where_not():
    text = ('drama "Fight" with "Kara", "Lady with the Lamp", "round"\n'
            '"Kara" "strike" -> "Lady with the Lamp" but not "the roll of the dice" with "Sorcery"\n'
            '"round" holds\n')
    assert layout(text) == ('drama "Fight" with Kara, "Lady with the Lamp", round\n'
                            # a quoted intent keeps its quotes: the writer's verb phrase (issue 15)
                            'Kara "strike" -> "Lady with the Lamp" but not the roll of the dice with Sorcery\n'
                            '"round" holds\n')


def test_line_ends_bom_and_a_missing_final_newline():
    assert layout("\ufeffround\r\nround\r\n\r\n\r\nround") == "round\nround\n\nround\n"
    assert layout("") == "" and layout("\n\n# only a comment\n\n") == "# only a comment\n"


def test_a_hash_in_quoted_text_is_not_a_comment():
    text = 'scene "Room # 4"   # a comment\n> She says "stop # now".\n'
    assert layout(text) == 'scene "Room # 4"  # a comment\n> She says "stop # now".\n'


def test_the_bundled_scripts_are_laid_out():
    outcome = drama("fmt", "--check", SCENARIOS)
    assert outcome.code == 0, outcome.output
    assert outcome.stdout == "" and "0 would be laid out" in outcome.stderr


def test_fmt_writes_in_place_keeping_the_permissions(tmp_path):
    path = write(tmp_path, "a.drama", MESSY)
    os.chmod(path, 0o640)
    outcome = drama("fmt", path)
    assert outcome.code == 0, outcome.output
    assert path.read_text() == LAID_OUT
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.drama"]       # no temporary file left
    assert f"{path}: laid out" in outcome.stderr and "1 laid out, 0 unchanged" in outcome.stderr
    again = drama("fmt", path)
    assert again.code == 0 and "0 laid out, 1 unchanged" in again.stderr


def test_check_shows_a_diff_exits_1_and_changes_nothing(tmp_path):
    path = write(tmp_path, "a.drama", MESSY)
    outcome = drama("fmt", "--check", path)
    assert outcome.code == 1
    assert path.read_text() == MESSY
    assert f"--- {path} (as it is)" in outcome.stdout and f"+++ {path} (laid out)" in outcome.stdout
    assert "-drama \"Throne Hall\"   with Kara,Bren ,  Overlord\n" in outcome.stdout
    assert "+drama \"Throne Hall\" with Kara, Bren, Overlord\n" in outcome.stdout
    assert "1 would be laid out" in outcome.stderr


def test_a_script_that_does_not_parse_is_reported_and_left_alone(tmp_path):
    bad = write(tmp_path, "bad.drama", "round\nKara fireball ->\n")
    good = write(tmp_path, "good.drama", "round  \n")
    before = bad.stat().st_mtime_ns
    outcome = drama("fmt", tmp_path)
    assert outcome.code == 1
    assert f"{bad}:2:" in outcome.stderr and "error[E001]" in outcome.stderr
    assert bad.read_text() == "round\nKara fireball ->\n" and bad.stat().st_mtime_ns == before
    assert good.read_text() == "round\n"                        # the others are still laid out
    assert "1 laid out, 0 unchanged, 1 with errors" in outcome.stderr


def test_paths_that_are_not_scripts(tmp_path):
    missing = drama("fmt", tmp_path / "nothing.drama")
    assert missing.code == 1 and "error[E510]: there is no file or folder" in missing.stderr
    yaml = write(tmp_path, "scenario.yaml", "title: x\n")
    outcome = drama("fmt", yaml)
    assert outcome.code == 1 and "error[E510]" in outcome.stderr and "is not a script" in outcome.stderr
    latin = write(tmp_path, "latin.drama", "> caf\xe9\n".encode("latin-1"))
    outcome = drama("fmt", latin)
    assert outcome.code == 1 and "is not UTF-8" in outcome.stderr
    assert latin.read_bytes() == "> caf\xe9\n".encode("latin-1")
    assert drama("fmt").code == 2


def test_every_kind_of_statement_is_laid_out():
    """`drama fmt` lays out every kind (issue 25): `set`, `expect`, `choose`, `option`, `lose
    member` and a `drama` line with its kind of scene and its rounds were left as typed."""
    messy = ('drama   "Hearing"   with   Kara,  Overlord,   a debate,   rounds of 1 minute\n'
             'set   gold   =   3\nset gold=gold+2 - Kara damage\nset  lost\nset found =  false\n'
             'expect   gold > 2\nGoblins   lose member   "Snik"\n'
             'choose   "Door" ,  chose "Knock"\noption   "Knock"   once   weight  2  if  gold > 1\n'
             'option "Leave"\nend\nBren recovers, rolled 6 4 2,   rerolling 2 to 4\n')
    assert layout(messy) == ('drama "Hearing" with Kara, Overlord, a debate, rounds of 1 minute\n'
                             'set gold = 3\nset gold = gold + 2 - Kara damage\nset lost\nset found = false\n'
                             'expect gold > 2\nGoblins lose member "Snik"\n'
                             'choose "Door", chose "Knock"\noption "Knock" once weight 2 if gold > 1\n'
                             'option "Leave"\nend\nBren recovers, rolled 6 4 2, rerolling 2 to 4\n')


def test_the_condition_of_an_if_is_kept_as_written():
    # its text is in the event log (the `branch` event), so it is not rewritten
    assert layout("if   Kara quintessence<3\nend\n") == "if Kara quintessence<3\nend\n"


def test_a_statement_the_printer_does_not_know_is_kept_as_written(monkeypatch):
    # as a statement added to the language before the printer learns it would be
    from dsl.syntax import layout as module
    known = module.statement_lines

    def not_rounds(statement, *, verb=None):
        if type(statement).__name__ == "Action":
            raise ValueError("unknown")
        return known(statement, verb=verb)
    monkeypatch.setattr(module, "statement_lines", not_rounds)
    text = "round  \nKara  &  Bren hit->Overlord   # a note\n    Kara   with Sorcery\n  Bren\n"
    assert layout(text) == "round\nKara  &  Bren hit->Overlord  # a note\n  Kara   with Sorcery\n  Bren\n"


# ---------------------------------------------------------------- the property

def _generated_script(data, setting, cast, seed) -> str:
    """A script drawn statement by statement, each kept only if it runs (as tests/test_record.py does)."""
    def attempt(lines):
        interpreter = Interpreter(setting, cast, title="Generated", seed=seed, lenient=True)
        try:
            interpreter.run(dsl.parse("\n".join(lines) + "\n", "generated.drama"))
        except DramaError:
            return None
        return interpreter

    generator = Generator(data, cast)
    accepted: list[str] = []
    interpreter = attempt(accepted)
    for _ in range(data.draw(st.integers(5, 20))):
        candidate = generator.statement(interpreter)
        tried = attempt(accepted + candidate)
        if tried is not None:
            accepted += candidate
            interpreter = tried
            generator.last = generator.kind
    return "\n".join(accepted) + "\n"


def _messed(data, text: str) -> str:
    """The same script with spaces, blank lines and comments added where the grammar ignores them."""
    out = []
    for line in text.split("\n"):
        if '"' not in line and not line.startswith(">"):
            line = line.replace(" -> ", data.draw(st.sampled_from([" -> ", "->", "  ->   "])))
            line = line.replace(", ", data.draw(st.sampled_from([", ", ",", " ,  "])))
        out.append(line + data.draw(st.sampled_from(["", "", "   "] + (["  # a note"] if line else []))))
        if data.draw(st.integers(0, 5)) == 0:
            out.append(data.draw(st.sampled_from(["", "", "# between", "   "])))
    return "\n".join(out)


def _run(setting, cast, text: str, seed: int) -> list[dict]:
    return Interpreter(setting, cast, title="Generated", seed=seed, lenient=True).run(dsl.parse(text, "g.drama"))


# (no shrinking: it takes minutes on these scripts; a failure prints the whole drawn script)
@settings(max_examples=25, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(data=st.data(), setting=generated_settings(), cast=generated_cast(), seed=st.integers(0, 2**32 - 1))
def test_property_fmt_is_idempotent_and_the_script_runs_the_same(data, setting, cast, seed):
    script = _generated_script(data, setting, cast, seed)
    once = layout(script)
    assert layout(once) == once
    assert normalise(_run(setting, cast, once, seed)) == normalise(_run(setting, cast, script, seed))
    messy = _messed(data, script)
    assert layout(layout(messy)) == layout(messy)
    assert _strip_notes(layout(messy)) == once


def _strip_notes(text: str) -> str:
    """The laid out text without the comments and blank lines `_messed` added."""
    lines = [line.removesuffix("  # a note") for line in text.split("\n") if line not in ("# between", "")]
    return "\n".join(lines) + "\n"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(loops=st.lists(_round_loop(0), min_size=1, max_size=2), seed=st.integers(0, 2**16), data=st.data())
def test_property_control_flow_is_laid_out_and_runs_the_same(loops, seed, data):
    script = 'drama "Brawl" with Kara, Goblins\ninitiative\n' + "\n".join(sum(loops, [])) + "\nend drama\n"
    setting = dsl.engine.Settings(ties="actor")
    cast = (dsl.engine.PartySheet("Kara", "Kara", 6, {"Sorcery": 3}, {},
                                  moves={"strike": dsl.engine.Move("Sorcery", None),
                                         "defend": dsl.engine.Move("Sorcery", None)}),
            dsl.engine.PartySheet("Goblins", "Goblins", 4, {"Numbers": 2}, {},
                                  moves={"strike": dsl.engine.Move("Numbers", None),
                                         "defend": dsl.engine.Move("Numbers", None)}))
    messy = _messed(data, script)
    once = layout(messy)
    assert layout(once) == once
    assert normalise(_run(setting, cast, once, seed)) == normalise(_run(setting, cast, script, seed))
