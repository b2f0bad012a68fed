"""Adding a statement (docs/architecture.md): every kind of statement has each of its places.

The kinds are enumerated from the syntax tree (`dsl.syntax.nodes.STATEMENTS`),
so a new class of statement is checked here as soon as it exists: it needs an
example below, a handler in the interpreter (the example runs and emits the
events its `events` trait names), a layout writer (`drama fmt` writes it, and
reads it back the same), a hover text (its docstring and its keywords), and a
place in the log and the transcript for each event it emits.
"""

from __future__ import annotations

import pytest

from conftest import drama, make_scenario, run_events, write
from dsl.syntax import nodes, parse
from dsl.syntax.layout import layout
from dsl.syntax.parse import Reading
from dsl.syntax.vocabulary import KEYWORDS
from dsl.syntax.writer import statement_lines, writes
from dsl.errors import Diagnostics

DRAMA = 'drama "Throne Hall" with Kara, Bren, Overlord, Goblins\n'
EXCHANGE = DRAMA + "round\nKara fireball -> Overlord, rolled 6 6 4\nOverlord defends with Cunning, rolled 5 1\n"
DOUBLE = DRAMA + "round\nKara fireball -> Goblins, rolled 6\n"
IF = "if Kara is defeated\n> one\nelse if in drama\n> two\nelse\n> three\nend\n"
REPEAT = "repeat 2 times\n> again\nend\n"
CHOOSE = 'choose "The path", chose "Left"\noption "Left"\n> left\noption "Right" once weight 2\nend\n'

# one short script for each kind of statement, which holds it and runs (Emberfall's cast)
EXAMPLES: dict[type, str] = {
    nodes.Scene: 'scene "The Hall"\n',
    nodes.Narration: "> Dust falls from the rafters.\n",
    nodes.DramaBegin: 'drama "The Hearing" with Kara, Overlord, a debate, rounds of 1 minute\n',
    nodes.Initiative: DRAMA + "initiative Kara 5, Bren 4, Overlord 3, Goblins 2\n",
    nodes.Round: DRAMA + "round\n",
    nodes.Action: EXCHANGE,
    nodes.Defence: EXCHANGE,
    nodes.Hold: DRAMA + "round\nKara holds\n",
    nodes.MemberLost: DRAMA + 'Goblins lose member "Snik"\n',
    nodes.Tie: DRAMA + "round\nKara strikes -> Overlord, rolled 5\nOverlord defends, rolled 5\ntie Kara\n",
    nodes.Split: DRAMA + "Kara fireball -> Goblins, rolled 6 6\nGoblins & Overlord defend\n"
                         "  Goblins with Numbers + Rusty Spears, rolled 4\n  Overlord with Cunning\n"
                         "split Goblins 2, Overlord 1\n",
    nodes.Dictate: DOUBLE + 'Kara dictates "the chandelier crashes down"\n',
    nodes.Reroll: DRAMA + "Kara fireball -> Goblins, rolled 6 6\nGoblins defend with Numbers\n"
                          "Goblins stab -> Kara with Numbers + Rusty Spears, rolled 1\n"
                          "Kara defends with Agility + Lucky Coin\nGoblins rerolls, rolled 3 1 5 2\n",
    nodes.Recover: EXCHANGE + "end drama\ncalm 1 minute\nOverlord recovers, rolled 6 4 2 1\n",
    nodes.EndDrama: DRAMA + 'end drama "The Overlord yields."\n',
    nodes.Calm: "calm 1 hour\n",
    nodes.Rest: "rest 2 days\n",
    nodes.Include: 'include "more.drama"\n',
    nodes.If: IF, nodes.ElseIf: IF, nodes.Else: IF, nodes.End: IF, nodes.IfBlock: IF,
    nodes.Repeat: REPEAT, nodes.Loop: REPEAT,
    nodes.Choose: CHOOSE, nodes.OptionLine: CHOOSE, nodes.ChoiceBlock: CHOOSE,
    nodes.SetState: "set gold = 3\nset gold = gold + 2 - Kara damage\nset lost\nset found = false\n",
    nodes.Expect: "set gold = 3\nexpect gold > 2\n",
}
INCLUDED = "> Read from another file.\n"


def _lines(text: str) -> list[nodes.Statement]:
    """The statements of a script one line each, blocks not nested (as `drama fmt` reads them)."""
    return list(Reading("example.drama", 0, text.split("\n")).plain(Diagnostics.of(None)).statements)


def _scenario(tmp_path, kind):
    write(tmp_path, "more.drama", INCLUDED)
    return make_scenario(tmp_path, EXAMPLES[kind])


def test_every_kind_of_statement_has_an_example():
    missing = [kind.__name__ for kind in nodes.STATEMENTS if kind not in EXAMPLES]
    assert not missing, f"add an example of each new statement to tests/test_statements.py: {missing}"


@pytest.mark.parametrize("kind", nodes.STATEMENTS, ids=lambda kind: kind.__name__)
def test_the_example_holds_its_kind(kind):
    found = {type(s) for s in nodes.walk(parse(EXAMPLES[kind], "example.drama").statements)}
    found |= {type(s) for s in _lines(EXAMPLES[kind])}
    assert kind in found


@pytest.mark.parametrize("kind", nodes.STATEMENTS, ids=lambda kind: kind.__name__)
def test_every_kind_has_a_layout_writer(kind):
    """`drama fmt` lays out every kind (issue 25): its writer writes it, and it reads back the same."""
    assert writes(kind), f"dsl/syntax/writer.py has no `Writer.{kind.__name__}`"
    text = EXAMPLES[kind]
    statements = [s for s in (*nodes.walk(parse(text, "example.drama").statements), *_lines(text))
                  if type(s) is kind]
    for s in statements:
        written = statement_lines(s)
        if not kind.block_line:     # (a block's own line reads only with the rest of its block)
            assert [type(x) for x in parse("\n".join(written) + "\n", "again.drama").statements] == [kind]
    messy = "\n".join(line.replace(" ", "   ", 1) + "  " for line in text.split("\n"))     # `set   gold = 3`
    assert layout(messy, "example.drama") == layout(text, "example.drama")
    assert layout(text, "example.drama") == text, "the example is written in the canonical layout"


@pytest.mark.parametrize("kind", nodes.STATEMENTS, ids=lambda kind: kind.__name__)
def test_every_kind_has_a_hover_text(kind):
    from dsl.lsp.server import KEYWORD_HELP
    assert kind.summary(), f"{kind.__name__} needs a docstring: its first line is the hover text"
    assert kind.words, f"{kind.__name__} needs its keywords (`words`)"
    unknown = [w for w in kind.words if w not in KEYWORDS and w not in (">", "->")]
    assert not unknown, f"{kind.__name__}.words are not keywords of the grammar: {unknown}"
    first = kind.words[0]
    if first in KEYWORDS:
        assert KEYWORD_HELP[first] == nodes.node_of_word(first).summary()


@pytest.mark.parametrize("kind", [k for k in nodes.STATEMENTS if not k.block_line], ids=lambda kind: kind.__name__)
def test_every_kind_has_a_handler_and_emits_its_events(kind, tmp_path):
    """The interpreter runs every kind (no E004 for a kind it has no handler for), and it
    emits the events its `events` trait names (which the log and the transcript tell)."""
    events = run_events(_scenario(tmp_path, kind))
    lines = {s.pos.line for s in nodes.walk(parse(EXAMPLES[kind], "x.drama").statements) if type(s) is kind}
    types = {e["type"] for e in events if e["line"] in lines and e["type"] != "skipped"}
    from dsl.syntax.printer import record
    assert record(events)       # the printer writes the run back (drama run --record)
    if kind is nodes.Include:
        return          # its statements' events, from the other file
    if kind.events:     # (the lines of an exchange emit its events at the action's line)
        assert kind.events[0] in types, f"{kind.__name__} emits {sorted(types)}, not {kind.events[0]}"
    assert types <= set(kind.events), f"{kind.__name__} emits {sorted(types)}: say so in its `events`"


def _told_by_the_transcript(event_type: str) -> bool:
    """Whether the transcript's model has an entry for events of this type: the render's
    `told` when it has one, else its builder has a handler (`_on_TYPE`) for it."""
    from dsl import render
    told = getattr(render, "told", None)
    if told is not None:
        return told(event_type)
    from dsl.render import context
    return hasattr(context._Builder, f"_on_{event_type}")


def _told_by_the_log(event_type: str) -> bool:
    from dsl.render.filters import control
    return control({"type": event_type}) != event_type


@pytest.mark.parametrize("event_type", sorted({t for k in nodes.STATEMENTS for t in k.events}))
def test_every_event_a_statement_emits_has_a_place_in_the_transcript_or_the_log(event_type):
    """Each event a statement emits is told: by the transcript, or (control flow: `branch`,
    `loop`, `set`) by the log alone."""
    assert _told_by_the_transcript(event_type) or _told_by_the_log(event_type), \
        f"the renderer does not know the event {event_type!r}: the transcript would say nothing of it"


@pytest.mark.parametrize("kind", [k for k in nodes.STATEMENTS if k.events and not k.block_line],
                         ids=lambda kind: kind.__name__)
def test_the_log_shows_each_statement(kind, tmp_path):
    """`drama run` (the session log) has a line for each statement that emits events."""
    outcome = drama("run", _scenario(tmp_path, kind))
    assert outcome.code == 0, outcome.output
    shown = {line.split()[0] for line in outcome.stdout.splitlines() if line[:4].strip().isdigit()}
    lines = {str(s.pos.line) for s in nodes.walk(parse(EXAMPLES[kind], "x.drama").statements) if type(s) is kind}
    assert lines <= shown or kind is nodes.Include
