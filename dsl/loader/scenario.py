"""Reading setting and scenario files: the rules' knobs, and a scenario with its setting, casts and script loaded."""

from __future__ import annotations

import os
import re
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..engine.parties import Settings
from ..errors import Position, one_of
from .cast import read_cast
from .fields import BAD, Bad, describe, expect_field, expect_int, expect_mapping, expect_path, known_keys, party_id_ok, take
from .schemas import DICE, SCENARIO, SETTING, SETTING_KEYS, Scenario, ScriptSource
from .yamlnodes import Context, Fatal, Skip, YamlFile, read_text

# ---------------------------------------------------------------------------
# Setting

def read_setting(f: YamlFile, ctx: Context) -> Settings:
    root = f.root
    if root is None or (isinstance(root, ScalarNode) and f.value(root) is None and not f.is_bad(root)):
        return Settings()
    if not isinstance(root, MappingNode):
        if not f.is_bad(root):
            ctx.report("E104", f"a setting file must be a mapping of keys to values, not {describe(f, root)}",
                       f.pos(root), expected=f"keys among {one_of(SETTING_KEYS)}")
        raise Skip
    values: dict[str, Any] = {}
    for key, (key_node, node) in known_keys(f, root, ctx, SETTING, "the setting").items():
        if SETTING[key].items is DICE:
            value = _dice(f, key_node, node, ctx)
            if not isinstance(value, Bad):
                values.update(value)
            continue
        value = expect_field(f, key_node, node, ctx, SETTING[key])
        if not isinstance(value, Bad):
            values[key] = value
    return Settings(**values)


def _dice(f: YamlFile, key: Node, node: Node, ctx: Context) -> dict | Bad:
    mapping = expect_mapping(f, key, node, ctx, "'dice'")
    if mapping is None or isinstance(mapping, Bad):
        return BAD
    found = known_keys(f, mapping, ctx, DICE, "'dice'")
    out: dict[str, int] = {}
    sides: int | Bad = DICE["sides"].default
    if "sides" in found:
        sides = expect_field(f, *found["sides"], ctx, DICE["sides"])
        if not isinstance(sides, Bad):
            out["sides"] = sides
    if "high" in found:
        high_field = DICE["high"]
        high = expect_int(f, *found["high"], ctx, high_field.label, low=high_field.minimum,
                          high=sides if not isinstance(sides, Bad) else None,
                          high_why=" (the number of sides)")
        if not isinstance(high, Bad) and not isinstance(sides, Bad):
            out["high"] = high     # (with bad sides, a high beyond the default's would be a second error)
    if "sides" in out and "high" not in out:
        out["high"] = out["sides"]   # with only `sides` (or a bad `high`), the top face is high
    return out


# ---------------------------------------------------------------------------
# Scenario

def read_scenario(f: YamlFile, ctx: Context) -> Scenario:
    root = f.root
    expected = "the keys 'title', 'cast' and 'script' (and 'setting')"
    if root is None or (isinstance(root, ScalarNode) and f.value(root) is None and not f.is_bad(root)):
        ctx.report("E105", "the scenario file is empty: it needs 'title', 'cast' and 'script'",
                   Position(f.path, 1, 1), expected=expected)
        raise Fatal
    if not isinstance(root, MappingNode):
        if not f.is_bad(root):
            ctx.report("E104", f"a scenario file must be a mapping of keys to values, not {describe(f, root)}",
                       f.pos(root), expected=expected)
        raise Fatal
    found = known_keys(f, root, ctx, SCENARIO, "the scenario")
    folder = os.path.dirname(f.path)
    hint = f"paths are relative to the scenario's folder ('{folder or '.'}')"

    def given(key: str) -> tuple[Node, Node] | None:
        return take(found, SCENARIO, key, ctx, "the scenario", f.pos(root))

    title: str | Bad = SCENARIO["title"].default
    if (pair := given("title")) is not None:
        title = expect_field(f, *pair, ctx, SCENARIO["title"])

    setting_node = None
    if (pair := given("setting")) is not None:
        path = expect_path(f, *pair, ctx, "'setting'", "a path to a setting YAML file")
        if not isinstance(path, Bad):
            setting_node = (path, pair)

    cast_paths: list[tuple[str, Position]] = []
    if (pair := given("cast")) is not None:
        cast_paths = _cast_paths(f, *pair, ctx, folder)

    script_spec = None
    if (pair := given("script")) is not None:
        script_spec = _script_spec(f, *pair, ctx)

    roles: dict[str, str | None] = {}
    role_positions: dict[str, Position] = {}
    if (pair := given("roles")) is not None:
        key_node, node = pair
        if isinstance(node, MappingNode):
            for role, role_key, value_node in f.items(node, ctx):
                if not party_id_ok(f, role, role_key, ctx):
                    continue
                value = f.value(value_node) if isinstance(value_node, ScalarNode) else BAD
                if not (isinstance(value, str) or (value is None and SCENARIO["roles"].items.empty_ok)):
                    ctx.report("E104", f"the role '{role}' must name a party id of the cast, or be empty "
                               "(bound with --role)", f.value_pos(role_key, value_node),
                               expected=f"{role}: PARTY")
                    continue
                roles[role] = value
                role_positions[role] = f.pos(role_key)
        elif not (SCENARIO["roles"].empty_ok and isinstance(node, ScalarNode) and f.value(node) is None):
            ctx.report("E104", f"'roles' must be a mapping of role names to party ids, not {describe(f, node)}",
                       f.value_pos(key_node, node), expected="roles: {hero: Kara, villain: Overlord}")

    setting = Settings()
    read = [f.path]
    if setting_node is not None:
        value, (key_node, node) = setting_node
        read.append(os.path.join(folder, value))
        try:
            sf = YamlFile.read(os.path.join(folder, value), ctx, what="setting file",
                            named_at=f.value_pos(key_node, node), hint=hint)
            setting = read_setting(sf, ctx)
        except Skip:
            pass

    files = []
    for path, named_at in cast_paths:
        read.append(path)
        try:
            files.append(YamlFile.read(path, ctx, what="cast file", named_at=named_at, hint=hint))
        except Skip:
            pass
    state: dict = {}
    cast = read_cast(files, ctx, state)

    script = ScriptSource(f.path, "", 0)
    if script_spec is not None:
        script = _script(f, script_spec, folder, ctx, hint)

    if script.file not in read:
        read.append(script.file)
    return Scenario(title=title if isinstance(title, str) else "", path=f.path, setting=setting,
                    cast=cast, script=script, files=tuple(read),
                    cast_files=tuple(path for path, _ in cast_paths), roles=roles,
                    role_positions=role_positions, state=state)



def _cast_paths(f: YamlFile, key: Node, node: Node, ctx: Context, folder: str) -> list[tuple[str, Position]]:
    expected = "a path to a cast YAML file, or a list of them"
    if f.is_bad(node):
        return []
    items: list[tuple[Node, Node]]
    if isinstance(node, SequenceNode):
        items = [(key, item) for item in node.value]
        if not items:
            ctx.report("E104", "'cast' names no file", f.value_pos(key, node), expected=expected)
    else:
        items = [(key, node)]
    out: list[tuple[str, Position]] = []
    seen: dict[str, Position] = {}
    for k, item in items:
        value = expect_path(f, k, item, ctx, "'cast'", expected)
        if isinstance(value, Bad):
            continue
        path = os.path.join(folder, value)
        where = f.value_pos(k, item)
        norm = os.path.normpath(path)
        if norm in seen:
            ctx.report("E104", f"the cast file '{value}' is listed twice", where,
                       notes=[f"first listed at {seen[norm]}"])
            continue
        seen[norm] = where
        out.append((path, where))
    return out


# An inline script or a path? `script:` names a `.drama` file when its value is
# one line, written plain or quoted (not as a `|` block), and ends in `.drama`.
# Anything else -- a `|` block, a value with a line break, or one not ending in
# `.drama` -- is the script's text itself. A folded block (`>`) is refused: it
# would join the script's lines, which are one statement each.
def _script_spec(f: YamlFile, key: Node, node: Node, ctx: Context):
    form = "a path to a .drama file, or the script inline as a block: `script: |`"
    if f.is_bad(node):
        return None
    value = f.value(node) if isinstance(node, ScalarNode) else None
    if not isinstance(value, str):
        ctx.report("E104", f"'script' must be a .drama file or the script's text, not {describe(f, node)}",
                   f.value_pos(key, node), expected=form)
        return None
    style = node.style
    if style == ">":
        ctx.report("E104", "an inline script must be a literal block (`|`), not a folded one (`>`)",
                   f.pos(node), expected=form, hint="a folded block joins the script's lines; write `script: |`")
        return None
    inline = style == "|" or "\n" in value or not value.strip().endswith(".drama")
    if inline and style != "|" and re.fullmatch(r"[\w./\\-]+\.\w+", value.strip()):
        ctx.report("E104", f"'script' names the file '{value.strip()}', but a script file must end in .drama",
                   f.value_pos(key, node), expected=form,
                   hint="rename the file to end in .drama, or write the script inline with `script: |`")
        return None
    return (inline, value, key, node)


def _script(f: YamlFile, spec, folder: str, ctx: Context, hint: str) -> ScriptSource:
    inline, value, key, node = spec
    if not inline:
        path = os.path.join(folder, value.strip())
        try:
            text = read_text(path, ctx, what="script file", named_at=f.value_pos(key, node), hint=hint,
                              yaml=False)
        except Skip:
            return ScriptSource(path, "", 0)
        return ScriptSource(path, text, 0)
    start = node.start_mark
    if node.style == "|":
        # the text begins on the line after the `|`: its line n is file line (start.line + 1) + n
        line_offset = start.line + 1
        column_offset = 0
        for n, text_line in enumerate(value.split("\n")):
            if text_line.strip():
                file_index = start.line + 1 + n
                if file_index < len(f.lines):
                    src = f.lines[file_index]
                    indent = (len(src) - len(src.lstrip(" "))) - (len(text_line) - len(text_line.lstrip(" ")))
                    column_offset = max(indent, 0)
                break
    else:
        # a plain or quoted value: its first line is on the key's line (or where it starts)
        line_offset = start.line
        column_offset = start.column + (1 if node.style in ('"', "'") else 0)
    return ScriptSource(f.path, value, line_offset, column_offset)
