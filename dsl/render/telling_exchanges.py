"""How the transcript tells an exchange: the action, its qualifiers, the clash of each comparison and what it cost (a part of `tell.Teller`)."""

from __future__ import annotations

from .grammar import GENDERED
from .narrator import Ref, english_bare, join, sentence, stable_hash
from .story import Act, Clash


class ExchangeTelling:
    """The sentences of an exchange, for `Teller`: they read the teller's narrator, context and story."""

    def exchange(self, act: Act) -> str:
        n = self.n
        k = str(act.step)
        out: list[str] = []
        self._exchanges_told = getattr(self, "_exchanges_told", 0) + 1
        attacker = Ref(act.actors)
        held = self._say("held", act, "held", k, {"P": Ref(act.declared_hold)}) if act.declared_hold else ""
        targets = Ref(act.target_ids)
        gm = act.gm_target is not None and not act.targets
        # against a target number the result opens with `It` (`It works`): the actor is named, not
        # `it`, in the action and in what follows it (`It comes to nothing. It can run no more.`)
        n.it_taken = gm
        intent = act.intent
        words = self._words(act.actors[0], intent) if len(act.actors) == 1 else {}
        role = self._role(act.step, act.actors) or "none"
        lead = bool(held)
        says = words.get("says")
        if says and gm and "{target}" in says:
            says = None                       # the words are aimed at a party: not at a target number
        says = self._fresh(act.actors[0], intent, "says", says)
        if not intent.strip() and not says:
            # the writer's words have no translation in the language: told without them (dsl/catalogue.py)
            text = n.say("act_gm_plain" if gm else "act_plain", k, {"A": attacker, "T": targets}, role=role, lead=lead)
        elif says:
            text = n.fill("{A} {S}", k + ":act", {"A": attacker, "S": n.words(says, "A"), "T": targets})
        elif (act.quoted or " " in intent.strip()) and not act.move:
            verb = english_bare(intent) if n.book.english_verbs else intent
            # the frame's own words must not echo the intent's, nor its qualifiers' (`set out to trip
            # and leave Odile behind, so that she falls behind`)
            echo = " ".join([verb] + [text for _, text in act.qualifiers])
            if gm:
                text = n.say("act_gm_verb", k, {"A": attacker, "V": verb}, role=role, lead=lead, avoid=echo)
            elif self._names_target(intent, act.target_ids):
                text = n.say("act_verb_named", k, {"A": attacker, "V": verb}, role=role, lead=lead, avoid=echo)
            else:
                text = n.say("act_verb", k, {"A": attacker, "T": targets, "V": verb}, role=role, lead=lead,
                             avoid=echo)
        else:
            label = n.label(intent)
            if gm:
                text = n.say("act_gm_label", k, {"A": attacker, "I": label}, role=role, lead=lead)
            else:
                text = n.say("act_label", k, {"A": attacker, "T": targets, "I": label}, role=role, lead=lead)
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
        self._action_text = text       # its result says no word of it again (`tries his luck ... his luck holds`)
        first_raw, first_named, first_pronoun, first_again = "", False, "", False
        for c in act.clashes:
            results.extend(self._clash(act, c, attacker, words))
            if c is act.clashes[0]:
                first_raw, first_named, first_pronoun = self._raw, self._raw_named, self._raw_pronoun
                first_again = self._raw_again
        # an action and its lone result in one sentence, where it reads well
        if results and len(act.clashes) == 1 and self._mergeable and not self.numbers and ":" not in first_raw \
                and first_raw.split(" ", 1)[0] not in ("And", "But", "Then", "Now") \
                and first_raw.split(" ", 1)[0] not in self._word("verbless").split() \
                and self._word("and_then") not in first_raw and self._word("but_then") not in first_raw \
                and not first_pronoun and not first_again \
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
                                          role=self._defeat_role(act.step, pid))))
        for o in act.options:
            out.append(self.option(o))
        return join(out)

    # told exchanges between the first use of the writer's words and the next;
    # each use after that waits as many more (3, 6, 9...)
    WORDS_GAP = 3

    def _fresh(self, pid: str, move: str, part: str, text: str | None) -> str | None:
        """The writer's words for a move, unless the same words were told too
        recently in the scene (a defence told in the same words at every
        exchange reads as a refrain): then the phrase book's words of the kind
        of scene tell it."""
        if not text:
            return text
        n = self.n
        memory = self.__dict__.setdefault("_words_told", {})
        if memory.get("scene", object()) is not n.scene_index:
            memory.clear()
            memory["scene"] = n.scene_index
        told = self.__dict__.get("_exchanges_told", 0)
        uses, last = memory.get((pid, move, part), (0, None))
        if last == told:
            return text               # the same action, against another target: its words again
        if last is not None and told - last < self.WORDS_GAP * uses:
            return None
        if last is not None:
            # the move's words told again, and its outcome's, but then not the defence's too:
            # all three over again read as a refrain
            if move == "defend" and part == "says" and memory.get("repeated") == told:
                return None
            memory["repeated"] = told
        memory[(pid, move, part)] = (uses + 1, told)
        return text

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
            said = self._fresh(c.defender[0], "defend", "says", self._words(c.defender[0], "defend").get("says"))
            if said:
                out.append(sentence(self._note("defence", c, n.fill("{D} {S}", k + ":defend", {
                    "D": defender, "S": n.words(said, "D"), "T": attacker}))))
                self._mergeable = False
        marked = ""
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
            text = self._say("result", (c, outcome), outcome, k, roles, avoid=self._echo(), **facts)
        else:
            if c.tie:
                outcome = "tie"
            elif c.double:
                outcome = "double_win" if c.attacker_won else "double_lose"
            else:
                outcome = "win" if c.attacker_won else "lose"
            part = "hit" if c.attacker_won else "miss"
            mine = self._fresh(act.actors[0], act.intent, part, words.get(part)) if not c.tie and words else None
            if mine:
                text = self._note("result", (c, "hit" if c.attacker_won else "miss"),
                                  n.fill("{S}", k, {"S": n.words(mine), "T": defender}))
                self._mergeable = False
                if c.double:
                    # the writer's words say it worked (or not): say also how far (after
                    # the numbers of the comparison, which belong to the writer's sentence)
                    mark = "double_mark" if c.attacker_won else "double_lose_mark"
                    marked = sentence(self._say("result", (c, mark), mark, k, roles, **facts))
            else:
                text = self._say("result", (c, outcome), outcome, k, roles, avoid=self._echo(), **facts)
        numbers = self._values(c)
        if numbers:
            self._mergeable = False
        self._raw = text
        self._raw_named = self.n.opened_with_name
        subject = self.n.phrase_subject
        # the result opens with `it` for a party (`It is right on top of Orm`): no clause after
        # a comma begins so (`..., and it is`): `it` there reads as no one (French il/elle do not)
        self._raw_pronoun = "it" if self.n.opened_pronoun and subject is not None and len(subject) == 1 \
            and self.n.lang not in GENDERED and self.n._pronoun_key(subject[0]) == "it" else ""
        # the result names the actor again, in full, as its subject: no merge (`the crew tries ..., and the crew is`)
        self._raw_again = self.n.phrase_subject == attacker.ids and not self.n.subject_pronoun
        out.append(sentence(text + numbers))
        if marked:
            out.append(marked)
        out.extend(self._costs(act, c))
        if len(act.clashes) == 1 or c is act.clashes[-1]:
            # who ran dry is told once every comparison of the action is: the dice were rolled
            # once (never `That leaves Odile spent. She streaks ahead ...`)
            for earlier in act.clashes:
                out.extend(self._spent_out(earlier))
        return out

    def _echo(self) -> str:
        """The action's own words, with its names taken out: what its result should not say again."""
        text = getattr(self, "_action_text", "")
        for p in self.party.values():
            for name in (p.get("name"), p.get("short")):
                if isinstance(name, str) and name:
                    text = text.replace(name, " ")
        return text

    def _costs(self, act: Act, c: Clash) -> list[str]:
        """What a comparison cost a party beyond what its result says: a miss (or
        a win) that cost two or more, and not the loser of a double win, whose
        words already say so."""
        paid = []
        for pid, amount in c.costs.items():
            if amount < 2 or (c.double and pid in c.loser) or pid not in self.party:
                continue
            if not c.double and pid in c.loser and not c.ones.get(pid) and amount < 3:
                continue                  # an ordinary loss, which the result already tells
            paid.append(pid)
        if not paid:
            return []
        self._mergeable = False
        if len(paid) > 1:
            # winner and loser both paid dearly: one sentence, not two in a row
            return [sentence(self._say("cost", (c, tuple(paid)), "cost", f"{c.step}:cost", {"P": Ref(tuple(paid))},
                                       won="both"))]
        pid = paid[0]
        return [sentence(self._say("cost", (c, pid), "cost", f"{c.step}:{pid}:cost", {"P": Ref((pid,))},
                                   won=pid in c.winner))]

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
