"""All You Can Eat: one pass resolved, and the exact round over (hands left, centre) by layers.

Not Food Chain Island: the card game of :mod:`fci_solver.games.aye`, whose ``resolve_pass`` (pure
Python) is the statement of the rules these kernels must agree with.

Kinds are 0..4 (Worm, Bird, Cat, Dog, Flea); each eats the one below.  A state after ``t`` passes
is packed into one ``uint64``: seat ``s``'s hand left as an index into the list of the hand's
sub-multisets (8 bits at ``8 s``, at most 6 seats) and the centre as an index (bits 48-63) into
every centre the hands could leave (Fleas never lie there).  Every state of a layer has the same
number of cards left in each hand, so a round is a chain of layers, each an open-addressing set.

The Python layer tabulates every pass once (:func:`outcomes`: a profile, one kind per seat, and a
centre give each seat's stars and the next centre), so the layers' inner loops only look up.

Weights are integers, so everything is exact.  ``N(state)`` is the number of ways the hands left
can still be ordered (a product of multinomials); a forward layer's weight ``C(state)`` counts the
card sequences played so far that lead there, so ``C * N / N(root)`` is its probability.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# The kernels Python calls release the interpreter lock: a layer's chunk can run for a second, and
# Ctrl-C's watchdog (fci_solver.interrupt), a Python thread, must be able to run meanwhile.
EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)  # no valid key: seat 0's subset index would be 255


@njit(cache=True)
def resolve(prof, p, alpha, kstars, centre, stars_out, work):
    """Resolve one pass (the greedy policy) in place.

    ``prof[s]`` is seat ``s``'s kind; ``centre[0..3]`` the centre's counts, updated; ``stars_out[s]``
    receives the stars each seat secures.  ``work`` is int64[3 p] scratch.
    """
    stack = work[0:p]  # stars in the stack under each played card
    taken = work[p:2 * p]
    took = work[2 * p:3 * p]
    for s in range(p):
        stack[s] = kstars[prof[s]]
        taken[s] = 0
        took[s] = 0
    for kind in range(1, 5):
        prey = kind - 1
        n_eat = 0
        for i in range(p):
            if prof[(alpha + i) % p] == kind:
                n_eat += 1
        if n_eat == 0:
            continue
        i = 0
        while True:
            # the best prey stack: most stars; a played one before a centre card; the lowest seat
            best = -1
            for s in range(p):
                if prof[s] == prey and taken[s] == 0 and (best < 0 or stack[s] > stack[best]):
                    best = s
            if best < 0 and centre[prey] == 0:
                break
            # the i-th eater in turn order, round and round
            k = i % n_eat
            eater = -1
            for j in range(p):
                s = (alpha + j) % p
                if prof[s] == kind:
                    if k == 0:
                        eater = s
                        break
                    k -= 1
            if best >= 0 and (centre[prey] == 0 or stack[best] >= kstars[prey]):
                taken[best] = 1
                stack[eater] += stack[best]
            else:
                centre[prey] -= 1
                stack[eater] += kstars[prey]
            took[eater] = 1
            i += 1
    for s in range(p):
        stars_out[s] = 0
        if taken[s] == 0:
            if took[s] == 1:
                stars_out[s] = stack[s]
            elif prof[s] != 4:
                centre[prof[s]] += 1



@njit(cache=True, nogil=True)
def outcomes(p, alpha, kstars, cmax, stars_out, centre_out):
    """Tabulate every pass: row ``profile * n_centres + centre`` (both as mixed-radix indices:
    the profile base 5, seat 0 lowest; the centre Worms, Birds, Cats, Dogs with ranges
    ``cmax + 1``, Dogs lowest) gets each seat's stars and the next centre's index."""
    n_c = (cmax[0] + 1) * (cmax[1] + 1) * (cmax[2] + 1) * (cmax[3] + 1)
    prof = np.zeros(p, np.int64)
    centre = np.zeros(4, np.int64)
    stars = np.zeros(p, np.int64)
    work = np.zeros(3 * p, np.int64)
    for pc in range(5 ** p):
        x = pc
        for s in range(p):
            prof[s] = x % 5
            x //= 5
        for ci in range(n_c):
            y = ci
            for j in range(3, -1, -1):
                centre[j] = y % (cmax[j] + 1)
                y //= cmax[j] + 1
            resolve(prof, p, alpha, kstars, centre, stars, work)
            row = pc * n_c + ci
            over = False
            for j in range(4):
                if centre[j] > cmax[j]:
                    over = True  # a centre no round can reach (more cards than the hands hold)
            nci = 0
            for j in range(4):
                nci = nci * (cmax[j] + 1) + min(centre[j], cmax[j])
            centre_out[row] = -1 if over else nci
            for s in range(p):
                stars_out[row, s] = stars[s]


@njit(cache=True)
def _slot(table, key):
    """The slot holding ``key``, or the empty slot where it belongs."""
    mask = np.uint64(table.shape[0] - 1)
    h = key * np.uint64(0x9E3779B97F4A7C15)
    i = (h ^ (h >> np.uint64(31))) & mask
    while table[i] != key and table[i] != EMPTY:
        i = (i + np.uint64(1)) & mask
    return i


@njit(cache=True)
def _unpack(key, p, hands):
    for s in range(p):
        hands[s] = (key >> np.uint64(8 * s)) & np.uint64(255)
    return np.int64(key >> np.uint64(48))


@njit(cache=True)
def _pack(p, hands, ci):
    key = np.uint64(ci) << np.uint64(48)
    for s in range(p):
        key |= np.uint64(hands[s]) << np.uint64(8 * s)
    return key


@njit(cache=True)
def _canonical(p, group, hands):
    """Sort the hands within each group of interchangeable seats (insertion sort: p <= 6)."""
    for i in range(1, p):
        j = i
        while j > 0:
            # the nearest earlier seat of the same group
            k = j - 1
            while k >= 0 and group[k] != group[j]:
                k -= 1
            if k < 0 or hands[k] <= hands[j]:
                break
            hands[k], hands[j] = hands[j], hands[k]
            j = k


@njit(cache=True)
def _first_profile(p, hands, sub_cnt, fix, prof):
    for s in range(p):
        if fix[s] >= 0:
            prof[s] = fix[s]
            continue
        k = 0
        while sub_cnt[hands[s], k] == 0:
            k += 1
        prof[s] = k


@njit(cache=True)
def _next_profile(p, hands, sub_cnt, fix, prof):
    """The next profile in odometer order (each seat a kind it still holds); False after the last."""
    for s in range(p):
        if fix[s] >= 0:
            continue
        k = prof[s] + 1
        while k < 5 and sub_cnt[hands[s], k] == 0:
            k += 1
        if k < 5:
            prof[s] = k
            return True
        k = 0
        while sub_cnt[hands[s], k] == 0:
            k += 1
        prof[s] = k
    return False


@njit(cache=True, nogil=True)
def orbit_step(keys, weights, lo, hi, p, group, fix, sub_cnt, sub_minus, sub_orders, out_centre, n_c, qcode,
               out_keys, out_w, n, acc):
    """One pass forward over states up to the seats' symmetry.

    Seats of one ``group`` start with the same hand and are interchangeable for the hands and the
    centre (the centre changes by how many of each kind are played, not by who played them), so a
    state is stored once per orbit, with its hands sorted within groups, and its weight is the
    orbit's.  Each state is expanded from that representative: every profile it allows (``fix[s]
    >= 0`` forces seat ``s``'s kind) adds the weight to the child's orbit and ``C * N(child)`` to
    ``acc[centre, qcode[profile]]``, the joint weight of the centre before the pass and the
    profile up to the symmetry, from which the caller reads the expected stars.  Only slots
    ``lo..hi`` of ``keys`` are expanded (the caller checks for interrupts between chunks); ``n``
    states are in ``out_keys`` already.  Returns the states there now, or -1 when it became more
    than half full (the caller doubles it and starts the layer again).
    """
    hands = np.zeros(p, np.int64)
    prof = np.zeros(p, np.int64)
    nh = np.zeros(p, np.int64)
    limit = out_keys.shape[0] // 2
    pw = np.ones(p, np.int64)
    for s in range(1, p):
        pw[s] = pw[s - 1] * 5
    for i in range(lo, hi):
        key = keys[i]
        if key == EMPTY:
            continue
        c = weights[i]
        ci = _unpack(key, p, hands)
        _first_profile(p, hands, sub_cnt, fix, prof)
        while True:
            pc = 0
            ways = np.int64(1)
            for s in range(p):
                pc += prof[s] * pw[s]
                nh[s] = sub_minus[hands[s], prof[s]]
                ways *= sub_orders[nh[s]]
            acc[ci, qcode[pc]] += c * ways
            _canonical(p, group, nh)
            ck = _pack(p, nh, out_centre[pc * n_c + ci])
            j = _slot(out_keys, ck)
            if out_keys[j] == EMPTY:
                out_keys[j] = ck
                out_w[j] = 0
                n += 1
                if n > limit:
                    return -1
            out_w[j] += c
            if not _next_profile(p, hands, sub_cnt, fix, prof):
                break
    return n


@njit(cache=True)
def _slot2(t0, t1, a, b):
    """The slot of the key pair (a, b) in a two-word set, or the empty slot where it belongs."""
    mask = np.uint64(t0.shape[0] - 1)
    h = (a * np.uint64(0x9E3779B97F4A7C15)) ^ (b * np.uint64(0xC2B2AE3D27D4EB4F))
    i = (h ^ (h >> np.uint64(31))) & mask
    while not (t0[i] == a and t1[i] == b) and t0[i] != EMPTY:
        i = (i + np.uint64(1)) & mask
    return i


@njit(cache=True, nogil=True)
def score_step(k0s, k1s, ws, lo, hi, p, sub_cnt, sub_minus, sub_stars, centre_stars, stars, out_centre, n_c,
               out0, out1, out_w, n):
    """One pass forward over (state, stars per seat), for the win chances.

    The stars are kept only as far as the win depends on them: each seat's deficit to the leader
    (7 bits a seat in ``k1``), and a deficit larger than every star still in play (hands and
    centre) is the same as any other such (that seat can no longer draw level).  Slots ``lo..hi``
    of the layer are expanded into ``out*`` (``n`` entries there already); returns the entries
    now there, or -1 when more than half full.
    """
    hands = np.zeros(p, np.int64)
    prof = np.zeros(p, np.int64)
    nh = np.zeros(p, np.int64)
    raw = np.zeros(p, np.int64)
    fix = np.full(p, -1, np.int64)
    limit = out0.shape[0] // 2
    pw = np.ones(p, np.int64)
    for s in range(1, p):
        pw[s] = pw[s - 1] * 5
    for i in range(lo, hi):
        key = k0s[i]
        if key == EMPTY:
            continue
        c = ws[i]
        d = k1s[i]
        ci = _unpack(key, p, hands)
        _first_profile(p, hands, sub_cnt, fix, prof)
        while True:
            pc = 0
            for s in range(p):
                pc += prof[s] * pw[s]
                nh[s] = sub_minus[hands[s], prof[s]]
            row = pc * n_c + ci
            nci = out_centre[row]
            left = centre_stars[nci]
            for s in range(p):
                left += sub_stars[nh[s]]
            top = -(1 << 30)
            for s in range(p):
                raw[s] = stars[row, s] - np.int64((d >> np.uint64(7 * s)) & np.uint64(127))
                if raw[s] > top:
                    top = raw[s]
            nd = np.uint64(0)
            for s in range(p):
                gap = min(top - raw[s], left + 1)
                nd |= np.uint64(gap) << np.uint64(7 * s)
            ck = _pack(p, nh, nci)
            j = _slot2(out0, out1, ck, nd)
            if out0[j] == EMPTY:
                out0[j] = ck
                out1[j] = nd
                out_w[j] = 0
                n += 1
                if n > limit:
                    return -1
            out_w[j] += c
            if not _next_profile(p, hands, sub_cnt, fix, prof):
                break
    return n


@njit(cache=True, nogil=True)
def shares(k0s, k1s, ws, p, lcm, out):
    """At the end of the round: ``out[s]`` += weight * lcm / (seats tied for the most stars),
    for each seat among them (so a tie is shared equally, in integers)."""
    for i in range(k0s.shape[0]):
        if k0s[i] == EMPTY:
            continue
        top = 0
        for s in range(p):
            if (k1s[i] >> np.uint64(7 * s)) & np.uint64(127) == 0:
                top += 1
        for s in range(p):
            if (k1s[i] >> np.uint64(7 * s)) & np.uint64(127) == 0:
                out[s] += ws[i] * (lcm // top)
