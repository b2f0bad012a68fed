"""Hardening, rounds three and four (issues 27 and 30): each class of fault the
independent fuzzer found, one regression test per class, named after it."""

from __future__ import annotations

import dsl
from dsl.checker import check_script
from dsl.engine import PartySheet
from dsl.names import Names


def sheet(pid: str, **fields) -> PartySheet:
    return PartySheet(id=pid, name=pid, quintessence=fields.pop("quintessence", 5), **fields)


# ---------------------------------------------------------------------------
# issue 27.1: a party whose sheet failed to load is "failed" for every later stage

def test_a_failed_party_is_one_diagnostic_never_a_lookup_error():
    names = Names([sheet("Overlord", traits={"Cunning": 3})], roles={"hero": "Ysolde"})
    script = dsl.parse("drama Hall with hero, Overlord\nif in drama\n"
                       "hero strike -> Overlord with Swordplay\n"
                       "hero strike -> Overlord with Swordplay\n"
                       "hero lose member Grub\n"
                       "if hero's quintessence > 3\n> x\nend\nend\n", "s.drama")
    found = check_script(script, names)
    failed = [e for e in found if "did not load" in e.message]
    assert len(failed) == 1 and failed[0].code == "E201"
    assert names.uses("Ysolde", script.statements[1].arms[0].body[0].uses) == (None, None)
    assert names.words_of("Ysolde") == [] and names.move("Ysolde", "defend") is None
