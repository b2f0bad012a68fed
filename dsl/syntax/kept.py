"""Scripts parsed by an earlier process, kept in the user's cache folder: a start that reads an unchanged script loads no parser."""

# A scenario's script is read at every `drama check` and `drama run`; reading it
# took a fifth of a check of the skirmish (issue 28): the generated parser
# module executed, Lark's tables deserialised and its lexers built, then the
# parse. The script as parsed is kept instead (dsl/user_cache.py, an entry
# `script-CRC.marshal`), with what it was parsed from: the file's name, the
# line offset and the whole text; and, as its version, the size and time of
# every module of the package (a node given a field, an edited builder: every
# script is read again). Only a clean parse is kept: one that reported
# nothing. A script with errors (or warnings) is parsed again at each start, so
# that each is reported as it is today; a kept one, read back, is exactly what
# the parse gave (tests/test_kept_scripts.py holds both to each other).
#
# The nodes are kept with pickle, read back by an unpickler that builds the
# dataclasses of the syntax tree and nothing else (`_Reader.find_class`): an
# entry written by anyone else can make it build nodes, nothing else. The few
# nodes that the package compares by identity (`NO_DICE`, `NO_USES`) are kept
# by name and read back as those very nodes.

from __future__ import annotations

import io
import pickle
from dataclasses import is_dataclass
from typing import Callable

from . import tree

_FORMAT = 1
# the module-level nodes that readers compare with `is`, by name
_SINGLETONS = {name: getattr(tree, name) for name in ("NO_DICE", "NO_USES")}
_NAMES = {id(value): name for name, value in _SINGLETONS.items()}


class _Writer(pickle.Pickler):
    def persistent_id(self, obj):
        return _NAMES.get(id(obj))


class _Reader(pickle.Unpickler):
    def persistent_load(self, pid):
        try:
            return _SINGLETONS[pid]
        except (KeyError, TypeError):
            raise pickle.UnpicklingError(f"no kept node {pid!r}") from None

    def find_class(self, module: str, name: str):
        if module in _MODULES or (module, name) == ("builtins", "frozenset"):
            found = super().find_class(module, name)
            if isinstance(found, type) and (module == "builtins" or is_dataclass(found)):
                return found
        raise pickle.UnpicklingError(f"a kept script holds {module}.{name}")


# the modules of the classes a script's nodes are made of: a kept script is built of their
# dataclasses (and frozensets) only, never given a function to call
_MODULES = frozenset({"dsl.syntax.tree", "dsl.syntax.conditions", "dsl.syntax.nodes", "dsl.errors",
                      "dsl.durations", "dsl.scenes"})


def parsed(text: str, file: str, line_offset: int, read: Callable[[], tuple[object, bool]]):
    """The script of `text` (read as from `file`, `line_offset` lines down): the one kept, if an
    earlier process parsed the same; else `read()`, which gives (the script, whether the parse
    was clean), and a clean one is kept. A parse that raises is not kept."""
    from .. import user_cache
    made: list = []

    def make() -> bytes | None:
        script, clean = read()
        made.append(script)
        if not clean:
            return None
        out = io.BytesIO()
        _Writer(out, protocol=pickle.HIGHEST_PROTOCOL).dump(script)
        return out.getvalue()

    data = user_cache.kept("script", f"{file}\n{line_offset}\n{text}", make,
                           version=(_FORMAT, user_cache.package_code()))
    if made:
        return made[0]
    if isinstance(data, bytes):
        try:
            return _Reader(io.BytesIO(data)).load()
        except Exception:      # a damaged entry (of any kind pickle may raise): read again, as without one
            pass
    return read()[0]
