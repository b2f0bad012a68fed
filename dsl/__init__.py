"""drama: a scenario-scripting language and rules engine for dramatic situations.

The public API: `load` a scenario, `parse` a script, `run` it into events
(or `play` a scenario already loaded), `check` it for every error, and
`render_text` the events; `Program` and `Session` for a scenario compiled
once and run many times, or played a statement at a time.

Each name is imported from its module when first used, so that `import dsl`
costs nothing (the command line sets itself up before any other import,
dsl/__main__.py) and `drama render` loads neither the loader nor the parser.
"""

from __future__ import annotations

from importlib import import_module

__version__ = "0.1.0"       # the one place the version is written (pyproject.toml reads it)

# name -> (module, name in it)
_EXPORTS = {
    "DramaError": (".errors", "DramaError"),
    "ErrorList": (".errors", "ErrorList"),
    "Position": (".errors", "Position"),
    "RuleError": (".errors", "RuleError"),
    "Diagnostics": (".errors", "Diagnostics"),
    "load": (".loader", "load_scenario"),
    "parse": (".syntax", "parse"),
    "run": (".pipeline", "run"),
    "play": (".pipeline", "play"),
    "check": (".pipeline", "check"),
    "Program": (".pipeline", "Program"),
    "Session": (".pipeline", "Session"),
    "Board": (".pipeline", "Board"),
    "render_text": (".render", "render_text"),
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str):
    if name in _EXPORTS:
        module, attribute = _EXPORTS[name]
        value = getattr(import_module(module, __name__), attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'dsl' has no attribute {name!r}")
