"""What the transcript says of each entry of the context, realised from the story
model (story.py) only: a situation's beginning and end, the order of turns, a
declared hold, an exchange and what it cost, an option, a recovery, time
passing, a member lost, a choice, and the recap (worded by the narrator)."""

from __future__ import annotations

from typing import Any

from ..durations import format_seconds
from .grammar import finish
from .narrator import Narrator, Ref, Words, english_bare, join, sentence, stable_hash
from .story import Act, Clash, Situation, Story

# the first words of an option's label that are no verb: "choose the left door", not "choose to"
_NOT_VERBS = {"the", "a", "an", "this", "that", "these", "those", "my", "our", "their", "his", "her", "its",
              "your", "no", "one", "two", "both", "either", "neither", "north", "south", "east", "west", "left",
              "right", "up", "down"}


class Teller:
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
                                      role=self._role(step, party)))
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

    def _quiet_stretches(self, rounds: list[dict]) -> dict[int, tuple]:
        """Two or more rounds in a row, neither a situation's first nor its last,
        with nothing new in them: they are told in one summary sentence, at the
        first exchange of the stretch (step -> (the stretch's rounds, its acts)),
        and their exchanges are told no more (step -> ())."""
        story = self.story
        new_at = {p.step for p in story.points if p.kind in self.NEW}
        by_drama: dict[str, list[dict]] = {}
        for r in rounds:
            by_drama.setdefault(r["drama"], []).append(r)
        out: dict[int, tuple] = {}
        for group in by_drama.values():
            quiet = []
            for r in group[1:-1]:
                acts = [story.acts.get(i["step"]) for i in r["entries"] if i["kind"] == "exchange"]
                acts = [a for a in acts if a is not None and a.told]
                busy = any(i["kind"] not in ("exchange", "other", "initiative") for i in r["entries"])
                steps = {c.step for a in acts for c in a.clashes} | {a.step for a in acts}
                calm = acts and not busy and not (steps & new_at) and not any(
                    a.declared_hold or a.options or a.defeats for a in acts)
                quiet.append((r, acts) if calm else None)
            quiet.append(None)
            run: list = []
            for entry in quiet:
                if entry is not None:
                    run.append(entry)
                    continue
                if len(run) >= 2:
                    acts = tuple(a for _, a_list in run for a in a_list)
                    out[acts[0].step] = (tuple(r for r, _ in run), acts)
                    for a in acts[1:]:
                        out[a.step] = ()
                    for r, _ in run:
                        out[r["step"]] = ()
                run = []
        return out

    def summary(self, rounds: tuple, acts: tuple) -> str:
        """`For three more rounds, Ash and Harrow trade blows; Harrow takes the worst of it.`"""
        ids: list[str] = []
        costs: dict[str, int] = {}
        for act in acts:
            for pid in act.actors + act.target_ids:
                if pid not in ids:
                    ids.append(pid)
            for c in act.clashes:
                for pid, amount in c.costs.items():
                    costs[pid] = costs.get(pid, 0) + amount
        worst = max(costs.values(), default=0)
        losers = tuple(p for p in ids if costs.get(p, 0) == worst and worst > 0)
        count = self.n.book.words.get(f"number_{len(rounds)}", str(len(rounds)))
        text = self._say("summary", (rounds, acts), "summary", f"{acts[0].step}:summary",
                         {"all": Ref(tuple(ids)), "N": count})
        if len(losers) == 1:
            text += self._word("summary_then") + self._say("summary", (rounds, acts), "summary_worst",
                                                           f"{acts[0].step}:worst", {"P": Ref(losers)})
        return sentence(text)

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
            return item["step"] in self.story.holds
        if kind == "defeat":
            return item["step"] in self.story.defeats
        if kind == "initiative":
            return bool(self._order(item))
        return True

    def _situation(self, step: int) -> Situation | None:
        return self.story.situation_at(step)

    def _role(self, step: int, ids) -> str:
        sit = self._situation(step)
        return sit.role(ids) if sit is not None else ""

    # ------------------------------------------------------------ situations

    def drama_begins(self, d: dict) -> str:
        self.n.scene(d)
        self.n.kind = d.get("scene_kind") or "fight"
        sit = self._situation(d["step"])
        ids = tuple(p for p in d["party_ids"] if sit is None or not sit.took_part or p in sit.took_part)
        out = [self._say("begin", ids, "begin", f"{d['key']}", {"all": Ref(ids), "name": d["name"]})]
        if self.numbers:
            rounds = d["event"].get("rounds_of")
            out[0] += (f" ({d['name']}, {self._word('at')} {format_seconds(d['event'].get('time', 0))}"
                       + (f", {self._word('in_rounds_of')} {rounds}" if rounds else "") + ")")
        out = [sentence(out[0])]
        if sit is not None and sit.quarry and sit.pursuers:
            pursuers = tuple(p for p in sit.pursuers if p in ids) or sit.pursuers
            out.append(sentence(self._say("roles", (sit.quarry, pursuers), "roles", f"{d['key']}:roles",
                                          {"Q": Ref(sit.quarry), "P": Ref(pursuers)})))
        for pid in ids:
            members = self.n.standing_members.get(pid) or []
            if self._cast(pid).get("group") and len(members) > 1 and pid not in self.n.members_told:
                self.n.members_told.add(pid)
                out.append(sentence(self._say("members", pid, "members", f"{d['key']}:{pid}",
                                              {"P": Ref((pid,)), "M": self.n.book.join(members)})))
        return join(out)

    def _order(self, item: dict) -> tuple[str, ...]:
        """The order sentence names who really acted first in the situation's first
        round, then the others in the order they acted: once per situation."""
        sit = self._situation(item["step"])
        if sit is None or not sit.order or self._ordered.get(sit.step, item["step"]) != item["step"]:
            return ()
        return sit.order

    def initiative(self, item: dict) -> str:
        order = self._order(item)
        if not order:
            return ""
        sit = self._situation(item["step"])
        self._ordered[sit.step] = item["step"]
        text = self._say("order", (sit.step, order), "first", f"{item['key']}",
                         {"first": Ref((order[0],)), "rest": Ref(tuple(order[1:]))}, alone=len(order) == 1)
        if self.numbers and item["rolls"]:
            rolls = ", ".join(f"{r['party']} {'/'.join(map(str, r['results']))}" for r in item["rolls"])
            text += f" ({self._word('initiative')} {rolls})"
        return sentence(text)

    def round_begins(self, r: dict) -> str:
        if self.quiet.get(r["step"]) == ():
            return ""                 # a quiet stretch: its summary says how long it went on
        text = self._say("round", r["number"], "round", f"{r['key']}")
        if self.numbers:
            text += f" ({self._word('round')} {r['number']}, {self._word('at')} {format_seconds(r['time'])})"
        self.n.break_()
        return sentence(text)

    def drama_ends(self, d: dict) -> str:
        """The script's closing text if it has one (told once, never paraphrased
        as well), else a closing phrase."""
        end = d["end"]
        closing = end.get("text")
        if closing and not self.numbers:
            self.n.break_()
            return sentence(self._note("end_text", end["step"], closing))
        out = [self._say("end", end["step"], "end", f"{end['key']}", {"name": d["name"]})]
        if self.numbers:
            out[0] += (f" ({end['drama']}: {end['rounds']} {self._word('rounds' if end['rounds'] != 1 else 'round')}"
                       f", {format_seconds(end.get('time', 0))})")
        out = [sentence(out[0])]
        if closing:
            self.n.break_()
            out.append(sentence(self._note("end_text", end["step"], closing)))
        return join(out)

    # ------------------------------------------------------------ holds

    def hold(self, item: dict) -> str:
        hold = self.story.holds.get(item["step"])
        if hold is None:
            return ""
        return sentence(self._say("hold", hold, "hold", str(item["key"]), {"P": Ref((hold.party,))},
                                  used=hold.used))

    # ------------------------------------------------------------ exchanges

    def exchange(self, act: Act) -> str:
        n = self.n
        k = str(act.step)
        out: list[str] = []
        attacker = Ref(act.actors)
        held = self._say("held", act, "held", k, {"P": Ref(act.declared_hold)}) if act.declared_hold else ""
        targets = Ref(act.target_ids)
        gm = act.gm_target is not None and not act.targets
        intent = act.intent
        words = self._words(act.actors[0], intent) if len(act.actors) == 1 else {}
        role = self._role(act.step, act.actors) or "none"
        says = words.get("says")
        if says and gm and "{target}" in says:
            says = None                       # the words are aimed at a party: not at a target number
        if not intent.strip() and not says:
            # the writer's words have no translation in the language: told without them (dsl/catalogue.py)
            text = n.say("act_gm_plain" if gm else "act_plain", k, {"A": attacker, "T": targets}, role=role)
        elif says:
            text = n.fill("{A} {S}", k + ":act", {"A": attacker, "S": n.words(says, "A"), "T": targets})
        elif (act.quoted or " " in intent.strip()) and not act.move:
            verb = english_bare(intent) if n.book.english_verbs else intent
            if gm:
                text = n.say("act_gm_verb", k, {"A": attacker, "V": verb}, role=role)
            elif self._names_target(intent, act.target_ids):
                text = n.say("act_verb_named", k, {"A": attacker, "V": verb}, role=role)
            else:
                text = n.say("act_verb", k, {"A": attacker, "T": targets, "V": verb}, role=role)
        else:
            label = n.label(intent)
            if gm:
                text = n.say("act_gm_label", k, {"A": attacker, "I": label}, role=role)
            else:
                text = n.say("act_label", k, {"A": attacker, "T": targets, "I": label}, role=role)
        if held:
            # the declared hold opens the action's sentence: `At last, the Overlord ...`
            text = held + self._word("held_then") + (text if n.opened_with_name else self._lower(text))
        text += self._qualifiers(attacker, act, k)
        self._note("action", act, text)
        action = sentence(text)
        if self.numbers and act.spent:
            spent = ", ".join(f"{pid} {self._word('spent')} {amount}" for pid, amount in act.spent.items())
            action += f" ({spent}.)"
        results: list[str] = []
        first_raw, first_named = "", False
        for c in act.clashes:
            results.extend(self._clash(act, c, attacker, words))
            if c is act.clashes[0]:
                first_raw, first_named = self._raw, self._raw_named
        # an action and its lone result in one sentence, where it reads well
        if results and len(act.clashes) == 1 and self._mergeable and not self.numbers and ":" not in first_raw \
                and first_raw.split(" ", 1)[0] not in ("And", "But", "Then", "Now") \
                and ", and " not in first_raw and ", but " not in first_raw \
                and len(action) + len(results[0]) < 150 and stable_hash(f"{n.seed}:{k}:merge") % 2 == 0:
            c = act.clashes[0]
            joiner = self._word("and_then" if c.attacker_won else "but_then")
            raw = sentence(first_raw)
            action = action[:-1] + joiner + (first_raw[:1] + raw[1:] if first_named else self._lower(raw))
            results = results[1:]
        out.append(action)
        out.extend(results)
        for pid in act.defeats:
            out.append(sentence(self._say("defeat", (pid,), "defeat", f"{act.step}:{pid}", {"P": Ref((pid,))},
                                          role=self._role(act.step, (pid,)))))
        for o in act.options:
            out.append(self.option(o))
        return join(out)

    @staticmethod
    def _lower(text: str) -> str:
        return text[:1].lower() + text[1:]

    def _names_target(self, intent: str, targets) -> bool:
        text = intent.lower()
        for pid in targets:
            p = self.party.get(pid)
            if p is not None and (p["short"].lower() in text or pid.lower() in text):
                return True
        return False

    def _qualifiers(self, attacker: Ref, act: Act, key: str) -> str:
        out = ""
        for kind, text in act.qualifiers:
            written = ("but not " if kind == "not" else "so that ") + text
            clause = None
            for pid in attacker.ids:
                clause = clause or (self._cast(pid).get("clauses") or {}).get(" ".join(written.split()))
            if clause:
                out += self._clause("clause", key, clause)
            else:
                out += self._clause("but_not" if kind == "not" else "so_that", key, text)
        return out

    def _clause(self, outcome: str, key: str, text: str) -> str:
        phrase = self.n.pick(outcome, key + ":" + text)
        return phrase.replace("{text}", text)

    def _clash(self, act: Act, c: Clash, attacker: Ref, words: dict) -> list[str]:
        """The sentences of one comparison: the defence in the writer's words when
        it used its `defend` move, who wins (and how far), and a heavy cost."""
        n = self.n
        k = f"{c.step}:{c.index}"
        out: list[str] = []
        self._mergeable = True
        defender = Ref(c.defender)
        if not c.against_gm and len(c.defender) == 1 and c.defence_move:
            said = self._words(c.defender[0], "defend").get("says")
            if said:
                out.append(sentence(self._note("defence", c, n.fill("{D} {S}", k + ":defend", {
                    "D": defender, "S": n.words(said, "D"), "T": attacker}))))
                self._mergeable = False
        winner, loser = Ref(c.winner), Ref(c.loser)
        roles = {"A": attacker, "D": defender, "W": winner, "L": loser}
        facts = {"role": c.winner_role or "none", "settled": c.settled, "double": c.double}
        if c.against_gm:
            if c.tie and not c.attacker_won:
                outcome = "gm_tie"
            elif c.attacker_won:
                outcome = "gm_double_win" if c.double else "gm_win"
            else:
                outcome = "gm_lose"
            text = self._say("result", (c, outcome), outcome, k, roles, **facts)
        else:
            if c.tie:
                outcome = "tie"
            elif c.double:
                outcome = "double_win" if c.attacker_won else "double_lose"
            else:
                outcome = "win" if c.attacker_won else "lose"
            mine = words.get("hit" if c.attacker_won else "miss") if not c.tie else None
            if mine:
                text = self._note("result", (c, "hit" if c.attacker_won else "miss"),
                                  n.fill("{S}", k, {"S": n.words(mine), "T": defender}))
                self._mergeable = False
                if c.double:
                    # the writer's words say it worked (or not): say also how far
                    mark = "double_mark" if c.attacker_won else "double_lose_mark"
                    text = sentence(text) + " " + sentence(self._say("result", (c, mark), mark, k, roles, **facts))
            else:
                text = self._say("result", (c, outcome), outcome, k, roles, **facts)
        numbers = self._values(c)
        if numbers:
            self._mergeable = False
        self._raw = text
        self._raw_named = self.n.opened_with_name
        out.append(sentence(text + numbers))
        out.extend(self._costs(act, c))
        out.extend(self._spent_out(c))
        return out

    def _costs(self, act: Act, c: Clash) -> list[str]:
        """What a comparison cost a party beyond what its result says: a miss (or
        a win) that cost two or more, and not the loser of a double win, whose
        words already say so."""
        out = []
        for pid, amount in c.costs.items():
            if amount < 2 or (c.double and pid in c.loser) or pid not in self.party:
                continue
            if not c.double and pid in c.loser and not c.ones.get(pid) and amount < 3:
                continue                  # an ordinary loss, which the result already tells
            won = pid in c.winner
            out.append(sentence(self._say("cost", (c, pid), "cost", f"{c.step}:{pid}:cost", {"P": Ref((pid,))},
                                          won=won)))
            self._mergeable = False
        return out

    def _values(self, c: Clash) -> str:
        if not self.numbers:
            return ""
        mine, theirs = c.values
        return f" ({mine} {self._word('against')} {theirs})"

    def _spent_out(self, c: Clash) -> list[str]:
        out = []
        for point in self.story.points_at(c.step):
            if point.kind == "running_dry":
                out.append(sentence(self._say("running_dry", point, "spent_out",
                                              f"{c.step}:{point.parties[0]}", {"P": Ref(point.parties)})))
        return out

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
        who = tuple(p for p in self.story.took_part if not self._cast(p).get("group")) or self.story.took_part
        ids = (party,) if party else who
        first = taken.split(" ", 1)[0].lower() if taken else ""
        english = self.n.book.english_verbs
        option = taken[:1].lower() + taken[1:] if english and first not in _NOT_VERBS else taken
        outcome = "choice_to" if english and first not in _NOT_VERBS else "choice"
        question = label.endswith(("?", "!", ":"))
        return sentence(self._say("choice", item["step"], outcome, str(item["key"]),
                                  {"P": Ref(ids), "where": label.rstrip(":"), "option": option},
                                  question=question, alone=not ids))

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
        if standing:
            out.append(sentence(self._say("recap", ("standing", standing), "recap_standing", "recap",
                                          {"P": Ref(standing)})))
        if back:
            out.append(sentence(self._say("recap", ("back", back), "recap_came_back", "recap", {"P": Ref(back)})))
        if fallen:
            out.append(sentence(self._say("recap", ("fallen", fallen), "recap_fallen", "recap", {"P": Ref(fallen)})))
        return join(out)

    def _down(self, pid: str) -> bool:
        """Fallen in the last situation it took part in (defeats end with a situation,
        but a party that fell and took part in no later one is still told as fallen)."""
        last = [s for s in self.story.situations if pid in s.took_part]
        return bool(last) and pid in last[-1].fallen
