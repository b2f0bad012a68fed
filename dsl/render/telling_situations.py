"""How the transcript tells a dramatic situation's frame: its beginning, the order of action, its rounds, declared holds, quiet stretches and its end (a part of `tell.Teller`)."""

from __future__ import annotations

from ..durations import format_seconds
from .narrator import Ref, join, sentence
from .story import Situation
from ..scenes import DEFAULT_KIND


class SituationTelling:
    """The sentences of a situation's frame, for `Teller`."""

    def _quiet_stretches(self, rounds: list[dict]) -> dict[int, tuple]:
        """Two or more rounds in a row, neither a situation's first nor its last,
        with nothing new in them: they are told in one summary sentence, at the
        first exchange of the stretch (step -> (the stretch's rounds, its acts)),
        and their exchanges are told no more (step -> ()). Nothing new: no
        turning point, or only a double win or a tie that the round before had
        too, the same parties winning over the same (identical rounds)."""
        story = self.story
        by_situation: dict = {}
        for r in rounds:
            by_situation.setdefault(r.get("situation", r["drama"]), []).append(r)
        out: dict[int, tuple] = {}
        for group in by_situation.values():
            quiet = []
            before: set = set()
            for index, r in enumerate(group):
                acts = [story.acts.get(i["step"]) for i in r["entries"] if i["kind"] == "exchange"]
                acts = [a for a in acts if a is not None and a.told]
                shapes = {self._shape(c) for a in acts for c in a.clashes}
                if 0 < index < len(group) - 1:
                    quiet.append((r, acts) if self._calm(r, acts, before) else None)
                before = shapes
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

    @staticmethod
    def _shape(c) -> tuple:
        return (c.attacker, c.defender, c.winner, c.double, c.tie)

    def _calm(self, r: dict, acts: list, before: set) -> bool:
        """A round with nothing new: exchanges only, no turning point but a
        double win or a tie the round before had as well."""
        if not acts or any(i["kind"] not in ("exchange", "other", "initiative") for i in r["entries"]):
            return False
        if any(a.declared_hold or a.options or a.defeats for a in acts):
            return False
        for a in acts:
            steps = {a.step} | {c.step for c in a.clashes}
            for point in self.story.points:
                if point.step not in steps or point.kind not in self.NEW:
                    continue
                repeated = point.kind in ("double_win", "tie") and any(
                    self._shape(c) in before for c in a.clashes if c.step == point.step)
                if not repeated:
                    return False
        return True

    def summary(self, rounds: tuple, acts: tuple) -> str:
        """`For three more rounds, Ash and Harrow trade blows; Harrow takes the
        worst of it.`, or, when the same parties won every comparison of the
        stretch, `For three more rounds Marta gains on Vey at every turn.`"""
        ids: list[str] = []
        costs: dict[str, int] = {}
        winners: list[str] = []
        losers: list[str] = []
        clashes = [c for act in acts for c in act.clashes]
        for act in acts:
            for pid in act.actors + act.target_ids:
                if pid not in ids:
                    ids.append(pid)
        for c in clashes:
            for pid, amount in c.costs.items():
                costs[pid] = costs.get(pid, 0) + amount
            winners.extend(p for p in c.winner if p not in winners)
            losers.extend(p for p in c.loser if p not in losers)
        count = self.n.book.words.get(f"number_{len(rounds)}", str(len(rounds)))
        key = f"{acts[0].step}:summary"
        one_way = bool(clashes) and all(c.winner and c.loser for c in clashes) and not set(winners) & set(losers)
        if one_way:
            roles = {c.winner_role for c in clashes}
            text = self._say("summary", (rounds, acts, tuple(winners)), "summary_lead", key,
                             {"W": Ref(tuple(winners)), "L": Ref(tuple(losers)), "N": count},
                             role=roles.pop() if len(roles) == 1 and "" not in roles else "none",
                             double=all(c.double for c in clashes))
            return sentence(text)
        worst = max(costs.values(), default=0)
        worst_ids = tuple(p for p in ids if costs.get(p, 0) == worst and worst > 0)
        out = [sentence(self._say("summary", (rounds, acts, ()), "summary", key,
                                  {"all": Ref(tuple(ids)), "N": count}))]
        if len(worst_ids) == 1:
            self.n.break_()           # the summary's subject is the fight: the one who paid is named
            out.append(sentence(self._say("summary", (rounds, acts, ()), "summary_worst", f"{acts[0].step}:worst",
                                          {"P": Ref(worst_ids)})))
        return join(out)

    def _situation(self, step: int) -> Situation | None:
        return self.story.situation_at(step)

    def _defeat_role(self, step: int, pid: str) -> str:
        """The role a defeat is told in: a quarry is caught only while someone of
        the chase still stands (a quarry that runs itself out with every pursuer
        down is out of it, not caught)."""
        role = self._role(step, (pid,))
        sit = self._situation(step)
        if role == "quarry" and sit is not None:
            down = self.story.fallen_at.get(step, frozenset())
            if all(p in down for p in sit.pursuers):
                return "none"
        return role

    def _role(self, step: int, ids) -> str:
        sit = self._situation(step)
        return sit.role(ids) if sit is not None else ""

    def drama_begins(self, d: dict) -> str:
        self.n.scene(d)
        self.n.kind = d.get("scene_kind") or DEFAULT_KIND
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

    def hold(self, item: dict) -> str:
        hold = self.story.holds.get(item["step"])
        if hold is None or not self.story.hold_told(item["step"]):
            return ""
        return sentence(self._say("hold", hold, "hold", str(item["key"]), {"P": Ref((hold.party,))},
                                  used=hold.used))
