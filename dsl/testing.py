"""`drama test`: test plans (`*.test.yaml`) of an adventure, run and reported in the style of pytest.

A test plan sits beside its scenario and names it:

    scenario: scenario.yaml
    tests:                       # each: one run, then expectations at its end
      - name: the ford is won and pays
        seed: 1
        choose: {At the river: Look for the ford}
        expect:
          - gold = 5
      - name: the play log of the first session
        script: session-1.drama  # a play log, run with the scenario's setting and cast
        expect: [wardens was defeated]
    properties:                  # each: over seeds 0..N-1, with the seeded dice choosing
      - name: every path ends within 5 rounds, and no run fails
        seeds: 50
        rounds: 5
        expect: [gold >= 0]

A test passes when its run ends without an error (an `expect` of the script
that fails is one, E801) and every expectation of the plan holds at the end.
A property runs `drama run SCENARIO --seed S --lenient` for each seed S (the
seeded dice answer every choice nobody made, and settle unnamed ties): it
holds when no run fails, no dramatic situation lasts more than `rounds`
rounds, and its expectations hold at the end of every run. Each failure says
what failed, with the actual values, and the `drama run` command that
reproduces it.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from .errors import Diagnostics, DramaError, Position, did_you_mean, one_of
from .messages import shown

__all__ = ["MAX_SEEDS", "Plan", "Case", "Outcome", "find_plans", "read_plan", "run_plan"]

MAX_SEEDS = 10_000           # the most seeds a property may ask for
_PLAN_KEYS = ("scenario", "cast", "roles", "tests", "properties")
_TEST_KEYS = ("name", "seed", "choose", "lenient", "script", "expect")
_PROPERTY_KEYS = ("name", "seeds", "rounds", "expect", "choose")


@dataclass
class Case:
    """One test or property of a plan."""

    name: str
    pos: Position
    kind: str = "test"                          # "test" | "property"
    seed: int = 0
    seeds: int = 0
    rounds: int | None = None
    lenient: bool = False
    choose: dict[str, str] = field(default_factory=dict)
    script: str | None = None                   # a play log instead of the scenario's script
    expect: list[tuple[str, Position]] = field(default_factory=list)


@dataclass
class Plan:
    path: str
    scenario: str
    casts: list[str] = field(default_factory=list)
    roles: dict[str, str] = field(default_factory=dict)
    cases: list[Case] = field(default_factory=list)


@dataclass
class Outcome:
    """How one case went: passed, or the failure's text and the command that reproduces it."""

    plan: Plan
    case: Case
    passed: bool
    failure: str = ""
    reproduce: str = ""

    @property
    def id(self) -> str:
        return f"{self.plan.path}::{self.case.name}"


# ---------------------------------------------------------------------------
# finding and reading plans

def find_plans(paths: list[str]) -> list[str]:
    """The test plans named, and those under each folder named (`*.test.yaml`), sorted."""
    found: list[str] = []
    for path in paths or ["."]:
        if os.path.isdir(path):
            found.extend(sorted(str(p) for p in Path(path).rglob("*.test.yaml")))
        else:
            found.append(path)
    return list(dict.fromkeys(found))


def _error(message: str, position: Position | None, **kwargs) -> DramaError:
    return DramaError("E802", message, position=position, **kwargs)


def read_plan(path: str) -> Plan:
    """Read a test plan; E802 (or the loader's E101/E108) for one that cannot be read."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
    from .loader.yamlnodes import Context, YamlFile
    ctx = Context(Diagnostics(collect=False))
    f = YamlFile.read(path, ctx, what="test plan")
    root = f.root
    if not isinstance(root, MappingNode):
        raise _error("a test plan is a mapping with 'scenario' and 'tests' or 'properties'", Position(path, 1, 1))

    def keys(node, allowed, where):
        out = {}
        for key, key_node, value in f.items(node, ctx):
            if key not in allowed:
                raise _error(f"unknown key '{key}' in {where}", f.pos(key_node),
                             expected=f"one of {one_of(allowed)}", hint=did_you_mean(str(key), allowed))
            out[key] = (key_node, value)
        return out

    def scalar(pair, kind, what):
        key_node, node = pair
        value = f.value(node) if isinstance(node, ScalarNode) else None
        ok = isinstance(value, str) if kind is str else \
            isinstance(value, bool) if kind is bool else isinstance(value, int) and not isinstance(value, bool)
        if not ok:
            shown = {str: "text", bool: "true or false", int: "a whole number"}[kind]
            raise _error(f"{what} must be {shown}", f.value_pos(key_node, node))
        return value

    def conditions(pair):
        key_node, node = pair
        items = node.value if isinstance(node, SequenceNode) else [node]
        out = []
        for item in items:
            text = f.value(item) if isinstance(item, ScalarNode) else None
            if not isinstance(text, str) or not text.strip():
                raise _error("an expectation is a condition, as text", f.pos(item),
                             expected="a condition such as 'gold >= 5' or 'Overlord was defeated'")
            out.append((text.strip(), f.pos(item)))
        return out

    def answers(pair):
        key_node, node = pair
        if not isinstance(node, MappingNode):
            raise _error("'choose' maps each choice to the option taken", f.value_pos(key_node, node),
                         expected="choose: {At the river: Wade across}")
        return {str(k): str(f.value(v)) for k, _, v in f.items(node, ctx)}

    top = keys(root, _PLAN_KEYS, "the test plan")
    if "scenario" not in top:
        raise _error("a test plan needs 'scenario'", Position(path, 1, 1), expected="scenario: scenario.yaml")
    folder = os.path.dirname(path)
    plan = Plan(path, os.path.join(folder, scalar(top["scenario"], str, "'scenario'")))
    if "cast" in top:
        key_node, node = top["cast"]
        items = node.value if isinstance(node, SequenceNode) else [node]
        plan.casts = [os.path.join(folder, str(f.value(item))) for item in items]
    if "roles" in top:
        plan.roles = {str(k): str(f.value(v)) for k, _, v in f.items(top["roles"][1], ctx)}
    for section, allowed, kind in (("tests", _TEST_KEYS, "test"), ("properties", _PROPERTY_KEYS, "property")):
        if section not in top:
            continue
        key_node, node = top[section]
        if not isinstance(node, SequenceNode):
            raise _error(f"'{section}' is a list", f.value_pos(key_node, node), expected=f"{section}: then '- name: ...'")
        for index, item in enumerate(node.value):
            if not isinstance(item, MappingNode):
                raise _error(f"each of '{section}' is a mapping with 'name'", f.pos(item))
            found = keys(item, allowed, f"a {kind}")
            name = scalar(found["name"], str, "'name'") if "name" in found else f"{kind} {index + 1}"
            case = Case(name, f.pos(item), kind)
            if "seed" in found:
                case.seed = scalar(found["seed"], int, "'seed'")
            if "lenient" in found:
                case.lenient = scalar(found["lenient"], bool, "'lenient'")
            if "choose" in found:
                case.choose = answers(found["choose"])
            if "script" in found:
                case.script = os.path.join(folder, scalar(found["script"], str, "'script'"))
            if "expect" in found:
                case.expect = conditions(found["expect"])
            if kind == "property":
                if "seeds" not in found:
                    raise _error("a property needs 'seeds', how many seeds to run it with", case.pos,
                                 expected=f"seeds: a number from 1 to {MAX_SEEDS}")
                case.seeds = scalar(found["seeds"], int, "'seeds'")
                if not 1 <= case.seeds <= MAX_SEEDS:
                    raise _error(f"a property runs with 1 to {MAX_SEEDS} seeds, not {case.seeds}",
                                 f.value_pos(*found["seeds"]))
                if "rounds" in found:
                    case.rounds = scalar(found["rounds"], int, "'rounds'")
            plan.cases.append(case)
    if not plan.cases:
        raise _error("the test plan has no tests and no properties", Position(path, 1, 1),
                     expected="'tests:' or 'properties:', each a list of cases")
    return plan


# ---------------------------------------------------------------------------
# running

def _command(plan: Plan, case: Case, seed: int, lenient: bool, script: str | None = None) -> str:
    target = plan.scenario
    words = ["drama", "run", target, "--seed", str(seed)]
    if lenient:
        words.append("--lenient")
    for cast in plan.casts:
        words += ["--cast", cast]
    for role, party in plan.roles.items():
        words += ["--role", f"{role}={party}"]
    for choice, option in case.choose.items():
        words += ["--choose", f"{choice}={option}"]
    command = " ".join(shlex.quote(w) for w in words)
    if script is not None:
        command += f"   (with the script {script})"
    return command


def _expectations(case: Case):
    """The plan's expectations of a case, parsed as `expect` lines."""
    from .syntax import parse
    out = []
    for text, pos in case.expect:
        try:
            script = parse("expect " + text, pos.file, pos.line - 1)
        except DramaError as error:
            error.position = pos
            raise
        out.append((script.statements[0], pos))
    return out


def _check_end(interpreter, expectations) -> None:
    """Test the plan's expectations on the state at the end of a run (E801 placed in the plan)."""
    for statement, pos in expectations:
        try:
            interpreter.step(statement)
        except DramaError as error:
            error.position = pos
            raise


def _program(plan: Plan, case: Case, cache: dict):
    from .pipeline import Program
    key = case.script
    if key not in cache:
        base = cache.get(None)
        if base is None:
            base = cache[None] = Program.compile(plan.scenario, cast=plan.casts or None, roles=plan.roles)
        if key is not None:
            from .source import SourceMap
            text = Path(key).read_text(encoding="utf-8")
            from .syntax.nodes import Script
            cache[key] = Program(base.scenario, Script(key, base.read(text, key)), SourceMap(key))
    return cache[key]


def run_case(plan: Plan, case: Case, cache: dict) -> Outcome:
    try:
        program = _program(plan, case, cache)
        expectations = _expectations(case)
    except (DramaError, OSError) as error:
        text = shown(error) if isinstance(error, DramaError) else f"error: {error}"
        return Outcome(plan, case, False, text, "")
    if case.kind == "test":
        return _run_test(plan, case, program, expectations)
    return _run_property(plan, case, program, expectations)


def _run_test(plan, case, program, expectations) -> Outcome:
    command = _command(plan, case, case.seed, case.lenient, case.script)
    try:
        interpreter = program.interpreter(seed=case.seed, lenient=case.lenient, choices=case.choose)
        interpreter.run(program.script)
        _check_end(interpreter, expectations)
    except DramaError as error:
        return Outcome(plan, case, False, shown(error), command)
    return Outcome(plan, case, True)


def _run_property(plan, case, program, expectations) -> Outcome:
    for seed in range(case.seeds):
        command = _command(plan, case, seed, True, case.script)
        try:
            interpreter = program.interpreter(seed=seed, lenient=True, choices=case.choose)
            events = interpreter.run(program.script)
            if case.rounds is not None:
                for event in events:
                    if event["type"] == "round" and event["round"] > case.rounds:
                        raise DramaError("E803", f"'{event['drama']}' reached round {event['round']} "
                                         f"(line {event['line']}), more than the {case.rounds} rounds "
                                         "the property allows", position=case.pos,
                                         notes=[f"with the seed {seed}, one of the {case.seeds} seeds "
                                                "of the property"])
            _check_end(interpreter, expectations)
        except DramaError as error:
            if error.code != "E803":
                error.notes.append(f"with the seed {seed}, one of the {case.seeds} seeds of the property")
            return Outcome(plan, case, False, shown(error), command)
    return Outcome(plan, case, True)


def run_plan(plan: Plan):
    """Each case of a plan, run: an Outcome per case, in order."""
    cache: dict = {}
    for case in plan.cases:
        yield run_case(plan, case, cache)
