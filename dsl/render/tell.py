"""What the transcript says of each entry of the context: the sentences of a
dramatic situation's beginning and end, a round, an exchange, an option, a
recovery, time passing, a member lost, and the recap (built by the narrator)."""

from __future__ import annotations

from typing import Any

from ..durations import format_seconds
from .narrator import Narrator, Ref, Words, ids_of, join, sentence


class Teller:
    """The `narrate` filter and its friends: one per rendering."""

    def __init__(self, narrator: Narrator, context: dict):
        self.n = narrator
        self.party = context["party"]
        self.numbers = context["numbers"]
        self.dictated: list[str] = []

    # ------------------------------------------------------------ helpers

    def _cast(self, pid: str) -> dict:
        return self.party.get(pid) or {}

    def _words(self, pid: str, intent: str | None) -> dict:
        return ((self._cast(pid).get("words") or {}).get(intent or "") or {})

    def _word(self, key: str) -> str:
        return self.n.book.word(key)

    # ------------------------------------------------------------ entries

    def item(self, item: dict) -> str:
        """The paragraph of any entry of a section or a round, but a drama."""
        self.n.scene(item)
        kind = item["kind"]
        if kind == "narration":
            self.n.break_()
            return item["text"]
        if kind == "initiative":
            return self.initiative(item)
        if kind == "exchange":
            return self.exchange(item)
        if kind == "option":
            return self.option(item)
        if kind == "defeat":
            return sentence(self.n.say("defeat", f"{item['key']}", {"P": Ref(ids_of(item["party"]))}))
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
        return ""        # holds, and what the transcript does not tell

    def tells(self, item: dict) -> bool:
        """Whether the entry has anything to say (holds are told only when the
        held action is used, with that action)."""
        return item["kind"] not in ("hold", "other", "drama")

    def drama_begins(self, d: dict) -> str:
        self.n.scene(d)
        self.n.kind = d.get("scene_kind") or "fight"
        ids = tuple(d["party_ids"])
        text = self.n.say("begin", f"{d['key']}", {"all": Ref(ids), "name": d["name"]})
        if self.numbers:
            rounds = d["event"].get("rounds_of")
            text += (f" ({d['name']}, {self._word('at')} {format_seconds(d['event'].get('time', 0))}"
                     + (f", {self._word('in_rounds_of')} {rounds}" if rounds else "") + ")")
        return sentence(text)

    def initiative(self, item: dict) -> str:
        order = list(item["order"])
        if not order:
            return ""
        text = self.n.say("first", f"{item['key']}", {"first": Ref((order[0],)), "rest": Ref(tuple(order[1:]))},
                          alone=len(order) == 1)
        if self.numbers and item["rolls"]:
            rolls = ", ".join(f"{r['party']} {'/'.join(map(str, r['results']))}" for r in item["rolls"])
            text += f" ({self._word('initiative')} {rolls})"
        return sentence(text)

    def round_begins(self, r: dict) -> str:
        text = self.n.say("round", f"{r['key']}")
        if self.numbers:
            text += f" ({self._word('round')} {r['number']}, {self._word('at')} {format_seconds(r['time'])})"
        self.n.break_()
        return sentence(text)

    def drama_ends(self, d: dict) -> str:
        end = d["end"]
        out = [self.n.say("end", f"{end['key']}", {"name": d["name"]})]
        if self.numbers:
            out[0] += (f" ({end['drama']}: {end['rounds']} {self._word('rounds' if end['rounds'] != 1 else 'round')}"
                       f", {format_seconds(end.get('time', 0))})")
        out = [sentence(out[0])]
        if end.get("text"):
            self.n.break_()
            out.append(sentence(end["text"]))
        return join(out)

    # ------------------------------------------------------------ exchanges

    def exchange(self, item: dict) -> str:
        n = self.n
        k = str(item["key"])
        action = item["action"]
        out: list[str] = []
        attacker = Ref(ids_of(item["attacker"]))
        held = [pid for pid in ((item.get("turn") or {}).get("held") or []) if pid in attacker.ids]
        if held:
            out.append(sentence(n.say("held", k, {"P": Ref(tuple(held))})))
        targets = Ref(ids_of(item["targets"]))
        intent = item.get("intent") or ""
        single = len(attacker.ids) == 1
        words = self._words(attacker.ids[0], intent) if single else {}
        gm = action.get("gm_target") is not None
        if not intent.strip() and not words.get("says"):
            # the writer's words have no translation in the language: told without them
            text = n.say("act_gm_plain" if gm else "act_plain", k, {"A": attacker, "T": targets})
        elif words.get("says"):
            text = n.fill("{A} {S}", k + ":act", {"A": attacker, "S": Words(words["says"], "A"), "T": targets})
        elif (action.get("intent_quoted") or " " in intent.strip()) and not action.get("intent_move"):
            verb = n.verb(intent, attacker, True)
            if gm:
                text = n.say("act_gm_verb", k, {"A": attacker, "V": verb})
            elif self._names_target(intent, item["targets"]):
                text = n.say("act_verb_named", k, {"A": attacker, "V": verb})
            else:
                text = n.say("act_verb", k, {"A": attacker, "T": targets, "V": verb})
        else:
            label = n.label(intent)
            if gm:
                text = n.say("act_gm_label", k, {"A": attacker, "I": label})
            else:
                text = n.say("act_label", k, {"A": attacker, "T": targets, "I": label})
        text += self._qualifiers(attacker, action.get("qualifiers") or [], k)
        out.append(sentence(text))
        if self.numbers and item["spent"]:
            spent = ", ".join(f"{pid} {self._word('spent')} {amount}" for pid, amount in item["spent"].items())
            out.append(f"({spent}.)")
        for c in item["comparisons"]:
            out.extend(self._comparison(item, c, attacker, words))
        for d in item["defeats"]:
            out.append(sentence(n.say("defeat", f"{d['key']}", {"P": Ref(ids_of(d["party"]))})))
        for o in item["options"]:
            out.append(self.option(o))
        return join(out)

    def _names_target(self, intent: str, targets: list) -> bool:
        text = intent.lower()
        for pid in ids_of(targets):
            p = self.party.get(pid)
            if p is not None and (p["short"].lower() in text or pid.lower() in text):
                return True
        return False

    def _qualifiers(self, attacker: Ref, qualifiers: list, key: str) -> str:
        out = ""
        for q in qualifiers:
            written = ("but not " if q.get("kind") == "not" else "so that ") + q.get("text", "")
            clause = None
            for pid in attacker.ids:
                clause = clause or (self._cast(pid).get("clauses") or {}).get(" ".join(written.split()))
            if clause:
                out += self._clause("clause", key, clause)
            else:
                out += self._clause("but_not" if q.get("kind") == "not" else "so_that", key, q.get("text", ""))
        return out

    def _clause(self, outcome: str, key: str, text: str) -> str:
        phrase = self.n.pick(outcome, key + ":" + text)
        return phrase.replace("{text}", text)

    def _comparison(self, item: dict, c: dict, attacker: Ref, words: dict) -> list[str]:
        n = self.n
        k = f"{c['key']}:{c.get('index', 0)}"
        out: list[str] = []
        defender = Ref(ids_of(c["defender"]))
        if not c["against_gm"] and len(defender.ids) == 1:
            said = self._words(defender.ids[0], "defend").get("says")
            if said:
                out.append(sentence(n.fill("{D} {S}", k + ":defend", {"D": defender, "S": Words(said, "D"),
                                                                     "T": attacker})))
        roles = {"A": attacker, "D": defender}
        if c["against_gm"]:
            if c["tie"] and c["winner"] == "GM":
                outcome = "gm_tie"
            elif c["attacker_won"]:
                outcome = "gm_double_win" if c["double"] else "gm_win"
            else:
                outcome = "gm_lose"
        else:
            won = c["attacker_won"]
            roles["W"] = attacker if won else defender
            roles["L"] = defender if won else attacker
            if c["tie"]:
                outcome = "tie"
            elif c["double"]:
                outcome = "double_win" if won else "double_lose"
            else:
                outcome = "win" if won else "lose"
            mine = words.get("hit" if won else "miss")
            if mine and not c["tie"]:
                text = n.fill("{S}", k, {"S": n.words(mine, defender), "T": defender})
                out.append(sentence(text + self._values(c)))
                out.extend(self._spent_out(c))
                return out
        text = n.say(outcome, k, roles, settled=c.get("tie_settled_by"), double=bool(c.get("double")))
        out.append(sentence(text + self._values(c)))
        out.extend(self._spent_out(c))
        return out

    def _values(self, c: dict) -> str:
        if not self.numbers:
            return ""
        values = c["values"]
        theirs = c.get("target") if c["against_gm"] else values.get(c["defender"])
        return f" ({values.get(c['attacker'])} {self._word('against')} {theirs})"

    def _spent_out(self, c: dict) -> list[str]:
        out = []
        for loss in c["losses"]:
            after = loss.get("after") or {}
            if loss.get("amount", 0) > 0 and after.get("quintessence") == 0 and not after.get("defeated"):
                out.append(sentence(self.n.say("spent_out", f"{c['key']}:{loss['party']}",
                                               {"P": Ref((loss["party"],))})))
        return out

    # ------------------------------------------------------------ the rest

    def option(self, o: dict) -> str:
        n = self.n
        p = Ref(ids_of(o["party"]))
        k = str(o["key"])
        if o["option"] == "dictate":
            text = sentence(n.say("dictate", k, {"P": p}))
            n.break_()
            self.dictated.append(o.get("text") or "")
            return join([text, sentence(o.get("text") or "")])
        outcome = "reroll" if o.get("returned", 0) > 0 else "reroll_none"
        text = n.say(outcome, k, {"P": p})
        if self.numbers:
            text += f" ({o.get('returned', 0)} {self._word('back')})"
        return sentence(text)

    def recovery(self, item: dict) -> str:
        n = self.n
        p = Ref(ids_of(item["party"]))
        helpers = Ref(ids_of(item["helpers"]))
        if item.get("returned", 0) <= 0:
            outcome = "recovery_none"
        else:
            outcome = "rushed_recovery" if item["rushed"] else "recovery"
        text = n.say(outcome, str(item["key"]), {"P": p, "H": helpers}, helped=bool(item["helpers"]),
                     rushed=bool(item["rushed"]))
        if self.numbers:
            text += f" ({item.get('returned', 0)} {self._word('back')})"
        return sentence(text)

    def time_passes(self, item: dict) -> str:
        n = self.n
        n.break_()
        out = [sentence(n.say(item["kind"], str(item["key"]), {"D": self.duration(item)}))]
        if item["restored"]:
            out.append(sentence(n.say("restored", f"{item['key']}:r", {"P": Ref(tuple(item["restored"]))})))
        return join(out)

    def duration(self, item: dict) -> str:
        """In-world time as the script wrote it, or in the book's language (Babel)."""
        if self.n.book.written_durations:
            return item["duration"]
        from datetime import timedelta
        from babel.dates import format_timedelta
        return format_timedelta(timedelta(seconds=item.get("seconds", 0)), threshold=1.0,
                                locale=self.n.book.locale)

    def member_lost(self, item: dict) -> str:
        pid = item["party"]
        member = item.get("member") or ""
        members = self.n.standing_members.get(pid)
        if members is not None and member in members:
            members.remove(member)
        return sentence(self.n.say("member_lost", str(item["key"]), {"P": Ref((pid,)), "M": member}))

    def choice(self, item: dict) -> str:
        text = f"{item.get('choice') or ''}: “{item.get('taken') or ''}”" if item.get("taken") is not None \
            else (item.get("text") or "")
        party = item["event"].get("party")
        return sentence(self.n.say("choice", str(item["key"]), {"P": Ref(ids_of(party)) if party else "",
                                                                  "text": text}))

    def recap(self, parties: list[dict]) -> str:
        """Who stood, who fell, and what was dictated."""
        n = self.n
        n.break_()
        standing = tuple(p["id"] for p in parties if not p["defeats"])
        fallen = tuple(p["id"] for p in parties if p["defeats"])
        out = []
        n.introduced = set()
        if standing:
            out.append(sentence(n.say("recap_standing", "recap", {"P": Ref(standing)})))
        if fallen:
            out.append(sentence(n.say("recap_fallen", "recap", {"P": Ref(fallen)})))
        for text in self.dictated:
            if text:
                out.append(sentence(n.say("recap_dictated", "recap:" + text, {"text": text})))
        return join(out)
