"""An entry's lines in the journal, printed as `record` of the whole journal would print them, from a short context of the entries before it (never the whole night), and never a line the journal's reader would refuse.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import DramaError, Position
from ..limits import MAX_LINE
from ..syntax import nodes as n
from ..syntax.printer import record


@dataclass(frozen=True, eq=False)
class Context:
    """What the printer needs to write the next entry as `record` writes the whole journal: the running
    situation's `drama` event, and the events of the last entry that wrote a line (frozen: a table's mark
    keeps it as it is).

    Whether an entry wrote a line is judged only when a next entry is printed (`last`), from the entries
    after the last one judged: a journal replayed on `--resume` prints nothing, and pays nothing for it."""

    drama: dict | None = None
    judged: tuple[dict, ...] = ()                    # `last`, once judged
    events: tuple[dict, ...] | None = None           # the latest entry's events, not judged yet
    before: "Context | None" = None                  # the context they came after (while not judged)

    @property
    def last(self) -> tuple[dict, ...]:
        """The events of the last entry that wrote a line."""
        waiting = []
        context = self
        while context.events is not None:           # back to the last context judged
            waiting.append(context)
            context = context.before
        last = context.judged
        for context in reversed(waiting):           # then each entry after it, in order, judged once
            if record(context.events[:0]) != record(list(context.events)):
                last = context.events
            object.__setattr__(context, "judged", last)
            object.__setattr__(context, "events", None)
            object.__setattr__(context, "before", None)
        return last

    def lines(self, start: list[dict], events: list[dict]) -> str:
        """The journal's lines for the events of an entry (`start`: the session's `start` event);
        E013 when one would be longer than a script's line may be."""
        last = self.last
        context = [*start, *([self.drama] if self.drama is not None and self.drama not in last else []), *last]
        head = record(context)
        try:
            whole = record(context + list(events))
        except ValueError:               # the printer's own check: a line the reader would refuse (E013)
            raise too_long() from None
        assert whole.startswith(head), "the printer wrote the context differently"
        return whole[len(head):]

    def after(self, events: list[dict]) -> "Context":
        """The context of the next entry's lines, once an entry's events are played."""
        drama = self.drama
        for event in events:
            kind = event.get("type")
            if kind == "drama":
                drama = event
            elif kind == "drama_end":
                drama = None
        return Context(drama, (), tuple(events), self)


def fits(text: str, first: n.Statement) -> None:
    """E013 when an entry's journal text has a line longer than a script's line may be (`limits.MAX_LINE`)."""
    if any(len(line) > MAX_LINE for line in text.split("\n")):
        error = too_long()
        error.position = first.pos
        raise error


def too_long() -> DramaError:
    """The entry would write a line the journal's reader refuses (E013 on --resume): refused, nothing written."""
    return DramaError("E013", f"this entry would write a line of more than {MAX_LINE:,} characters in the journal, "
                      f"which could not be read back", position=Position("<table>", 1, 1),
                      expected=f"an entry whose lines, as the journal writes them (placeholders filled in, every "
                               f"die given), have at most {MAX_LINE:,} characters",
                      hint="nothing was written: type it shorter, or as two statements")
