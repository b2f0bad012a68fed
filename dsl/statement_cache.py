"""The statement cache: values worked out from statements (an exchange's engine inputs), kept by the statements' identity (see dsl/collector.py)."""

from __future__ import annotations


class StatementCache:
    """Values keyed by a tuple of statements, compared by identity.

    Keying by `id()` is quick, and safe because the cache holds the
    statements themselves, so no id can be reused by another object while its
    entry lives. At most `most` entries are kept (statements rebuilt for a
    joint side without its defeated parties are new objects each run)."""

    def __init__(self, most: int = 10_000):
        self.most = most
        self._entries: dict[tuple, tuple] = {}

    def get(self, statements: tuple):
        hit = self._entries.get(tuple(map(id, statements)))
        if hit is not None and all(a is b for a, b in zip(hit[0], statements)):
            return hit[1]
        return None

    def put(self, statements: tuple, value) -> None:
        if len(self._entries) < self.most:
            self._entries[tuple(map(id, statements))] = (statements, value)

    def __len__(self) -> int:
        return len(self._entries)
