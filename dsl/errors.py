"""Errors: positions, stable error codes and the `file:line:col` + caret formatting."""

from __future__ import annotations

import itertools
from typing import Callable, Iterable

from .frozen import frozen


@frozen
class Position:
    """Where something was written: a file, a 1-based line and a 1-based column."""

    file: str
    line: int
    column: int = 1
    end_column: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


# Every error kind has a stable code. docs/errors.md lists each with an example.
CODES: dict[str, str] = {
    # the script's syntax
    "E001": "syntax error in a script",
    "E002": "a statement in the wrong place",
    "E003": "an include that cannot be followed",
    "E004": "an `else` or `end` without its `if`, or a block without its `end`",
    "E005": "a loop without a bound it can count",
    # limits (dsl/limits.py; docs/language.md, "Limits")
    "E010": "blocks, includes or a condition nested too deeply",
    "E011": "a loop's bound over the limit",
    "E012": "a run that executes more statements than the limit",
    "E013": "a line of a script that is too long",
    "E014": "a script that is too long",
    "E015": "more dice in one statement than the limit",
    "E006": "a `choose` block that is not made of options",
    # YAML files
    "E101": "YAML that cannot be read",
    "E102": "a duplicate key in YAML",
    "E103": "an unknown key in YAML",
    "E104": "a value of the wrong type or form",
    "E105": "a required key is missing",
    "E106": "a YAML tag that is not allowed",
    "E107": "a duration that cannot be read",
    "E108": "a file that cannot be found or read",
    "E109": "a party defined twice",
    "E110": "a move that names a trait or treasure the party lacks",
    "E120": "pronouns that cannot be read",
    "E121": "narration words with a placeholder they cannot have",
    "E122": "a clause not keyed by a qualifier",
    # names in a script
    "E201": "an unknown party",
    "E202": "an unknown trait or treasure",
    "E203": "a party that is not in the dramatic situation",
    "E204": "a role that is not bound to a party of the cast",
    "E205": "a placeholder that names nothing",
    "E350": "a kind of scene that is not one of the six",
    "E351": "a member that the group does not have",
    "E352": "a member lost twice",
    "E353": "a quarry that cannot be one",
    "E206": "a flag or counter used before it is set",
    "E207": "a choice or option that names nothing",
    "E208": "a flag or counter with the name of a party, a role or a placeholder",
    "E209": "a flag used as a counter, or a counter as a flag",
    # the rules (the number after E3 is the rule)
    "E301": "R3: too many dice",
    "E304": "R4: not enough quintessence to spend",
    "E305": "R5: an exchange that cannot be resolved as written",
    "E307": "R7: a defeated party acting",
    "E308": "R8: no double win to take an option from",
    "E309": "R9: a second aggressive action in a round",
    "E310": "R10: a split that does not match the loss",
    "E311": "R11: a tie that nobody settled",
    "E312": "R12: initiative that cannot be ordered",
    "E313": "R13: a round outside a dramatic situation",
    "E314": "R14: a recovery that is not allowed yet",
    "E316": "R16: rest or calm during a dramatic situation",
    "E317": "R14: a re-roll of a die that was not rolled",
    "E318": "R14: more re-rolls than the recovery's bonus allows",
    "E319": "R14: re-rolls that cannot be chosen as written",
    "E320": "R13: a round length that is not a length of time",
    "E321": "point 15: an aggressive action aimed only at defeated parties",
    "E330": "a choice that nobody made",
    "E331": "a choice with no option available",
    "E332": "a given option that is not available",
    "E333": "a counter out of its bounds",
    # dice
    "E401": "the wrong number of dice",
    "E402": "a face that is not on the die",
    # the command line
    "E501": "an output file that cannot be written",
    "E510": "a path that `drama fmt` or `drama new` cannot use",
    "E511": "a script that `drama fmt` cannot lay out without changing it",
    "E512": "`drama new` would write over a file",
    # inputs and outputs (dsl/inputs.py, dsl/outputs.py)
    "E520": "an input that is not a regular file, or is too big",
    "E521": "a NUL character or a lone surrogate in an input",
    "E522": "YAML whose aliases and merges expand too far",
    # `drama simulate --cluster` (dsl/cluster.py)
    "E530": "`--cluster` without Dask distributed installed",
    "E531": "a Dask scheduler that does not answer",
    "E532": "a block of runs that failed on the cluster",
    # templates and saved event logs
    "E601": "an error in a template",
    "E602": "a saved event log that cannot be read",
    "E123": "a language or phrase book that cannot be found",
    "E124": "a phrase book that cannot be read",
    "E125": "a phrase that names what its outcome does not have",
    "E126": "a grammatical gender and number that cannot be read",
    "E127": "a catalogue of translations that cannot be read",
    # expectations and `drama test`
    "E801": "an expectation that does not hold",
    "E802": "a test plan that cannot be read",
    "E803": "a property of an adventure that does not hold",
    # warnings from `drama check` (a script with them still runs)
    "W001": "a statement that can never run",
    "W002": "a loop that always runs to its bound",
    "W003": "a loop of rounds that begins no round",
    "W020": "the dry run of `drama check` stopped at its execution budget",
    "W021": "`drama check` stopped after as many errors as it shows",
    "W004": "an exchange whose rolled dice may tie under `ties: vote`",
    # drama odds
    "E701": "an odds question that is not one action or one defence",
    # drama play
    "E901": "a new session's journal that exists already",
    "E902": "no journal to resume",
    "E903": "a file that is not a journal of `drama play`, or a damaged one",
    "E904": "a journal that does not follow the scenario's script",
    "E905": "a journal that cannot be written",
    "E906": "a journal in use by another session",
    "E908": "a player board that cannot be served",
    "W030": "a journal that ends in a torn entry, dropped on --resume",
    "W040": "a person without a grammatical gender in a language that needs one",
    "W041": "a line of the writer's without a translation",
}


class DramaError(Exception):
    """An error in the user's input, with a stable code and, once known, a position.

    The engine raises these without a position; the interpreter adds the position
    of the statement that caused it with `at()`.
    """

    def __init__(self, code: str, message: str, *, position: Position | None = None,
                 expected: str | None = None, hint: str | None = None,
                 notes: Iterable[str] = (), party: str | None = None):
        super().__init__(message)
        assert code in CODES, code
        self.code = code
        self.message = message
        self.position = position
        self.expected = expected
        self.hint = hint
        self.notes = list(notes)
        self.party = party          # the party whose part of a step is at fault, if known
        # the text of the file the position points into, when whoever reported the error has it
        # (as Jinja's environment attaches a template's source): `format` shows its line
        self.source: str | None = None

    def at(self, position: Position | None) -> "DramaError":
        """Give the error a position, unless it already has one."""
        if self.position is None and position is not None:
            self.position = position
        return self

    def __str__(self) -> str:
        return self.message

    @property
    def is_warning(self) -> bool:
        """A warning (code W...) tells of something odd that does not stop a run."""
        return self.code.startswith("W")

    def format(self, source: str | None = None) -> str:
        """Render as `file:line:col: error[CODE]: message`, the line, a caret and notes.

        `source` (else `self.source`) is the text of the file the position points
        into; without either, no line is shown: an error reads no file (`dsl.messages.shown`
        reads it, through the one reader)."""
        message = self.message.replace("\r", "\\r").replace("\n", "\\n")   # one line, always
        head = f"{'warning' if self.is_warning else 'error'}[{self.code}]: {message}"
        lines = [f"{self.position}: {head}" if self.position else head]
        text_line = _source_line(self.position, source if source is not None else self.source)
        if text_line is not None:
            width = len(str(self.position.line))
            start = max(self.position.column, 1)
            end = self.position.end_column or start + 1
            text_line, start, end = _shown(text_line, start, end)
            shown = text_line.expandtabs(4)
            lines.append(f" {self.position.line} | {shown}")
            caret = "^" * max(1, end - start)
            prefix = text_line[: start - 1].expandtabs(4)
            lines.append(f" {' ' * width} | {' ' * len(prefix)}{caret}")
        if self.expected:
            lines.append(f"  expected: {self.expected}")
        if self.hint:
            lines.append(f"  help: {self.hint}")
        for note in self.notes:
            lines.append(f"  note: {note}")
        from .terminal import printable          # (it is printed: control characters as symbols)
        return printable("\n".join(lines))


# how many errors each pass of `drama check` (the syntax, the names in blocks, the dry run)
# collects before it stops (W021): each costs its wording, so a script of 100,000 bad lines
# is checked in the time of 100 errors
MAX_COLLECTED = 100


def stopped_after(position: Position | None, what: str) -> DramaError:
    """W021: a pass of `drama check` stopped at MAX_COLLECTED errors."""
    return DramaError("W021", f"{what} stopped here, after {MAX_COLLECTED} errors: what comes later was "
                      "not checked", position=position, hint="fix these errors, then check again")


class RuleError(DramaError):
    """A step that breaks a rule of RULES.md; `rule` names it (R3, R9, ...)."""

    def __init__(self, rule: str, code: str, message: str, **kwargs):
        super().__init__(code, f"{message} ({rule})", **kwargs)
        self.rule = rule


class ErrorList(DramaError):
    """Several errors found in one pass (`drama check`)."""

    def __init__(self, errors: list[DramaError]):
        first = errors[0]
        super().__init__(first.code, first.message, position=first.position)
        self.errors = errors


class Diagnostics:
    """The one sink every stage reports its errors into.

    A stopping sink (`drama run`) raises the first error it is given; a
    collecting sink (`drama check`, the language server) keeps every error
    once, in the order found: an error with the same code, position and
    message as one already kept is dropped, so a statement that fails on
    every pass of a loop is reported once. `limit` caps how many are kept.
    """

    def __init__(self, *, collect: bool = True, into: list[DramaError] | None = None,
                 limit: int | None = None, place: Callable[[DramaError], DramaError] | None = None):
        self.collecting = collect
        self.errors: list[DramaError] = into if into is not None else []
        self.limit = limit
        # `source.SourceMap.place`: moves an error into its file and notes its
        # includes, once per error, however often it passes through the sink
        self.place = place
        self._placed: dict[int, DramaError] = {}     # (kept, so that no id is reused)
        self._seen = {_identity(error) for error in self.errors if isinstance(error, DramaError)}

    @classmethod
    def of(cls, errors: "Diagnostics | list[DramaError] | None") -> "Diagnostics":
        """The sink for a stage's `errors=` argument: None stops at the first
        error, a list collects into that list, a sink is used as it is."""
        if isinstance(errors, Diagnostics):
            return errors
        if errors is None:
            return cls(collect=False)
        return cls(into=errors)

    def report(self, error: DramaError) -> None:
        """Take an error (or each of an `ErrorList`); a stopping sink raises it."""
        each = getattr(error, "errors", None) or [error]
        for one in each:
            self._place(one)
        if not self.collecting:
            raise error
        for one in each:
            key = _identity(one)
            if key in self._seen:
                continue
            if self.limit is not None and len(self.errors) >= self.limit:
                return
            self._seen.add(key)
            self.errors.append(one)

    def _place(self, error: DramaError) -> None:
        if self.place is not None and id(error) not in self._placed:
            self._placed[id(error)] = error
            self.place(error)

    @property
    def full(self) -> bool:
        """Whether the sink holds as many errors as it may (more are dropped)."""
        return self.limit is not None and len(self.errors) >= self.limit

    def raise_first(self) -> None:
        """Raise what was collected, if it holds any error: the one error, or an `ErrorList`."""
        found = [error for error in self.errors if not error.is_warning]
        if found:
            raise found[0] if len(found) == 1 else ErrorList(found)

    def __iter__(self):
        return iter(self.errors)

    def __len__(self) -> int:
        return len(self.errors)


def _identity(error: DramaError) -> tuple:
    return (error.code, error.position, error.message)


# a name longer than this has no close match worth showing (and comparing it costs its square)
_LONGEST_MATCHED = 80
# up to this many known names, each is compared; past it, only those an index of their
# one-character deletions finds near (a bounded cost per name, whatever the cast's size)
_COMPARED_ALL = 300
# the names `one_of` lists before it says how many more there are
_MOST_LISTED = 12

_INDEXES: dict[int, tuple[object, int, dict[str, str], dict[str, set[str]]]] = {}


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1:] for i in range(len(word))} | {word}


def _index(known) -> tuple[dict[str, str], dict[str, set[str]]]:
    """The known names by their case-folded form, and each case-folded name's
    one-character deletions; kept for a collection seen before (the cast's names,
    asked again for every misspelt name)."""
    kept = _INDEXES.get(id(known))
    if kept is not None and kept[0] is known and kept[1] == len(known):
        return kept[2], kept[3]
    folded: dict[str, str] = {}
    for k in known:
        folded.setdefault(k.casefold(), k)
    near: dict[str, set[str]] = {}
    if len(folded) > _COMPARED_ALL:
        for low in folded:
            if len(low) <= _LONGEST_MATCHED:
                for key in _deletions(low):
                    near.setdefault(key, set()).add(low)
        if len(_INDEXES) > 8:
            _INDEXES.clear()
        _INDEXES[id(known)] = (known, len(known), folded, near)
    return folded, near


def did_you_mean(name: str, known: Iterable[str]) -> str | None:
    """A 'did you mean' hint for a name close to a known one, or None. Its cost is
    bounded whatever the number of names: a long name is matched with none, and
    among many names only those within about two edits are compared."""
    if not isinstance(known, (dict, list, tuple, set, frozenset)):
        known = list(known)
    folded, near = _index(known)
    if name.casefold() in folded and folded[name.casefold()] != name:
        return f"did you mean '{folded[name.casefold()]}'?"
    if len(name) > _LONGEST_MATCHED:
        return None
    if near:        # many names: only those within two deletions of each other
        low = name.casefold()
        found: set[str] = set()
        for once in _deletions(low):
            for key in _deletions(once):
                found |= near.get(key, set())
        candidates = sorted(folded[f] for f in found)
    else:
        candidates = list(known)
    import difflib                 # (only when a name is unknown: not at every start)
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    if not close:
        lowered = {k.casefold(): k for k in candidates}
        close = [lowered[c] for c in difflib.get_close_matches(name.casefold(), list(lowered), n=1, cutoff=0.6)]
    return f"did you mean '{close[0]}'?" if close else None


def one_of(names: Iterable[str]) -> str:
    """'a, b or c' for an `expected:` line (the first _MOST_LISTED, and how many more)."""
    total = len(names) if hasattr(names, "__len__") else None
    names = list(itertools.islice(names, _MOST_LISTED + 1))
    total = len(names) if total is None else total
    shown = [f"'{n}'" for n in names[:_MOST_LISTED]]
    if not shown:
        return "nothing"
    if len(shown) == 1:
        return shown[0]
    if total > _MOST_LISTED:
        return ", ".join(shown) + f" or {total - _MOST_LISTED:,} more"
    return ", ".join(shown[:-1]) + " or " + shown[-1]


# a source line longer than this is shown cut around the caret
MAX_SHOWN = 160
# control characters shown as their Unicode pictures (NUL as U+2400), one column each
_PICTURES = {c: 0x2400 + c for c in range(32) if c != 9} | {127: 0x2421}


def _shown(text: str, start: int, end: int) -> tuple[str, int, int]:
    """A source line as shown under an error: control characters as pictures, and
    a long line (a line of an event log, say) cut to MAX_SHOWN characters around
    columns start..end (1-based), with `…` where it is cut; the columns moved."""
    text = text.translate(_PICTURES)
    if len(text) <= MAX_SHOWN:
        return text, start, end
    left = max(0, min(start - 1 - MAX_SHOWN // 4, len(text) - MAX_SHOWN))
    right = left + MAX_SHOWN
    cut = ("…" if left else "") + text[left:right] + ("…" if right < len(text) else "")
    moved = (1 if left else 0) - left
    return cut, start + moved, min(end + moved, MAX_SHOWN + 1 + (1 if left else 0))


def _source_line(position: Position | None, source: str | None) -> str | None:
    """The line an error points at, from `source` (its lines split once however many
    errors quote it; dsl/messages.py gives the file's text as the one reader read it)."""
    if position is None or position.line < 1:
        return None
    if source is None:
        return None
    lines = _lines_of(source)
    if position.line == len(lines) + 1:
        return ""                       # just past the end of the file
    if position.line > len(lines):
        return None
    return lines[position.line - 1]


def _split(source: str) -> list[str]:
    # lines end at \n only, as the parser and the YAML reader count them
    return source.replace("\r\n", "\n").replace("\r", "\n").split("\n")


_LINES: dict[int, tuple[bytes | str, list[str]]] = {}


def _lines_of(data: bytes | str) -> list[str]:
    """The lines of a file's text or bytes, split once however many errors quote it."""
    kept = _LINES.get(id(data))
    if kept is None or kept[0] is not data:
        if len(_LINES) > 8:
            _LINES.clear()
        kept = (data, _split(data if isinstance(data, str) else data.decode("utf-8-sig", "replace")))
        _LINES[id(data)] = kept
    return kept[1]
