"""The frame machine: every pending step is a `Frame` on `CwState.stack`.

A frame kind is either automatic (a handler that pops/pushes frames and changes
the state) or a decision (a function giving each acting seat its options, and one
applying a chosen option). Concern modules register their kinds here with the
`auto` and `decision` decorators; `run` resolves automatic frames until a decision
with options is on top (a decision with no options counts as answered by `empty`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from warroom.engine import rng
from warroom.engine.model import Event
from warroom.games.qmg_cw.content import BLOC_NAMES, tables
from warroom.games.qmg_cw.state import CwState, Frame, seat_bits

Options = dict[int, list[tuple[str, str]]]


@dataclass(slots=True)
class Ctx:
    """What one `apply` produced besides the state: events and irreversibility."""

    events: list[Event] = field(default_factory=list)
    irreversible: bool = False

    def log(self, text: str, kind: str = "log", visible_to: frozenset[int] | None = None) -> None:
        """Add an event."""
        self.events.append(Event(text, kind, visible_to))


AutoFn = Callable[[CwState, Frame, Ctx], None]
OptionsFn = Callable[[CwState, Frame], Options]
ChooseFn = Callable[[CwState, Frame, int, str, Ctx], None]

AUTO: dict[str, AutoFn] = {}
DECIDE: dict[str, tuple[OptionsFn, ChooseFn, AutoFn | None]] = {}
PROMPTS: dict[str, str] = {}


def auto(kind: str) -> Callable[[AutoFn], AutoFn]:
    """Register an automatic frame handler."""

    def wrap(fn: AutoFn) -> AutoFn:
        AUTO[kind] = fn
        return fn

    return wrap


def decision(
    kind: str, prompt: str, empty: AutoFn | None = None
) -> Callable[[OptionsFn], OptionsFn]:
    """Register a decision frame's options function; its chooser follows with `chooser`."""

    def wrap(fn: OptionsFn) -> OptionsFn:
        DECIDE[kind] = (fn, _missing, empty)
        PROMPTS[kind] = prompt
        return fn

    return wrap


def chooser(kind: str) -> Callable[[ChooseFn], ChooseFn]:
    """Register the function applying a decision frame's chosen option."""

    def wrap(fn: ChooseFn) -> ChooseFn:
        options, _, empty = DECIDE[kind]
        DECIDE[kind] = (options, fn, empty)
        return fn

    return wrap


def _missing(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    raise AssertionError(f"no chooser for {frame.kind}")


def pop(state: CwState) -> Frame:
    """Remove the top frame."""
    return state.stack.pop()


def push(state: CwState, frame: Frame) -> None:
    """Add a frame on top."""
    state.stack.append(frame)


def set_top(state: CwState, frame: Frame) -> None:
    """Replace the top frame."""
    state.stack[-1] = frame


def update_top(state: CwState, **changes: object) -> Frame:
    """Replace fields of the top frame; returns the new frame."""
    frame = replace(state.stack[-1], **changes)  # type: ignore[arg-type]
    state.stack[-1] = frame
    return frame


def last_to_answer(state: CwState, frame: Frame, seat: int) -> bool:
    """Clear `seat` from the top frame's mask of seats still to answer (a teammate's pass is
    its own); True when no seat is left, the frame left on the stack."""
    mask = frame.mask & ~(1 << seat)
    if mask:
        update_top(state, mask=mask)
        return False
    return True


def seat_done(state: CwState, frame: Frame, seat: int) -> bool:
    """`last_to_answer`, popping the frame when no seat is left. True when it was popped."""
    if not last_to_answer(state, frame, seat):
        return False
    pop(state)
    return True


def options_of(state: CwState, frame: Frame) -> Options:
    """The options of a decision frame (empty for an automatic one)."""
    entry = DECIDE.get(frame.kind)
    if entry is None:
        return {}
    return {seat: opts for seat, opts in entry[0](state, frame).items() if opts}


def run(state: CwState, ctx: Ctx) -> Options:
    """Resolve automatic frames until a decision with options is pending or the game ends;
    the pending decision's options (none when the game is over)."""
    guard = 0
    while not state.over and state.stack:
        guard += 1
        if guard > 100_000:
            raise AssertionError("frame machine does not settle")
        frame = state.stack[-1]
        handler = AUTO.get(frame.kind)
        if handler is not None:
            handler(state, frame, ctx)
            continue
        entry = DECIDE[frame.kind]
        options = options_of(state, frame)
        if options:
            return options
        if entry[2] is not None:
            entry[2](state, frame, ctx)
        else:
            pop(state)
    return {}


def choose(state: CwState, seat: int, option: str, ctx: Ctx) -> Options:
    """Apply one option to the top decision frame, then run; the next decision's options."""
    frame = state.stack[-1]
    DECIDE[frame.kind][1](state, frame, seat, option, ctx)
    return run(state, ctx)


# ---------------------------------------------------------------- shared helpers


def bloc_name(bloc: int) -> str:
    """A bloc's display name."""
    return BLOC_NAMES[bloc]


def card_name(cid: int) -> str:
    """A card's name."""
    return tables().cards[cid].name


def space_name(space: int) -> str:
    """A space's name."""
    return tables().space_names[space]


def lose_vp(state: CwState, bloc: int, amount: int, ctx: Ctx) -> None:
    """A bloc loses VPs (never below 0)."""
    if amount <= 0:
        return
    state.vp[bloc] = max(0, state.vp[bloc] - amount)
    ctx.log(f"{bloc_name(bloc)} loses {amount} VP")


def gain_vp(state: CwState, bloc: int, amount: int, ctx: Ctx) -> None:
    """A bloc gains VPs."""
    if amount <= 0:
        return
    state.vp[bloc] += amount
    ctx.log(f"{bloc_name(bloc)} gains {amount} VP")


def escalate(state: CwState, of: int, against: int, amount: int, ctx: Ctx) -> None:
    """Advance one bloc's escalation level against another (0-9)."""
    if amount <= 0 or of == against:
        return
    index = of * 3 + against
    state.esc[index] = min(9, state.esc[index] + amount)
    ctx.log(f"{bloc_name(of)} escalation against {bloc_name(against)} is now {state.esc[index]}")


def draw(state: CwState, seat: int, count: int, ctx: Ctx) -> int:
    """Draw up to `count` cards from the top of a seat's deck; returns how many."""
    player = state.seats[seat]
    n = min(count, len(player.deck))
    if n <= 0:
        # "If you have more than 7 cards, you do not need to discard" - nor draw
        return 0
    player.hand.extend(player.deck[:n])
    del player.deck[:n]
    ctx.irreversible = True
    return n


def shuffle_deck(state: CwState, seat: int, ctx: Ctx) -> None:
    """Shuffle a seat's draw deck with the state RNG."""
    state.rng = rng.shuffle(state.rng, state.seats[seat].deck)
    ctx.irreversible = True


def discard_hand_card(state: CwState, seat: int, cid: int, face_up: bool = False) -> None:
    """Move a card from hand to the discard pile."""
    player = state.seats[seat]
    player.hand.remove(cid)
    (player.discard_up if face_up else player.discard_down).append(cid)


def hand_options(
    state: CwState, mask: int, prefix: str, exclude: int = -1, verb: str = "Discard"
) -> Options:
    """Each seat of a mask may pick any card of its hand; labels read "<verb> <card>"."""
    out: Options = {}
    for seat in seat_bits(mask):
        out[seat] = [
            (f"{prefix}{c}", f"{verb} {card_name(c)}")
            for c in state.seats[seat].hand
            if c != exclude
        ]
    return out


def bloc_hand(state: CwState, bloc: int) -> int:
    """Cards in the hands of a bloc's players."""
    return sum(len(state.seats[s].hand) for s in state.bloc_seats(bloc))


def find_resolve(state: CwState) -> int:
    """Stack index of the card now resolving (the topmost `resolve` frame), or -1."""
    for i in range(len(state.stack) - 1, -1, -1):
        if state.stack[i].kind == "resolve":
            return i
    return -1


def pay(state: CwState, mask: int, count: int, then: Frame | None = None, tag: str = "") -> None:
    """Push a discard-from-hand payment (face down) of `count` cards by the seats of `mask`,
    with `then` resolving once it is paid."""
    if then is not None:
        push(state, then)
    if count > 0:
        push(state, Frame("pay", mask=mask, count=count, tag=tag))


@decision("pay", "Discard a card from hand")
def _pay_options(state: CwState, frame: Frame) -> Options:
    return hand_options(state, frame.mask, "d:")


@chooser("pay")
def _pay_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    cid = int(option[2:])
    discard_hand_card(state, seat, cid)
    ctx.log(f"seat {seat} discards a card", visible_to=None)
    if frame.count <= 1:
        pop(state)
    else:
        update_top(state, count=frame.count - 1)
