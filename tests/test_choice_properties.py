"""Property tests: generated adventures with choices end within their bounds under any seed and
any choice policy, and the record of a run replays to the same normalised events."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import make_scenario
from dsl.pipeline import Program, replay
from dsl.syntax.printer import normalise, record

ACTIONS = ["Kara fireball -> Goblins, roll\nGoblins defend, roll\n",
           "Goblins stab -> Bren, roll\nBren defends, roll\n",
           "Bren bash -> Goblins with Strength, roll\n"]
CONDITIONS = ["Kara is not defeated", "gold >= 2", "Goblins quintessence < 3", "wet", "not wet"]


@st.composite
def options(draw, depth: int, label: str):
    """The options of a choice: the last has no condition and no `once`, so one is always available."""
    count = draw(st.integers(1, 3))
    lines = []
    for index in range(count):
        last = index == count - 1
        head = f'option "{label} {index}"'
        if not last and draw(st.booleans()):
            head += " once"
        if draw(st.booleans()):
            head += f" weight {draw(st.integers(1, 4))}"
        if not last and draw(st.booleans()):
            head += f" if {draw(st.sampled_from(CONDITIONS))}"
        lines.append(head + "\n" + draw(body(depth + 1, f"{label}.{index}")))
    return "".join(lines)


@st.composite
def body(draw, depth: int, label: str):
    parts = []
    for index in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["action", "set", "flag", "choice", "loop"] if depth < 2 else
                                    ["action", "set", "flag"]))
        if kind == "action":
            parts.append("round\n" + draw(st.sampled_from(ACTIONS)))
        elif kind == "set":
            amount = draw(st.integers(-3, 5))
            parts.append(f"set gold = gold {'-' if amount < 0 else '+'} {abs(amount)}\n")
        elif kind == "flag":
            parts.append(f"set wet = {draw(st.sampled_from(['true', 'false']))}\n")
        elif kind == "choice":
            name = f"{label}/{index}"
            parts.append(f'choose "{name}"\n' + draw(options(depth, name)) + "end\n")
        else:
            parts.append(f"repeat {draw(st.integers(0, 3))} times\nround\n"
                         + draw(body(depth + 1, f"{label}/{index}")) + "end\n")
    return "".join(parts)


@st.composite
def adventures(draw):
    # inside a block, a defeated party's line is skipped (play after defeat)
    return ('drama "Crossing" with Kara, Bren, Goblins\nset gold = 1\nset wet = false\nrepeat 1 times\n'
            + draw(body(0, "c")) + 'choose "last"\n' + draw(options(0, "last")) + "end\nend\n")


def _bound(statements, passes: int = 1) -> int:
    """An upper bound on the choices a run can make: each `choose` block once per pass of the
    loops around it."""
    from dsl.syntax import nodes as n
    most = 0
    for s in statements:
        if isinstance(s, n.ChoiceBlock):
            most += passes + max(_bound(o.body, passes) for o in s.options)
        elif isinstance(s, n.Loop):
            most += _bound(s.body, passes * s.bound)
    return most


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=adventures(), seed=st.integers(0, 2 ** 32), policy=st.sampled_from(["seeded", "first", "last"]))
def test_generated_adventures_with_choices_end_within_bounds_and_replay(script, seed, policy):
    with tempfile.TemporaryDirectory() as folder:
        path = make_scenario(Path(folder), script)
        program = Program.compile(path)
        ask = None if policy == "seeded" else (lambda q: q.available[0 if policy == "first" else -1])
        events = program.run(seed=seed, lenient=True, ask=ask)
        made = [e for e in events if e["type"] == "choice"]
        assert 1 <= len(made) <= _bound(program.script.statements)
        for choice in made:
            offered = {o["label"]: o["available"] for o in choice["options"]}
            assert offered[choice["taken"]] is True               # never an unavailable option
            assert choice["by"] == ("seeded" if policy == "seeded" else "table")
        assert abs(events[-1]["state"]["gold"]) <= 999_999_999
        text = record(events, scenario=path)
        again = replay(path, text, seed=seed)
        assert normalise(again) == normalise(events)
        assert record(again, scenario=path) == text
