"""The loader: setting, cast and scenario YAML -> Settings, PartySheets and a Scenario, with positions.

The package is in three layers: `yamlnodes` reads a file and composes it into
checked nodes with positions, `fields` holds the validators of one value, and
`schemas` the keys and fields of each file. This module is the public API.

How it reads YAML
-----------------
Each file is decoded as UTF-8 (an optional BOM is dropped) and *composed* with
ruamel.yaml into a node tree; no ruamel constructor ever runs on a mapping or a
list, and no Python object is ever built from a tag. The loader then:

1. walks every node once (iteratively, aliases visited once) and checks that its
   tag is one of the plain YAML tags (str, int, float, bool, null, map, seq,
   timestamp, merge); anything else, `!!python/object/apply:...` included, is
   E106 at the tag. Each scalar is converted with ruamel's *safe* constructor
   (a failure such as `!!int abc` is E104). Duplicate keys in one mapping are
   E102 at the second key, with a note naming the first. (ruamel's own duplicate
   check, `allow_duplicate_keys = False`, is left on; it never gets to run
   because the loader builds its values from the nodes itself.)
2. validates the tree against the schema of the file (see `SETTING_KEYS`,
   `PARTY_KEYS`, `SCENARIO_KEYS`), taking every position from the nodes' marks,
   so every error points at the key or value at fault (1-based line:column,
   with an end column for the caret where the token sits on one line).

Merge keys (`<<: *base`) are honoured: a mapping's own keys win over merged
ones, and merged keys keep the position where they are written.

Dates (`2024-01-01`) are read as text: no field of these files takes a date.

Error codes
-----------
E101 unreadable YAML (syntax, bad characters, not UTF-8, nested too deeply);
E102 duplicate key; E103 unknown key (with did-you-mean); E104 wrong type or
form, bad party id, bad choice; E105 missing required key; E106 tag not allowed;
E107 duration that cannot be read; E108 file missing or unreadable (pointing at
the scenario key that names it); E109 party defined twice; E110 move naming a
trait or treasure the party lacks.

Collecting errors
-----------------
Each `load_*` takes `errors=`: a list (or a `Diagnostics` sink). Without it the
first error is raised. With it, every error found is reported into it once (as
`Diagnostics` does) and loading goes on with what is valid (a bad setting key
keeps its default, a bad party field is dropped or zeroed, a party with a bad id
is skipped); `ErrorList` (a DramaError) is raised, holding the errors of this
call, only when nothing usable can be built (the file given cannot be read or
parsed, or its top level is not a mapping). When the list
has grown, the returned object is only good for checking, not for running.
"""

from __future__ import annotations

import dataclasses
import os

from ..engine.parties import PartySheet, Settings
from ..errors import Diagnostics, DramaError, did_you_mean, one_of
from .fields import BAD, DURATION_FORM, PARTY_ID_FORBIDDEN, RESERVED_IDS, ROUND_FORM  # noqa: F401 - re-exported
from .cast import read_cast
from .scenario import read_scenario, read_setting
from .schemas import (  # noqa: F401 - the constants are re-exported
    CAST_KEYS, DICE_KEYS, PARTY_KEYS, SCENARIO_KEYS, SETTING_KEYS, SHEET_NAME_FORBIDDEN, Scenario, ScriptSource,
)
from .yamlnodes import Context, Fatal, Skip, YamlFile

__all__ = [
    "ScriptSource", "Scenario",
    "load_setting", "load_cast", "load_scenario",
    "loads_setting", "loads_cast", "loads_scenario",
    "SETTING_KEYS", "DICE_KEYS", "CAST_KEYS", "PARTY_KEYS", "SCENARIO_KEYS",
]


def load_setting(path, *, errors: Diagnostics | list | None = None) -> Settings:
    """Read a setting YAML file into Settings; every key is optional."""
    ctx = Context(errors)
    with ctx.fatal_on_failure():
        f = YamlFile.read(_fspath(path), ctx, what="setting file")
        return read_setting(f, ctx)


def loads_setting(text: str, file: str = "<setting>", *, errors: Diagnostics | list | None = None) -> Settings:
    """Like `load_setting`, from text; `file` is used in positions."""
    ctx = Context(errors)
    with ctx.fatal_on_failure():
        return read_setting(YamlFile.parse(file, text, ctx), ctx)


def load_cast(paths, *, errors: Diagnostics | list | None = None, state: dict | None = None) -> tuple[PartySheet, ...]:
    """Read one or several cast YAML files into PartySheets, in the order defined.

    `paths` is a list of paths (a single path is accepted too). A party id may be
    defined in only one place across all the files (E109).
    """
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    ctx = Context(errors)
    with ctx.fatal_on_failure():
        files = []
        for path in paths:
            try:
                files.append(YamlFile.read(_fspath(path), ctx, what="cast file"))
            except Skip:
                pass
        if not files and paths:
            raise Fatal
        return read_cast(files, ctx, state)


def loads_cast(text: str, file: str = "<cast>", *, errors: Diagnostics | list | None = None) -> tuple[PartySheet, ...]:
    """Like `load_cast` for one file, from text; `file` is used in positions."""
    ctx = Context(errors)
    with ctx.fatal_on_failure():
        return read_cast([YamlFile.parse(file, text, ctx)], ctx)


def load_scenario(path, *, errors: Diagnostics | list | None = None) -> Scenario:
    """Read a scenario YAML and the setting, cast and script it names.

    Paths in the scenario are relative to its folder, and positions keep them
    as the user gave them (joined with the scenario's folder).
    """
    ctx = Context(errors)
    with ctx.fatal_on_failure():
        path = _fspath(path)
        return read_scenario(YamlFile.read(path, ctx, what="scenario file"), ctx)


def bind(scenario: Scenario, cast: list | None = None, roles: dict[str, str] | None = None) -> Scenario:
    """The scenario with another cast (`cast`: cast files, which replace its own)
    and roles bound or rebound (`roles`: role -> party id, as `--role hero=Kara`).

    Every role must end bound to a party of the cast (E204); the error lists the
    roles and the parties.
    """
    state: dict = {}
    sheets = load_cast(cast, state=state) if cast else scenario.cast
    ids = [sheet.id for sheet in sheets]
    bound = dict(scenario.roles)
    for role, party in (roles or {}).items():
        if role not in bound:
            raise DramaError("E204", f"the scenario has no role '{role}'",
                             expected=f"one of the roles {one_of(bound)}" if bound else "no --role: it has no roles",
                             hint=did_you_mean(role, bound))
        bound[role] = party
    listing = ", ".join(f"{role}={party or '?'}" for role, party in bound.items())
    for role, party in bound.items():
        position = scenario.role_positions.get(role)
        if role in ids:
            raise DramaError("E204", f"the role '{role}' has the name of a party of the cast", position=position,
                             expected="a role name that is not a party id", notes=[f"roles: {listing}"])
        if party is None:
            raise DramaError("E204", f"the role '{role}' is not bound to a party", position=position,
                             expected=f"--role {role}=PARTY, with PARTY one of {one_of(ids)}",
                             notes=[f"roles: {listing}"])
        if party not in ids:
            raise DramaError("E204", f"the role '{role}' is bound to '{party}', which is not in the cast",
                             position=position, expected=f"one of {one_of(ids)}",
                             hint=did_you_mean(party, ids), notes=[f"roles: {listing}"])
    if not cast:
        return dataclasses.replace(scenario, roles=bound)
    cast_files = tuple(map(_fspath, cast))
    files = tuple(f for f in scenario.files if f not in scenario.cast_files) + cast_files
    return dataclasses.replace(scenario, cast=tuple(sheets), roles=bound, files=files, cast_files=cast_files,
                               state=state)


def loads_scenario(text: str, file: str = "scenario.yaml", *, errors: Diagnostics | list | None = None) -> Scenario:
    """Like `load_scenario`, from text; the files it names are read relative to `file`'s folder."""
    ctx = Context(errors)
    with ctx.fatal_on_failure():
        return read_scenario(YamlFile.parse(file, text, ctx), ctx)


def _fspath(path) -> str:
    try:
        return os.fspath(path)
    except TypeError:
        raise DramaError("E108", f"not a file path: {path!r}") from None
