"""drama: a scenario-scripting language and rules engine for dramatic situations.

The public API: `load` a scenario, `parse` a script, `run` it into events
(or `play` a scenario already loaded), `check` it for every error, and
`render_text` the events.
"""

from __future__ import annotations

import os

from .errors import DramaError, ErrorList, Position, RuleError

__version__ = "0.1.0"       # the one place the version is written (pyproject.toml reads it)

__all__ = ["DramaError", "ErrorList", "Position", "RuleError", "__version__",
           "load", "parse", "run", "play", "check", "render_text"]


def load(path, errors=None):
    """Load a scenario YAML file (with its setting, cast and script source)."""
    from .loader import load_scenario
    return load_scenario(path, errors=errors)


def parse(text: str, file: str = "<script>", line_offset: int = 0, errors=None):
    """Parse script text into a `nodes.Script`."""
    from .syntax import parse as _parse
    return _parse(text, file, line_offset, errors=errors)


def run(path, *, seed: int = 0, lenient: bool = False, cast=None, roles=None) -> list[dict]:
    """Load, parse and run a scenario; return its events. Raises DramaError.

    `cast` (a list of cast files) replaces the scenario's cast, and `roles`
    (role -> party id) binds an adventure's roles, as `--cast` and `--role` do.
    """
    from .loader import bind
    return play(bind(load(path), cast, roles), seed=seed, lenient=lenient)


def play(scenario, *, seed: int = 0, lenient: bool = False, roll_given: bool = False) -> list[dict]:
    """Parse and run a loaded (and bound) scenario; return its events.

    With `roll_given`, the dice a script gives are rolled afresh (as many as
    were given, if the rules still allow them), as `drama simulate` does."""
    from .includes import expand
    from .interpreter import Interpreter
    included = None
    try:
        script = parse(scenario.script.text, scenario.script.file, scenario.script.line_offset)
        included = expand(script, os.path.dirname(scenario.path))
        interpreter = Interpreter(scenario.setting, scenario.cast, title=scenario.title, seed=seed,
                                  lenient=lenient, roles=scenario.roles, roll_given=roll_given)
        _check_branches(included.script, interpreter)
        return interpreter.run(included.script)
    except DramaError as error:
        for one in getattr(error, "errors", [error]):
            if included is not None:
                included.add_notes(one)
            _in_file(one, scenario.script)
        raise error


def _check_branches(script, interpreter) -> None:
    """A script with `if` or `repeat` is refused for an error in any branch, even
    one this run would not reach (warnings are for `drama check`)."""
    from .checker import check_script, has_blocks
    if has_blocks(script):
        found = [error for error in check_script(script, interpreter) if not error.is_warning]
        if found:
            raise found[0] if len(found) == 1 else ErrorList(found)


def _in_file(error: DramaError, source) -> DramaError:
    """Columns of an inline `script: |` block are counted from the block's
    indentation: move them to the YAML file's columns."""
    position = error.position
    lines = source.text.count("\n") + 1
    if (source.column_offset and position is not None and position.file == source.file
            and source.line_offset < position.line <= source.line_offset + lines
            and not getattr(error, "_shifted", False)):
        end = position.end_column + source.column_offset if position.end_column else None
        error.position = Position(position.file, position.line, position.column + source.column_offset, end)
        error._shifted = True
    return error


def check(path, *, seed: int = 0, lenient: bool = False, cast=None, roles=None) -> list[DramaError]:
    """Every error found in one pass over a scenario: YAML, syntax, names and rules.

    The script is dry-run only when the cast loaded cleanly: with a broken cast
    every name would look unknown, and those errors would be false ones.
    """
    from .interpreter import Interpreter
    errors: list[DramaError] = []

    def add(error: DramaError) -> None:
        for one in getattr(error, "errors", [error]):
            if one not in errors:
                errors.append(one)

    try:
        scenario = load(path, errors=errors)
    except DramaError as error:
        add(error)
        return errors
    if scenario is None:
        return errors
    cast_files = {scenario.path, *scenario.cast_files}
    cast_ok = not any(e.position is None or e.position.file in cast_files and e.code != "E103"
                      for e in errors)
    if cast_ok and (cast or roles or scenario.roles):
        from .loader import bind
        try:
            scenario = bind(scenario, cast, roles)
        except DramaError as error:
            add(error)
            return errors
    try:
        script = parse(scenario.script.text, scenario.script.file, scenario.script.line_offset, errors=errors)
    except DramaError as error:
        add(error)
        return [_in_file(error, scenario.script) for error in errors]
    if script is not None:
        from .includes import expand
        included = expand(script, os.path.dirname(scenario.path), errors=errors)
    if script is not None and cast_ok:
        interpreter = Interpreter(scenario.setting, scenario.cast, title=scenario.title, seed=seed,
                                  lenient=lenient, errors=errors, roles=scenario.roles)
        from .checker import check_script
        statically = check_script(included.script, interpreter)
        try:
            interpreter.run(included.script)
        except DramaError as error:        # not expected with `errors`, but never lose one
            add(error)
        # what the run met is reported once, at the place the run met it
        met = {(e.code, e.position) for e in errors}
        for error in statically:
            if (error.code, error.position) not in met:
                add(error)
        errors.sort(key=lambda e: e.is_warning)        # warnings after the errors
        for error in errors:
            included.add_notes(error)
    return [_in_file(error, scenario.script) for error in errors]


def render_text(events) -> str:
    from .render import render_text as _render
    return _render(events)
