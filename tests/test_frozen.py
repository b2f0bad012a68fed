"""`@frozen` (dsl/frozen.py) behaves as `@dataclass(frozen=True)`: the same equality, hash, repr, refusals and dataclass bookkeeping, only built faster (issue 28)."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import FrozenInstanceError, field

import pytest

from dsl.frozen import frozen


def twins(**namespace):
    """The same class made by @frozen and by @dataclass(frozen=True)."""
    def make(decorate):
        body = dict(namespace)
        body["__annotations__"] = dict(namespace["__annotations__"])
        return decorate(type("Thing", (), body))
    return make(frozen), make(dataclasses.dataclass(frozen=True))


ANNOTATIONS = {"a": "int", "b": "str", "c": "tuple", "d": "list"}


def test_equality_hash_and_repr_are_the_dataclass_ones():
    ours, theirs = twins(__annotations__=ANNOTATIONS, c=(), d=field(default_factory=list, compare=False))
    x, y = ours(1, "x"), theirs(1, "x")
    assert repr(x) == repr(y) == "Thing(a=1, b='x', c=(), d=[])"
    assert hash(ours(1, "x", (2,))) == hash(theirs(1, "x", (2,)))        # the same fields, hashed as a tuple
    assert ours(1, "x") == ours(1, "x", d=[5])                             # d is not compared
    assert ours(1, "x") != ours(2, "x") and ours(1, "x") != theirs(1, "x")
    assert [f.name for f in dataclasses.fields(ours)] == ["a", "b", "c", "d"]
    assert ours(1, "x").d is not ours(1, "x").d                            # a fresh default each time
    assert ours.__match_args__ == theirs.__match_args__


@frozen
class Point:
    a: int
    b: int = 0


def test_frozen_refuses_assignment_and_deletion_but_replace_and_pickle_work():
    ours = Point
    thing = ours(1)
    with pytest.raises(FrozenInstanceError):
        thing.a = 2
    with pytest.raises(FrozenInstanceError):
        del thing.b
    assert dataclasses.replace(thing, b=3) == ours(1, 3)
    assert pickle.loads(pickle.dumps(thing)) == thing
    assert dataclasses.asdict(thing) == {"a": 1, "b": 0}


def test_post_init_eq_false_and_a_class_own_methods():
    calls = []

    @frozen
    class Seen:
        a: int

        def __post_init__(self):
            calls.append(self.a)
            object.__setattr__(self, "a", self.a * 2)

    assert Seen(2).a == 4 and calls == [2]

    @frozen(eq=False)
    class Identity:
        a: int

    one = Identity(1)
    assert one == one and Identity(1) != Identity(1)

    @frozen
    class Own:
        a: int

        def __eq__(self, other):
            return isinstance(other, Own)

        def __hash__(self):
            return 7

        def __repr__(self):
            return "own"

    assert Own(1) == Own(2) and hash(Own(1)) == 7 and repr(Own(1)) == "own"


def test_subclasses_add_fields_and_stay_frozen():
    @frozen
    class Base:
        a: int

    @frozen
    class Child(Base):
        b: int = 0

    assert Child(1, 2) == Child(1, 2) != Base(1)
    assert [f.name for f in dataclasses.fields(Child)] == ["a", "b"]
    with pytest.raises(FrozenInstanceError):
        Child(1).b = 3


def test_a_field_may_be_called_self_or_d():
    @frozen
    class Odd:
        self: int
        d: int = 1

    assert (Odd(3).self, Odd(3).d) == (3, 1)


def test_an_undocumented_class_reads_as_a_dataclass_does():
    """Its docstring and signature are the dataclass's (`@frozen` writes them without `tokenize`)."""
    import inspect

    def make(decorate):
        @decorate
        class Roll:
            party: str
            dice: int = 3
            given: tuple[int, ...] = ()
            notes: list = dataclasses.field(default_factory=list)
        return Roll
    ours, theirs = make(frozen), make(dataclasses.dataclass(frozen=True))
    assert ours.__doc__ == theirs.__doc__ == "Roll(party: 'str', dice: 'int' = 3, given: 'tuple[int, ...]' = (), " \
                                             "notes: 'list' = <factory>)"
    assert str(inspect.signature(ours)) == str(inspect.signature(theirs))
    assert ours("Kara").notes == [] and ours("Kara").notes is not ours("Kara").notes
