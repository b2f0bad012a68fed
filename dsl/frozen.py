"""`@frozen`: a frozen dataclass that is quick to build, at import and at run time.

`@dataclass(frozen=True)` writes six methods for each class (`__init__`,
`__repr__`, `__eq__`, `__hash__`, `__setattr__`, `__delattr__`), each compiled
from its own source text by `exec` when the module is imported: about half of
the start-up of `drama check` went there (issue 28). `@frozen` lets
`dataclasses` do the bookkeeping (the fields, `dataclasses.fields`, `replace`,
`asdict`, `__match_args__`), compiles only `__init__` (which stores the fields
in the instance's `__dict__` directly, about a third of the time of going
through `object.__setattr__`, for the many results a simulation makes), and
gives the class shared implementations of the others, closed over its field
names: equality and hashing compare the same fields as a dataclass's would
(through `operator.attrgetter`), assignment and deletion raise
`dataclasses.FrozenInstanceError`, and `repr` reads the same.

A method the class defines itself is kept, as a dataclass keeps it. Every
frozen dataclass of a hierarchy is made one way (a stdlib frozen dataclass
cannot inherit from one of these, nor the other way round: `dataclasses`
refuses to mix frozen and not).
"""

from __future__ import annotations

import dataclasses
import reprlib
from operator import attrgetter

__all__ = ["frozen"]

_MISSING = dataclasses.MISSING


def frozen(cls=None, *, eq: bool = True):
    """`@frozen` or `@frozen(eq=False)`: as `@dataclass(frozen=True)` (with `eq`)."""
    if cls is None:
        return lambda cls: _make(cls, eq)
    return _make(cls, eq)


def _make(cls, eq: bool):
    own = dict(cls.__dict__)
    # A class without a docstring is given its signature as one, as a dataclass is; without
    # `__init__` yet, `dataclasses` would read object's instead, through `tokenize` (whose
    # patterns the first such class compiles: milliseconds of every start, issue 28).
    undocumented = not cls.__doc__
    if undocumented:
        cls.__doc__ = cls.__name__
    # the fields and the bookkeeping, no method written (nothing compiled)
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False, frozen=False)
    fields = dataclasses.fields(cls)
    if "__init__" not in own:
        cls.__init__ = _init(cls, fields)
    if undocumented:
        import inspect
        cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    if "__repr__" not in own:
        cls.__repr__ = _repr(cls, fields)
    if eq and "__eq__" not in own:
        cls.__eq__ = _eq(cls, [f.name for f in fields if f.compare])
    # a frozen dataclass with eq hashes its fields, unless the class gives its own __hash__
    # (a class that defines __eq__ alone has __hash__ = None, which is not its own)
    explicit = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    if eq and not explicit:
        cls.__hash__ = _hash(cls, [f.name for f in fields if (f.compare if f.hash is None else f.hash)])
    for name, method in (("__setattr__", _setattr(cls, fields)), ("__delattr__", _delattr(cls, fields))):
        if name in own:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        setattr(cls, name, method)
    return cls


def _named(cls, method, name: str):
    method.__name__ = name
    method.__qualname__ = f"{cls.__qualname__}.{name}"
    return method


def _init(cls, fields):
    """The one method compiled: `__init__(self, a, b=_default_b, ...)` storing each field."""
    # (a field with a factory defaults to the marker a dataclass's `__init__` shows as `<factory>`)
    namespace: dict = {"_MISSING": _MISSING, "_FACTORY": dataclasses._HAS_DEFAULT_FACTORY}
    params, body = [], []
    for f in fields:
        if f._field_type is not dataclasses._FIELD:        # pragma: no cover - an InitVar
            raise TypeError(f"@frozen takes no InitVar ({cls.__name__}.{f.name})")
        if f.default is not _MISSING:
            namespace[f"_default_{f.name}"] = f.default
        if f.default_factory is not _MISSING:
            namespace[f"_factory_{f.name}"] = f.default_factory
        if f.init:
            if f.default is not _MISSING:
                params.append(f"{f.name}=_default_{f.name}")
            elif f.default_factory is not _MISSING:
                params.append(f"{f.name}=_FACTORY")
                body.append(f"    if {f.name} is _FACTORY: {f.name} = _factory_{f.name}()")
            else:
                params.append(f.name)
            body.append(f"    __frozen_dict__[{f.name!r}] = {f.name}")
        elif f.default is not _MISSING:
            body.append(f"    __frozen_dict__[{f.name!r}] = _default_{f.name}")
        elif f.default_factory is not _MISSING:
            body.append(f"    __frozen_dict__[{f.name!r}] = _factory_{f.name}()")
    if hasattr(cls, "__post_init__"):
        body.append("    __frozen_self__.__post_init__()")
    # parameters without a default after ones with: the order dataclasses checks, kept
    source = (f"def __init__(__frozen_self__, {', '.join(params)}):\n    __frozen_dict__ = __frozen_self__.__dict__\n"
              + "\n".join(body) + "\n")
    exec(source, namespace)
    init = namespace["__init__"]
    init.__annotations__ = {**{f.name: f.type for f in fields if f.init}, "return": None}     # as a dataclass's
    return _named(cls, init, "__init__")


def _key(names):
    """The values of `names` of an object, as a tuple."""
    if len(names) == 1:
        name = names[0]
        return lambda self: (getattr(self, name),)
    if not names:
        return lambda self: ()
    return attrgetter(*names)


def _eq(cls, names):
    key = _key(names)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented
    return _named(cls, __eq__, "__eq__")


def _hash(cls, names):
    key = _key(names)

    def __hash__(self):
        return hash(key(self))
    return _named(cls, __hash__, "__hash__")


def _repr(cls, fields):
    names = tuple(f.name for f in fields if f.repr)

    @reprlib.recursive_repr()
    def __repr__(self):
        return (f"{self.__class__.__qualname__}("
                + ", ".join(f"{name}={getattr(self, name)!r}" for name in names) + ")")
    return _named(cls, __repr__, "__repr__")


def _setattr(cls, fields):
    names = frozenset(f.name for f in fields)

    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)
    return _named(cls, __setattr__, "__setattr__")


def _delattr(cls, fields):
    names = frozenset(f.name for f in fields)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)
    return _named(cls, __delattr__, "__delattr__")
