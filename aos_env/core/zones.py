"""Moving cards between zones: drawing (R8.1-R8.3), mana by colour, stones, discards.

Every function works on a batch of games ``g`` (an index array) at once;
``p`` is then a same-length array of players.
"""

from __future__ import annotations

import numpy as np

from . import rng
from .constants import MANA_0, NUM_ACTIONS, PH
from .state import PEND_CMD, PEND_HAND, PEND_MANA, PEND_OFFER, PEND_STONE, State, ksum

#: R8.3: the hand and mana limits when nothing is left to draw.
SHORTAGE_LIMIT = 9


def colour_counts(state: State, x: np.ndarray) -> np.ndarray:
    """Counts by kind (..., K) -> counts by colour (..., 5), as float32 (exact; see cards.py)."""
    return x.astype(np.float32) @ state.cards.colour_onehot_f32


def mana_total(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Face-up mana plus stones of player p (the waiting head counts, R4.3)."""
    return ksum(state.mana[g, p]) + ksum(state.stones[g, p])


def givable_mana(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(n, K) face-up mana of player p by kind that may be given up: the waiting head
    (the assisted card, R4.3) may not."""
    avail = state.mana[g, p].astype(np.int64)
    h = state.head[g, p]
    has = np.nonzero(h >= 0)[0]
    avail[has, h[has]] -= 1
    return avail


def choosable_mana(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(n, 6) face-up mana by colour that may be given up (not the waiting head), then stones."""
    m = colour_counts(state, givable_mana(state, g, p))
    s = ksum(state.stones[g, p])
    return np.concatenate([m, s[:, None]], axis=1)


def empty_mask(n: int) -> np.ndarray:
    """(n, 44) all-False action mask, to fill in."""
    return np.zeros((n, NUM_ACTIONS), dtype=bool)


def hand_mask(state: State, g: np.ndarray) -> np.ndarray:
    """CARD_k for each kind in the current player's hand (command card, Inquisition gift)."""
    mask = empty_mask(g.size)
    hand = state.hand[g, state.current_player[g]]
    mask[:, : hand.shape[1]] = hand > 0
    return mask


def ordered_choice_mask(avail: np.ndarray, floor: np.ndarray, needed: np.ndarray) -> np.ndarray:
    """Legal units of a repeated choice of ``needed`` units, made in ascending order.

    A repeated choice (discards, payment, flips) picks a multiset; the engine
    asks for its units in ascending action order so that each multiset is
    reached by one path only. Unit ``u`` is legal if one is available, it is
    not below ``floor`` and enough units remain at ``u`` or above to finish.
    avail (n, U), floor (n,) relative unit index, needed (n,) -> (n, U) bool.
    """
    suffix = np.cumsum(avail[:, ::-1], axis=1)[:, ::-1]
    units = np.arange(avail.shape[1])
    return (avail > 0) & (units >= floor[:, None]) & (suffix >= needed[:, None])


def forced_units(avail: np.ndarray, floor: np.ndarray, needed: np.ndarray) -> np.ndarray:
    """(n, U) the part of a repeated choice that is forced, so the engine can take it at once.

    Same setting as ``ordered_choice_mask``. The choice is fully forced when
    everything still available (from ``floor`` on) is needed, or when only
    one unit is available. Otherwise the first available unit u must still be
    taken ``needed - (units available after u)`` times, if that is positive
    (the units come in ascending order); the rest is a real choice. Taking
    the forced part at once gives exactly what the engine would reach by
    taking the single legal action again and again, in fewer engine passes.
    """
    n, U = avail.shape
    a = np.where(np.arange(U)[None, :] >= floor[:, None], avail, 0)
    total = a.sum(1)
    rows = np.arange(n)
    first = np.argmax(a > 0, axis=1)
    after = total - a[rows, first]
    take = np.zeros_like(a)
    every = needed >= total
    take[every] = a[every]
    part = ~every & (needed > 0)
    take[rows[part], first[part]] = np.where(after[part] == 0, needed[part], np.maximum(needed[part] - after[part], 0))
    return take


def last_unit(take: np.ndarray) -> np.ndarray:
    """(n,) index of the highest unit taken in each row of ``take`` (n, U): the new floor."""
    return take.shape[1] - 1 - np.argmax(take[:, ::-1] > 0, axis=1)


def take_mana(state: State, g: np.ndarray, p: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Remove one face-up mana of ``colour`` (not the waiting head) and return its kind.

    Mana cards of one colour are interchangeable in play, so the engine takes
    the lowest kind of that colour: the choice only decides which card goes
    on to the discard pile or becomes a stone.
    """
    avail = givable_mana(state, g, p) * (state.cards.colour[None, :] == colour[:, None])
    k = np.argmax(avail > 0, axis=1)
    state.mana[g, p, k] -= 1
    return k


def take_mana_colours(state: State, g: np.ndarray, p: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Remove ``counts`` (n, 5) face-up mana by colour, the lowest kinds first and never the
    waiting head (as repeated ``take_mana`` would); returns the cards removed (n, K)."""
    cards = state.cards
    avail = givable_mana(state, g, p)
    earlier = avail.astype(np.float32) @ cards.same_colour_below_f32  # same-colour cards of lower kinds
    want = counts[:, cards.colour]  # (n, K): how many of the kind's colour to take
    removed = np.clip(want - earlier, 0, avail).astype(np.int64)
    state.mana[g, p] -= removed.astype(state.mana.dtype)
    return removed


def take_stones(state: State, g: np.ndarray, p: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Remove ``n[i]`` random stones of player p[i]; returns the cards removed (len(g), K)."""
    removed = np.zeros((g.size, state.stones.shape[2]), dtype=np.int64)
    for i in range(int(n.max(initial=0))):
        sel = np.nonzero(n > i)[0]
        removed[sel, take_stone(state, g[sel], p[sel])] += 1
    return removed


def take_stone(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Remove one of player p's stones, a random one (nobody knows their faces)."""
    k = _random_kind(state, g, state.stones[g, p])
    state.stones[g, p, k] -= 1
    return k


def draw_from_deck(state: State, g: np.ndarray) -> np.ndarray:
    """Take a uniformly random card of each game's deck (which must not be empty)."""
    k = _random_kind(state, g, state.deck[g])
    state.deck[g, k] -= 1
    return k


_TRIU = np.triu(np.ones((30, 30), dtype=np.float32))


def _cumulative(counts: np.ndarray) -> np.ndarray:
    """(n, K) running totals over kinds.

    A float32 product with a triangular matrix is several times faster than
    ``np.cumsum`` on a short axis; for large n OpenBLAS would start threads,
    which costs more than it saves, so cumsum is used there.
    """
    if counts.shape[0] <= 1024 and counts.shape[1] == 30:
        return counts.astype(np.float32) @ _TRIU
    return np.cumsum(counts, axis=1, dtype=np.int32)


def _random_kind(state: State, g: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """A kind drawn with probability proportional to counts (n, K), per game."""
    cum = _cumulative(counts)
    return _kind_at(cum, rng.randint(state.rng_key, state.rng_counter, g, cum[:, -1]))


def _kind_at(cum: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The kind of card number r[i] in a zone with running totals cum (n, K)."""
    return (cum > r[:, None]).argmax(1)  # the first kind whose running total passes r


def discard_cards(state: State, g: np.ndarray, k: np.ndarray) -> None:
    """Put one card of kind k[i] on game g[i]'s discard pile."""
    state.discard[g, k] += 1


def discard_from_hand(state: State, g: np.ndarray, p: np.ndarray, k: np.ndarray) -> None:
    """One card of kind k[i] from player p[i]'s hand to the discard pile, as the next unit of a
    repeated choice (``floor`` moves to it)."""
    state.hand[g, p, k] -= 1
    discard_cards(state, g, k)
    state.floor[g] = k


def discard_many_from_hand(state: State, g: np.ndarray, p: np.ndarray, take: np.ndarray) -> None:
    """``take`` (n, K) cards from player p[i]'s hand to the discard pile at once (forced units)."""
    state.hand[g, p] -= take.astype(state.hand.dtype)
    state.discard[g] += take.astype(state.discard.dtype)
    state.floor[g] = last_unit(take)


def request_draws(state: State, g: np.ndarray, then: int, **counts: np.ndarray | int) -> None:
    """Queue draws for the active player (keys: cmd, hand, mana, stone, offer), then go on to ``then``."""
    cols = {"cmd": PEND_CMD, "hand": PEND_HAND, "mana": PEND_MANA, "stone": PEND_STONE, "offer": PEND_OFFER}
    for key, n in counts.items():
        state.pend[g, cols[key]] += n
    state.after_draw[g] = then
    state.drawn[g] = 0
    state.phase[g] = PH.DRAW


def run_draw(state: State, g: np.ndarray) -> None:
    """Phase.DRAW: resolve the pending draws, one card per game per round.

    R8.1: an empty deck is refilled from the discard pile. R8.3: with both
    empty, a discard round down to 9 cards and 9 mana starts (and the draw
    resumes afterwards). [decision] One round per draw: if nobody is over the
    limits, or a round already took place during this draw, the rest of the
    draw is skipped (otherwise a player could be made to discard and redraw
    the same card again and again).
    """
    pend = state.pend[g]
    cum_pend = np.cumsum(pend, axis=1)  # draw number i goes to the first column with cum_pend > i
    total = cum_pend[:, -1]
    act = state.active_player[g]
    held = np.zeros(g.size, dtype=bool)  # stopped for an R8.3 discard round
    live = np.nonzero(total > 0)[0]  # positions into g
    # all the random numbers this draw may need, in one go (draw i of a game uses its i-th number)
    z = rng.block(state.rng_key, state.rng_counter, g[live], int(total.max(initial=0)))
    drawn = np.zeros(g.size, dtype=np.uint64)
    zrow = np.full(g.size, -1)
    zrow[live] = np.arange(live.size)
    i = 0
    while live.size:
        gl = g[live]
        cum = _cumulative(state.deck[gl])
        empty = cum[:, -1] == 0
        if empty.any():
            e = gl[empty]
            state.deck[e] += state.discard[e]  # R8.1 (a multiset needs no shuffling)
            state.discard[e] = 0
            cum[empty] = _cumulative(state.deck[e])
            dry = cum[:, -1] == 0
            if dry.any():
                d = live[dry]
                gd = g[d]
                over = _over_limit(state, gd, SHORTAGE_LIMIT, SHORTAGE_LIMIT) & ~state.short_done[gd]
                # R8.3: a discard round, then this draw goes on with what is left to draw
                state.pend[gd[over]] = np.minimum(np.maximum(cum_pend[d[over]] - i, 0), pend[d[over]])
                start_discard_round(state, gd[over], shortage=True, then=PH.DRAW)
                state.short_done[gd[over]] = True
                held[d[over]] = True  # [decision] the others skip the rest of the draw
                live, gl, cum = live[~dry], gl[~dry], cum[~dry]
                if not live.size:
                    break
        r = rng.scale(z[zrow[live], i], cum[:, -1])
        k = _kind_at(cum, r)
        state.deck[gl, k] -= 1
        drawn[live] += np.uint64(1)
        dest = (cum_pend[live] > i).argmax(1)
        a = act[live]
        for col in np.nonzero(np.bincount(dest, minlength=5))[0]:
            sel = dest == col
            gs, ps, ks = gl[sel], a[sel], k[sel]
            if col == PEND_OFFER:
                state.offer[gs, ks] += 1
            elif col == PEND_HAND:
                state.hand[gs, ps, ks] += 1
            elif col == PEND_STONE:
                state.stones[gs, ps, ks] += 1
            else:  # PEND_MANA, or PEND_CMD: the top card of the deck played as command card (R3.1.2, R8.2)
                state.mana[gs, ps, ks] += 1
                if col == PEND_CMD:
                    state.cmd_card[gs] = ks
        i += 1
        live = live[total[live] > i]
    state.rng_counter[g] += drawn
    state.drawn[g] += drawn.astype(state.drawn.dtype)
    fin = g[~held]
    state.pend[fin] = 0
    state.phase[fin] = state.after_draw[fin]
    state.short_done[fin] = False


# ---- discard rounds: Nightmare (6 cards, 7 mana) and R8.3 (9 and 9) ----------

NIGHTMARE_HAND_LIMIT, NIGHTMARE_MANA_LIMIT = 6, 7


def _limits(state: State, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    short = state.disc_shortage[g]
    hand = np.where(short, SHORTAGE_LIMIT, NIGHTMARE_HAND_LIMIT)
    mana = np.where(short, SHORTAGE_LIMIT, NIGHTMARE_MANA_LIMIT)
    return hand, mana


def _over_limit(state: State, g: np.ndarray, hand_limit, mana_limit) -> np.ndarray:
    """(n,) True where some player holds more cards or mana than the limits."""
    hand = ksum(state.hand[g])
    mana = ksum(state.mana[g]) + ksum(state.stones[g])
    return ((hand > np.reshape(hand_limit, (-1, 1))) | (mana > np.reshape(mana_limit, (-1, 1)))).any(1)


def start_discard_round(state: State, g: np.ndarray, shortage: bool, then: int) -> None:
    """Every player, the active one first and then clockwise, discards down to the limits."""
    state.disc_shortage[g] = shortage
    state.disc_return[g] = then
    state.discard_seat[g] = 0
    state.phase[g] = PH.DISCARD_NEXT


def run_discard_next(state: State, g: np.ndarray) -> None:
    """Phase.DISCARD_NEXT: find the next player (from ``seat`` on) over a limit."""
    P = state.num_players
    hand_limit, mana_limit = _limits(state, g)
    players = (state.active_player[g][:, None] + np.arange(P)) % P  # by seat offset
    rows = np.arange(g.size)[:, None]
    hand = ksum(state.hand[g])[rows, players]
    mana = (ksum(state.mana[g]) + ksum(state.stones[g]))[rows, players]
    hand_over = hand > hand_limit[:, None]
    over = (hand_over | (mana > mana_limit[:, None])) & (np.arange(P) >= state.discard_seat[g][:, None])
    found = over.any(1)
    fin = g[~found]
    state.phase[fin] = state.disc_return[fin]
    state.current_player[fin] = state.active_player[fin]
    if not found.any():
        return
    f = g[found]
    seat = np.argmax(over[found], axis=1)
    state.discard_seat[f] = seat
    state.current_player[f] = players[found, seat]
    on_hand = hand_over[found, seat]
    short = state.disc_shortage[f]
    state.phase[f] = np.where(
        on_hand,
        np.where(short, PH.SHORTAGE_HAND, PH.NIGHTMARE_HAND),
        np.where(short, PH.SHORTAGE_MANA, PH.NIGHTMARE_MANA),
    )
    state.floor[f] = np.where(on_hand, 0, MANA_0)


def discard_forced(state: State, g: np.ndarray) -> None:
    """The discard phases (Nightmare, R8.3), on arrival: take the forced part of the current
    discards at once (see ``forced_units``)."""
    ph = state.phase[g]
    hand = g[(ph == PH.NIGHTMARE_HAND) | (ph == PH.SHORTAGE_HAND)]
    if hand.size:
        p = state.current_player[hand]
        cards = state.hand[hand, p].astype(np.int64)
        limit, _ = _limits(state, hand)
        take = forced_units(cards, state.floor[hand], cards.sum(1) - limit)
        hit = take.any(1)
        if hit.any():
            h = hand[hit]
            discard_many_from_hand(state, h, p[hit], take[hit])
            done = ksum(state.hand[h, p[hit]]) <= limit[hit]
            state.phase[h[done]] = PH.DISCARD_NEXT
    mana = g[(ph == PH.NIGHTMARE_MANA) | (ph == PH.SHORTAGE_MANA)]
    if mana.size:
        p = state.current_player[mana]
        _, limit = _limits(state, mana)
        avail = choosable_mana(state, mana, p).astype(np.int64)
        take = forced_units(avail, state.floor[mana] - MANA_0, mana_total(state, mana, p) - limit)
        hit = take.any(1)
        if hit.any():
            m, t, pm = mana[hit], take[hit], p[hit]
            removed = take_mana_colours(state, m, pm, t[:, :5]) + take_stones(state, m, pm, t[:, 5])
            state.discard[m] += removed.astype(state.discard.dtype)
            state.floor[m] = MANA_0 + last_unit(t)
            done = mana_total(state, m, pm) <= limit[hit]
            state.phase[m[done]] = PH.DISCARD_NEXT


def discard_hand_mask(state: State, g: np.ndarray) -> np.ndarray:
    """(n, K) cards the current player may discard in a discard round."""
    p = state.current_player[g]
    hand = state.hand[g, p]
    limit, _ = _limits(state, g)
    return ordered_choice_mask(hand, state.floor[g], ksum(hand) - limit)


def apply_discard_hand(state: State, g: np.ndarray, k: np.ndarray) -> None:
    p = state.current_player[g]
    discard_from_hand(state, g, p, k)
    limit, _ = _limits(state, g)
    done = ksum(state.hand[g, p]) <= limit
    state.phase[g[done]] = PH.DISCARD_NEXT


def discard_mana_mask(state: State, g: np.ndarray) -> np.ndarray:
    """(n, 6) mana colours / stone the current player may discard in a discard round."""
    p = state.current_player[g]
    _, limit = _limits(state, g)
    return ordered_choice_mask(choosable_mana(state, g, p), state.floor[g] - MANA_0, mana_total(state, g, p) - limit)


def give_up_mana(state: State, g: np.ndarray, p: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """Move one mana unit (colour 0..4, or 5 = a stone) of player p to the discard pile."""
    k = np.empty(g.size, dtype=np.int64)
    is_stone = unit == 5
    s, c = np.nonzero(is_stone)[0], np.nonzero(~is_stone)[0]
    if s.size:
        k[s] = take_stone(state, g[s], p[s])
    if c.size:
        k[c] = take_mana(state, g[c], p[c], unit[c])
    discard_cards(state, g, k)
    return k


def apply_discard_mana(state: State, g: np.ndarray, unit: np.ndarray) -> None:
    p = state.current_player[g]
    give_up_mana(state, g, p, unit)
    state.floor[g] = MANA_0 + unit
    _, limit = _limits(state, g)
    done = mana_total(state, g, p) <= limit
    state.phase[g[done]] = PH.DISCARD_NEXT
