"""What the transcript says of each entry of the context, realised from the story
model (story.py) only: a situation's beginning and end, the order of turns, a
declared hold, an exchange and what it cost, an option, a recovery, time
passing, a member lost, a choice, and the recap (worded by the narrator)."""

from __future__ import annotations

import re
from typing import Any

from .grammar import finish, told_name
from .narrator import Narrator, Ref, join, sentence
from .story import Story
from .telling_exchanges import ExchangeTelling
from .telling_situations import SituationTelling

# the first words of an option's label that are no verb: "choose the left door", not "choose to"
# a French option that begins with an infinitive (`Traverser à gué`): `on choisit de traverser à gué`
_FRENCH_INFINITIVE = re.compile(r"(?!(?:le|la|les|un|une|des|du|mer|fer|hiver|enfer|pierre|terre|guerre|"
                                r"lumière|rivière|frontière|barrière|porte|autre|notre|votre)$)"
                                r"[a-zàâçéèêëîïôûù-]+(?:er|ir|re|oir)")
_NOT_VERBS = {"the", "a", "an", "this", "that", "these", "those", "my", "our", "their", "his", "her", "its",
              "your", "no", "one", "two", "both", "either", "neither", "north", "south", "east", "west", "left",
              "right", "up", "down"}


class Counted(str):
    """Words that count something (`two days`), with the count they agree as."""

    number = 1

    def __new__(cls, text: str, number: int):
        out = super().__new__(cls, text)
        out.number = number
        return out


_ARTICLES = {"the", "a", "an"}
# the first words of a label that say where or when the choice is made (`At the river`)
_PLACES = {"at", "by", "in", "on", "before", "after", "under", "over", "near", "beside", "across", "beyond",
           "outside", "inside", "upon", "beneath", "below", "above", "when", "where", "once", "as", "with",
           "into", "onto", "through", "past", "behind", "between", "among", "along", "around", "at", "during",
           "facing", "within", "without", "from", "to", "toward", "towards", "off", "if", "while", "now", "then"}


class Teller(SituationTelling, ExchangeTelling):
    """The `narrate` filter and its friends: one per rendering."""

    def __init__(self, narrator: Narrator, context: dict, story: Story):
        self.n = narrator
        self.story = story
        self.party = context["party"]
        self.numbers = context["numbers"]
        self.told: list[tuple[str, Any, str]] = []     # (kind of sentence, its fact, its words)
        self._ordered: dict[int, int] = {}            # situation -> the initiative that told its order
        self.quiet = self._quiet_stretches(context.get("rounds") or [])
        self._mergeable = False
        self._raw = ""
        self._raw_named = False
        self._raw_pronoun = ""
        self._raw_again = False

    # ------------------------------------------------------------ helpers

    def _cast(self, pid: str) -> dict:
        return self.party.get(pid) or {}

    def _words(self, pid: str, intent: str | None) -> dict:
        return ((self._cast(pid).get("words") or {}).get(intent or "") or {})

    def _word(self, key: str) -> str:
        return self.n.book.word(key)

    def _say(self, kind: str, fact: Any, outcome: str, key: str, roles: dict | None = None, **facts) -> str:
        """A phrase of `outcome`, noted as a sentence of `kind` realised from `fact`."""
        return self._note(kind, fact, self.n.say(outcome, key, roles or {}, **facts))

    def _note(self, kind: str, fact: Any, text: str) -> str:
        if text:      # noted as the reader will see it: in the language's typography
            self.told.append((kind, fact, finish(self.n.lang, text)))
        return text

    # ------------------------------------------------------------ entries

    def item(self, item: dict) -> str:
        """The paragraph of any entry of a section or a round, but a drama."""
        self.n.scene(item)
        self.n.it_taken = False
        kind = item["kind"]
        step = item["step"]
        if kind == "narration":
            self.n.break_()
            return self._note("narration", step, item["text"])
        if kind == "initiative":
            return self.initiative(item)
        if kind == "exchange":
            act = self.story.acts.get(step)
            if self.quiet.get(step):
                return self.summary(*self.quiet[step])
            if self.quiet.get(step) == ():
                return ""
            return self.exchange(act) if act is not None and act.told else ""
        if kind == "hold":
            return self.hold(item)
        if kind == "option":
            act = self.story.acts.get(step)
            return join(self.option(o) for o in act.options) if act is not None else ""
        if kind == "defeat":
            party = self.story.defeats.get(step)
            if not party:
                return ""
            return sentence(self._say("defeat", party, "defeat", str(step), {"P": Ref(party)},
                                      role=self._defeat_role(step, party[0])))
        if kind == "recovery":
            return self.recovery(item)
        if kind in ("calm", "rest"):
            return self.time_passes(item)
        if kind == "member_lost":
            return self.member_lost(item)
        if kind == "choice":
            return self.choice(item)
        if kind == "scene":
            self.n.break_()
            return item["title"]
        return ""

    # ------------------------------------------------------------ quiet stretches

    # the turning points: a round with none of them (and nothing else told but
    # exchanges) has nothing new to tell
    NEW = ("first_blood", "double_win", "tie", "running_dry", "defeat", "recovery")

    def tells(self, item: dict) -> bool:
        """Whether the entry has anything to say: no action at the fallen, no
        automatic hold, nothing of what the transcript does not tell."""
        kind = item["kind"]
        if kind in ("other", "drama"):
            return False
        if kind == "exchange" and self.quiet.get(item["step"]) == ():
            return False
        if kind in ("exchange", "option"):
            act = self.story.acts.get(item["step"])
            return act is not None and (act.told or (kind == "option" and bool(act.options)))
        if kind == "hold":
            return self.story.hold_told(item["step"])
        if kind == "defeat":
            return item["step"] in self.story.defeats
        if kind == "initiative":
            return bool(self._order(item))
        return True



    # ------------------------------------------------------------ situations






    # ------------------------------------------------------------ holds


    # ------------------------------------------------------------ exchanges










    # ------------------------------------------------------------ the rest

    def option(self, o) -> str:
        n = self.n
        p = Ref((o.party,))
        k = str(o.step)
        if o.option == "dictate":
            text = sentence(self._say("dictate", o, "dictate", k, {"P": p}))
            n.break_()
            return join([text, sentence(self._note("dictated", o, o.text))])
        if o.lost <= 0 and o.returned <= 0:
            outcome = "reroll_unhurt"
        else:
            outcome = "reroll" if o.returned > 0 else "reroll_none"
        text = self._say("reroll", o, outcome, k, {"P": p})
        if self.numbers:
            text += f" ({o.returned} {self._word('back')})"
        return sentence(text)

    def recovery(self, item: dict) -> str:
        r = self.story.recoveries.get(item["step"])
        if r is None:
            return ""
        p = Ref((r.party,))
        helpers = Ref(r.helpers)
        if r.returned > 0:
            outcome = "rushed_recovery" if r.rushed else "recovery"
        elif r.pool_before <= 0:
            outcome = "recovery_unhurt"
        else:
            outcome = "recovery_none"
        text = self._say("recovery", r, outcome, str(item["key"]), {"P": p, "H": helpers}, helped=bool(r.helpers),
                         rushed=r.rushed)
        if self.numbers:
            text += f" ({r.returned} {self._word('back')})"
        return sentence(text)

    def time_passes(self, item: dict) -> str:
        n = self.n
        n.break_()
        out = [sentence(self._say("time", item["step"], item["kind"], str(item["key"]), {"D": self.duration(item)}))]
        if item["restored"]:
            out.append(sentence(self._say("restored", tuple(item["restored"]), "restored", f"{item['key']}:r",
                                          {"P": Ref(tuple(item["restored"]))})))
        return join(out)

    def duration(self, item: dict) -> str:
        """In-world time as the script wrote it, or in the book's language (Babel)."""
        if self.n.book.written_durations:
            return self._spelled(str(item["duration"]))
        from datetime import timedelta
        from babel.dates import format_timedelta
        return format_timedelta(timedelta(seconds=item.get("seconds", 0)), threshold=1.0,
                                locale=self.n.book.locale)

    def _spelled(self, text: str) -> str:
        """`1 hour` -> `an hour`, `2 days` -> `two days`: a count under ten in
        words, as prose writes it (the number stays a number for agreement)."""
        match = re.fullmatch(r"(\d+) (\w+)", text.strip())
        if match is None:
            return text
        count, unit = int(match.group(1)), match.group(2)
        words = self.n.book.words
        if count == 1 and "a" in words and "an" in words:
            article = words["an"] if unit[:1].lower() in "aeiou" or unit.lower().startswith("hour") else words["a"]
            return Counted(f"{article} {unit}", 1)
        spelled = words.get(f"number_{count}") if count < 10 else None
        return Counted(f"{spelled} {unit}", count) if spelled else text

    def member_lost(self, item: dict) -> str:
        pid = item["party"]
        member = told_name(item.get("member") or "", {}, self.n.lang)      # as the cast's members are told
        members = self.n.standing_members.get(pid)
        if members is not None and member in members:
            members.remove(member)
        return sentence(self._say("member_lost", (pid, member), "member_lost", str(item["key"]),
                                  {"P": Ref((pid,)), "M": member}))

    def choice(self, item: dict) -> str:
        """`At the river, they choose to wade across.`: the label as where the
        choice is made, the option as what they do."""
        label = (item.get("choice") or "").strip()
        taken = (item.get("taken") or "").strip()
        if item.get("taken") is None:
            return sentence(self._note("choice", item["step"], item.get("text") or ""))
        party = item["event"].get("party")
        # who chooses: the party the script names; else nobody is named (`they`,
        # `on`): the parties of the story are not all the players' (a river, a warden)
        ids = (party,) if party else ()
        first = taken.split(" ", 1)[0].lower() if taken else ""
        english = self.n.book.english_verbs
        verb = first not in _NOT_VERBS if english else self.n.lang == "fr" and bool(_FRENCH_INFINITIVE.fullmatch(first))
        # a verb goes on after `to`; an article is lower case inside a sentence (`falls on the old ford`)
        option = taken[:1].lower() + taken[1:] if verb or (english and first in _ARTICLES) else taken
        outcome = "choice_to" if verb else "choice"
        question = label.endswith(("?", "!"))
        where = label.rstrip(":").rstrip()
        about = self.n.book.words.get("choice_about")
        if english and about and not question and where.split(" ", 1)[0].lower() not in _PLACES:
            # `The bridge` is no place to stand: `As for the bridge, the choice is to burn it`
            head = where.split(" ", 1)[0]
            where = about.replace("%s", (head.lower() if head.lower() in _ARTICLES else head) + where[len(head):])
        text = self._say("choice", item["step"], outcome, str(item["key"]),
                         {"P": Ref(ids), "where": where, "option": option}, question=question, alone=not ids)
        # the label's question ends a sentence: what follows it begins one
        text = re.sub(r"([?!]) (\w)", lambda m: m.group(1) + " " + m.group(2).upper(), text)
        return sentence(text)

    def recap(self, parties: list[dict]) -> str:
        """Who took part and stands at the end, who fell and stayed down, who fell
        and came back."""
        n = self.n
        n.break_()
        story = self.story
        took = [p["id"] for p in parties if p["id"] in story.took_part]
        fallen = tuple(p for p in took if p in story.fell and p not in story.came_back and self._down(p))
        back = tuple(p for p in took if p in story.fell and p not in fallen)
        standing = tuple(p for p in took if p not in fallen and p not in back)
        out = []
        n.introduced = set()
        n.list_line = True
        if standing:
            out.append(sentence(self._say("recap", ("standing", standing), "recap_standing", "recap",
                                          {"P": Ref(standing)})))
        if back:
            out.append(sentence(self._say("recap", ("back", back), "recap_came_back", "recap", {"P": Ref(back)})))
        if fallen:
            out.append(sentence(self._say("recap", ("fallen", fallen), "recap_fallen", "recap", {"P": Ref(fallen)})))
        n.list_line = False
        return join(out)

    def _down(self, pid: str) -> bool:
        """Fallen in the last situation it took part in (defeats end with a situation,
        but a party that fell and took part in no later one is still told as fallen)."""
        last = [s for s in self.story.situations if pid in s.took_part]
        return bool(last) and pid in last[-1].fallen
