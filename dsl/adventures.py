"""New adventure folders (`drama new`): the starter with its teaching comments, or a bundled example, with the schemas their modelines name."""

# The starter is the package's `dsl/scaffold/` folder, the examples its
# `dsl/examples/` folder (the repository's `scenarios/`, shipped inside the
# package so that a user who installed with pip can follow the README and the
# tutorial). A new folder gets `schemas/`, the JSON Schemas of this version
# (`drama schema`), and each YAML file's modeline is pointed at them. Nothing
# is written over: the folder must not exist, or be empty (E512). Everything is
# written into a temporary folder next to it, which is renamed into place at
# the end, so a folder is made whole or not at all.

from __future__ import annotations

import importlib.resources
import os
import re
import shutil
import tempfile
from pathlib import Path, PurePosixPath

from .errors import DramaError
from .loader.json_schema import KINDS_OF_FILE, modeline, schema_text

__all__ = ["examples", "create", "SCHEMAS"]

SCHEMAS = "schemas"           # the folder of a new adventure holding the schemas
_MODELINE = re.compile(r"^# yaml-language-server: \$schema=\S*?(?P<kind>\w+)\.schema\.json[ \t]*$", re.MULTILINE)
# a path of a scenario that leaves the example's folder (`cast: ../emberfall/cast.yaml`)
_OUTSIDE = re.compile(r"^(?P<key>(?:setting|cast):[ \t]*)(?P<path>\.\./[^\s#,\]]+)", re.MULTILINE)


def _resources(name: str):
    return importlib.resources.files("dsl") / name


def examples() -> list[str]:
    """The names of the bundled examples (`emberfall`, `ashen-pass`, ...)."""
    return sorted(item.name for item in _resources("examples").iterdir() if item.is_dir())


def _files(folder, prefix: PurePosixPath = PurePosixPath()):
    """Each file under a resource folder: (its path inside it, the resource)."""
    for item in sorted(folder.iterdir(), key=lambda item: item.name):
        if item.is_dir():
            if item.name != "__pycache__":
                yield from _files(item, prefix / item.name)
        elif item.name.endswith((".yaml", ".drama")):
            yield prefix / item.name, item


def _pointed(text: str, inside: PurePosixPath) -> str:
    """The modeline of a YAML file at `inside` (a path in the new folder) pointed at its `schemas/`."""
    up = "../" * (len(inside.parts) - 1)
    return _MODELINE.sub(lambda m: modeline(f"{up}{SCHEMAS}/{m['kind']}.schema.json"), text)


def _contents(example: str | None) -> dict[PurePosixPath, str]:
    """The files of the new folder: path inside it -> text."""
    if example is None:
        source = _resources("scaffold")
    else:
        if example not in examples():
            raise DramaError("E510", f"there is no bundled example '{example}'",
                             expected=" or ".join(examples()))
        source = _resources("examples") / example
    out = {inside: item.read_text(encoding="utf-8") for inside, item in _files(source)}
    if example is not None:
        # a file another example's folder holds (ambush uses Emberfall's cast) is copied in
        for inside, text in list(out.items()):
            def inward(match, inside=inside):
                target = PurePosixPath(os.path.normpath(PurePosixPath(example, *inside.parts[:-1]) / match["path"]))
                name = PurePosixPath(target.name)
                if name not in out:
                    out[name] = (_resources("examples").joinpath(*target.parts)).read_text(encoding="utf-8")
                up = "../" * (len(inside.parts) - 1)
                return match["key"] + up + str(name)
            out[inside] = _OUTSIDE.sub(inward, text)
    out = {inside: _pointed(text, inside) if inside.suffix == ".yaml" else text for inside, text in out.items()}
    for kind in KINDS_OF_FILE:
        out[PurePosixPath(SCHEMAS, f"{kind}.schema.json")] = schema_text(kind)
    return out


def create(folder: str | os.PathLike, example: str | None = None) -> list[Path]:
    """Make the adventure folder `folder`: the starter, or a copy of the bundled `example`.
    Returns the files written. E512 if the folder exists and is not empty; E510 for an
    unknown example or a folder that cannot be made."""
    target = Path(folder)
    files = _contents(example)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        what = "a folder that is not empty" if target.is_dir() else "a file"
        raise DramaError("E512", f"{folder} is already {what}: `drama new` writes over nothing",
                         expected="the name of a new folder, or of an empty one")
    parent = target.absolute().parent
    if not parent.is_dir():
        raise DramaError("E510", f"cannot make {folder}: the folder {parent} does not exist")
    try:
        work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=parent))
        try:
            for inside, text in files.items():
                path = work.joinpath(*inside.parts)
                path.parent.mkdir(parents=True, exist_ok=True)
                with open(path, "w", encoding="utf-8", newline="\n") as out:
                    out.write(text)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(work, 0o777 & ~umask)
            if target.is_dir():
                target.rmdir()                  # empty, as checked
            os.rename(work, target)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
    except OSError as error:
        raise DramaError("E510", f"cannot make {folder}: {error.strerror or error}") from None
    return [target.joinpath(*inside.parts) for inside in files]
