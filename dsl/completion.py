"""Completion of a script line: what fits where the cursor is (a statement's keyword, a party, her moves, a trait, a condition's word), for `drama lsp` and `drama play`."""

# One engine, given the line up to the cursor and the cast (`Names`), answers
# with `Suggestion`s: the text, where in the line it starts (the fragment it
# replaces: `with Ember S` is replaced from `Ember`), its kind and a detail.
# The line is read as the grammar reads it (grammar/drama.lark): the actor is
# one word or quoted, other names run up to `with`, `but`, `so`, `vs`, `->`,
# `,` or `+`. A context it does not know gets no suggestion rather than every
# keyword.

from __future__ import annotations

import dataclasses
import re
from typing import Callable, Iterable

from .names import Names
from .scenes import KINDS_OF_SCENE
from .syntax.vocabulary import STATEMENT_WORDS, VERBS

__all__ = ["Suggestion", "complete", "STATEMENT_STARTS"]

# what a line may start with, besides an actor
STATEMENT_STARTS: tuple[str, ...] = tuple(w for w in STATEMENT_WORDS if w not in ("end", "else")) + (
    "else", "else if", "end", "end drama")
# what follows the actor: her moves (from the cast), and the statement verbs
_ACTOR_VERBS: tuple[str, ...] = tuple(v for v in VERBS if v not in ("defend", "lose", "loses")) + ("loses member",)
_AFTER_COMMA = ("roll", "rolled", "GM +1", "GM -1")
_AFTER_SUBJECT = ("is defeated", "is not defeated", "was defeated", "won the last exchange", "lost the last exchange",
                  "quintessence", "damage", "can recover")
_CONDITION_STARTS = ("not", "round", "last exchange won", "last exchange lost", "in drama", "choice")

_NAME = r'(?:"(?:[^"\\]|\\.)*"|[\w\'-]+)'               # an actor: one word or quoted
_FRAGMENT = re.compile(r"[\w'-]*$")


@dataclasses.dataclass(frozen=True)
class Suggestion:
    """One completion: `text` replaces the line from `start` (an index into the line) to the cursor."""

    text: str
    start: int
    kind: str               # keyword | party | role | move | trait | treasure | file | kind
    detail: str = ""


def complete(prefix: str, names: Names, *, files: Callable[[], Iterable[str]] | None = None,
             state: Iterable[str] = ()) -> list[Suggestion]:
    """What may complete `prefix` (a script line up to the cursor): the suggestions whose text starts
    with the fragment being typed (any case), without repeats."""
    found = _candidates(prefix, names, files, tuple(state))
    out, seen = [], set()
    for suggestion in found:
        typed = prefix[suggestion.start:]
        if suggestion.text.lower().startswith(typed.lower()) and suggestion.text not in seen:
            seen.add(suggestion.text)
            out.append(suggestion)
    return out


def _candidates(prefix: str, names: Names, files, state) -> list[Suggestion]:
    if _in_comment(prefix) or prefix.lstrip().startswith(">"):
        return []
    include = re.match(r'include\s+"(?P<path>[^"]*)$', prefix)
    if include:
        return [Suggestion(path, include.start("path"), "file") for path in (files() if files else ())]
    here = len(prefix) - len(_FRAGMENT.search(prefix).group())
    if prefix[:here].strip() == "":
        if prefix[:1] in (" ", "\t"):
            return _parties(names, here)                    # a participant line of a joint action
        return [Suggestion(w, here, "keyword") for w in STATEMENT_STARTS] + _parties(names, here)
    head = re.match(r"(?P<word>else\s+if|if|repeat\s+until|expect|option\s+\"[^\"]*\"[^#]*?\bif)\s+", prefix)
    if head:
        return _condition(prefix, head.end(), names, state)
    listing = re.match(r"(?P<word>drama\s+" + _NAME + r"\s+with|initiative|split|tie)\s+", prefix)
    if listing:
        return _listing(prefix, listing["word"].split()[0], listing.end(), names)
    actor = re.match(rf"(?P<actors>{_NAME}(?:\s*&\s*{_NAME})*)\s+", prefix)
    if actor and actor["actors"].split()[0] not in STATEMENT_WORDS:
        return _statement(prefix, actor, names)
    return []


def _in_comment(prefix: str) -> bool:
    quoted = False
    for char in prefix:
        if char == '"':
            quoted = not quoted
        elif char == "#" and not quoted:
            return True
    return False


def _unquote(name: str) -> str:
    return name[1:-1] if name.startswith('"') and name.endswith('"') else name


def _parties(names: Names, start: int, leave: Iterable[str] = ()) -> list[Suggestion]:
    """The parties and roles (those in `leave` excepted), each once."""
    left = set(leave)
    out = [Suggestion(role, start, "role", f"role, bound to {party or '(unbound)'}")
           for role, party in names.roles.items() if role not in left]
    out += [Suggestion(pid, start, "party", f"party: {sheet.name}")
            for pid, sheet in names.sheets.items() if pid not in left and pid not in names.roles]
    return out


def _party_of(names: Names, name: str) -> str | None:
    name = _unquote(name.strip())
    if name in names.sheets:
        return name
    if name.endswith("'s") and name[:-2] in names.sheets | names.roles:
        name = name[:-2]
    return names.roles.get(name) or (name if name in names.sheets else None)


def _after(prefix: str, start: int, pattern: str) -> int:
    """Where the last piece separated by `pattern` begins (after `start`), past its spaces."""
    last = start
    for match in re.finditer(pattern, prefix[start:]):
        last = start + match.end()
    while last < len(prefix) and prefix[last] in " \t":
        last += 1
    return last


# ---------------------------------------------------------------- `drama ... with`, `initiative`, `tie`, `split`

def _listing(prefix: str, word: str, start: int, names: Names) -> list[Suggestion]:
    """A list of parties: those not yet named; after `drama`'s parties, also its kind and `rounds of`."""
    here = _after(prefix, start, r",")
    named = {_unquote(piece.strip().split(" ")[0] if word == "split" else piece.strip())
             for piece in prefix[start:here].split(",") if piece.strip()}
    out = _parties(names, here, named)
    if word == "tie":
        out.append(Suggestion("GM", here, "keyword", "the GM settles the tie"))
    if word == "drama" and named:
        out += [Suggestion(f"a {kind}" if kind[0] not in "aeiou" else f"an {kind}", here, "kind",
                           "the kind of scene") for kind in KINDS_OF_SCENE]
        out.append(Suggestion("rounds of 1 minute", here, "keyword", "the situation's own round length"))
    return out


# ---------------------------------------------------------------- conditions

def _condition(prefix: str, start: int, names: Names, state: tuple[str, ...]) -> list[Suggestion]:
    """After `if`, `until`, `expect`: the current atom (after the last `and`, `or`, `not` or `(`)."""
    here = _after(prefix, start, r"\band\b|\bor\b|\bnot\b|\(|[<>]=?|!=|=|\+|(?<![\w'])-")
    atom = prefix[here:]
    subject = re.match(rf"(?P<subject>{_NAME})\s+", atom)
    if subject:
        pid = _party_of(names, subject["subject"])
        rest = here + subject.end()
        if pid is not None:
            return [Suggestion(words, rest, "keyword") for words in _AFTER_SUBJECT]
        return []
    out = _parties(names, here)
    out += [Suggestion(word, here, "keyword") for word in _CONDITION_STARTS]
    out += [Suggestion(name, here, "state", "a flag or counter") for name in state]
    return out


# ---------------------------------------------------------------- an action, a defence, a recovery ...

def _statement(prefix: str, actor: re.Match, names: Names) -> list[Suggestion]:
    first = re.split(r"\s*&\s*", actor["actors"])[0]
    pid = _party_of(names, first)
    start = actor.end()
    rest = prefix[start:]
    sheet = names.sheets.get(pid) if pid else None
    comma = rest.rfind(",")
    if comma >= 0:
        here = _after(prefix, start + comma, r",")
        tail = prefix[here:]
        helped = re.match(rf"helped\s+by\s+(?P<helper>.+?)\s+with\s+", tail)
        if helped:
            return _uses(prefix, here + helped.end(), names, _party_of(names, helped["helper"]), None)
        if re.match(r"helped\s+by\s+", tail):
            return _parties(names, _after(prefix, here, r"\bby\b"), {first})
        if " " in tail.strip():
            return []
        extra = [Suggestion("helped by", here, "keyword")] if re.match(r"recovers?\b", rest) else []
        return [Suggestion(w, here, "keyword") for w in _AFTER_COMMA] + extra
    uses = re.search(r"(?:^|\s)with\s+", rest)
    if uses:
        intent = re.match(rf"(?P<intent>{_NAME}(?:\s+[\w'-]+)*?)\s+(?:->|vs|with)\b", rest)
        return _uses(prefix, start + uses.end(), names, pid, intent["intent"] if intent else None)
    target = re.search(r"(?:->|\+)\s*", rest)
    if target:
        here = _after(prefix, start, r"->|\+")
        typed = prefix[here:]
        done = [p for p in [*names.roles, *names.sheets] if typed.startswith(p + " ")]
        if done:
            after = here + len(done[0]) + 1
            return [Suggestion(w, after, "keyword") for w in ("with", "but not", "so that", "+")]
        return _parties(names, here, {first})
    if re.fullmatch(r"[\w'-]*", rest):
        moves = [Suggestion(intent, start, "move", "move: " + " + ".join(n for n in (m.trait, m.treasure) if n))
                 for intent, m in (sheet.moves.items() if sheet else ())]
        return moves + [Suggestion(verb, start, "keyword") for verb in _ACTOR_VERBS]
    verb = re.match(r"(?P<verb>defends?|recovers)\s+", rest)
    if verb and re.fullmatch(r"[\w'-]*", rest[verb.end():]):
        return [Suggestion("with", start + verb.end(), "keyword")]
    intent = re.match(rf"{_NAME}\s+(?P<frag>[\w'-]*)$", rest)
    if intent:
        return [Suggestion(w, start + intent.start("frag"), "keyword") for w in ("->", "vs", "with")]
    return []


def _uses(prefix: str, start: int, names: Names, pid: str | None, intent: str | None) -> list[Suggestion]:
    """After `with`: the party's traits and treasures, and her moves; after `+`, what the first was not."""
    sheet = names.sheets.get(pid) if pid else None
    if sheet is None:
        return []
    here = _after(prefix, start, r"\+")
    given = [piece.strip() for piece in prefix[start:here].split("+") if piece.strip()]
    traits = [Suggestion(name, here, "trait", f"trait {level}") for name, level in sheet.traits.items()]
    treasures = [Suggestion(name, here, "treasure", f"treasure {value}") for name, value in sheet.treasures.items()]
    if given:
        if any(name in sheet.traits for name in given):
            return [s for s in treasures if s.text not in given]
        return [s for s in traits if s.text not in given]
    moves = []
    for name, move in sheet.moves.items():
        both = " + ".join(n for n in (move.trait, move.treasure) if n)
        if both:
            moves.append(Suggestion(both, here, "move", f"the move {name}"))
    if intent is not None and _unquote(intent) in sheet.moves:
        mine = [s for s in moves if s.detail == f"the move {_unquote(intent)}"]
        moves = mine + [s for s in moves if s not in mine]
    return moves + traits + treasures
