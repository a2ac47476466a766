"""Benchmark: six pads on nfcpy against six emulated PN532s, paced as the wire and the air are.

The simulators run in a child process (they play the table: cards laid and
lifted at random moments); this process runs only the pads, so its CPU time is
the readers' cost. Every simulated pad reads 5 deep. The simulators take the
time the air takes (106 kbit/s, 9 bits a byte, the 5.1 ms guard time after each
field reset: :mod:`drivers.nfc.pn532sim.chip`) and pace the serial link at the
chip's speed, which nfcpy moves to 921600 baud; ``--baud`` caps it (``--baud
115200``: a link that stays at the PN532's power-on speed). Prints one line per figure,
``name: value unit`` (the figures themselves: docs/benchmarks.md)::

    arrive_median_ms: ... ms           one card laid → its arrive event
    arrive_p99_ms: ... ms
    leave_median_ms: ... ms            one card lifted → its leave event
    idle_cpu_percent: ... %            six pads polling an empty table, % of one core
    stack3_all_seen_median_ms: ... ms  a packet of three laid at once → the last of its three arrivals
    stack_idle_cpu_percent: ... %      six pads each holding a stack of five, % of one core
    signature_check_ms: ... ms         one READ_SIG (the card selected by the poll) + its ECDSA verify

    reselect_<choice>_ms: ... ms         a poll that asks both cards of a pair just laid: the one the listing
    reselect_<choice>_frames: ... frames  halted selected again, by InSelect (in_select), by a listing by
                                       its UID without InSelect (by_uid), by InSelect falling back on that
                                       listing on a chip whose InSelect wakes nothing (fallback)

``--noise LEVEL`` makes the simulated radio noisy (:mod:`drivers.nfc.pn532sim.noise`: answers garbled
or lost, listings garbled by a collision; LEVEL times the model's rates): with ``--signatures once``
the figures are the cost of the retries (a card laid → known, a packet of three checked), beside the
same run without it; ``genuine_refused`` counts the genuine cards given another verdict (0, or
the reader is wrong). ``--in-select off``: the pads never send InSelect (the listing by UID instead).

``--signatures once`` runs the pads with the originality check of a table that requires it (each
tag's GET_VERSION and READ_SIG asked when it arrives, remembered while it stays on the pad and
forgotten when it leaves, so every arrival of a card is checked: the default);
``--signatures every`` asks at every arrival on every pad, even of a tag still lying on another
(``check_every_arrival``). The simulated tags are signed with the TEST key.

Run: ``.venv/bin/python bench/pads.py`` (``--help`` for the knobs).
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import multiprocessing.connection
import queue
import random
import statistics
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from drivers.device_errors import DeviceNotFoundError
from drivers.device_events import CardSeen, DeviceEvent, Origin, ReaderStatus
from drivers.nfc.originality import OriginalityCheck
from drivers.nfc.pad import PadSet, PadTiming
from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import DEFAULT_MISS, Pn532Simulator, tag_signer
from drivers.nfc.pn532sim.noise import of_level
from drivers.nfc.reader import AskEvery
from hardware import ntag_signature

ZONES = ("hand.A", "hand.B", "turnup", "discard", "play.A", "play.B")
DEPTH = 5
STACK = 5


@dataclass(frozen=True, slots=True)
class Move:
    """Tags laid on (``gone=False``) or lifted off a pad at once, at ``t`` (monotonic s)."""

    pad: int
    uids: tuple[str, ...]
    gone: bool
    t: float


def tag_of(pad: int) -> str:
    return f"04{pad:02X}A0B0C0D0{pad:02X}"


def stack_of(pad: int) -> list[str]:
    """The tags of pad ``pad``'s stack, lowest first."""
    return [f"04{pad:02X}A1B1C1{k:02X}{pad:02X}" for k in range(STACK)]


def _rounds(
    sims: list[Pn532Simulator], rounds: int, seed: int, packet: int
) -> list[Move]:
    """Each pad, on its own thread: lay ``packet`` tags at once, lift them, ``rounds`` times."""
    moves: list[Move] = []
    lock = threading.Lock()
    lay: Callable[[int], list[str]] = (lambda i: [tag_of(i)]) if packet == 1 else (lambda i: stack_of(i)[:packet])

    def hand(index: int) -> None:
        rng = random.Random(seed + index)
        sim, uids = sims[index], lay(index)
        for _ in range(rounds):
            # Longer than a leave takes: a card put back sooner has not left.
            time.sleep(rng.uniform(0.25, 0.4))
            sim.place_stack(uids)
            laid = time.monotonic()
            time.sleep(rng.uniform(0.15, 0.3))
            sim.lift_all()
            lifted = time.monotonic()
            with lock:
                moves.append(Move(index, tuple(uids), False, laid))
                moves.append(Move(index, tuple(uids), True, lifted))

    hands = [threading.Thread(target=hand, args=(i,)) for i in range(len(sims))]
    for thread in hands:
        thread.start()
    for thread in hands:
        thread.join()
    time.sleep(1.0)  # let the last leave events come
    return moves


def _play_table(
    conn: multiprocessing.connection.Connection, pads: int, rounds: int, baud: int, seed: int, miss: float,
    noise: float = 0.0,
) -> None:
    """Child process: the simulators, and the hands that lay and lift cards."""
    signer = tag_signer.sim_signer()
    sims = [
        Pn532Simulator(baud=baud, name=f"ttyPAD{i}", depth=DEPTH, miss=miss, seed=seed + i, signer=signer,
                       noise=of_level(noise))
        for i in range(pads)
    ]
    try:
        conn.send([sim.path for sim in sims])
        conn.recv()  # the idle measurement is over
        conn.send(_rounds(sims, rounds, seed, packet=1))
        conn.recv()
        conn.send(_rounds(sims, rounds, seed + 100, packet=3))
        conn.recv()
        for index, sim in enumerate(sims):
            sim.place_stack(stack_of(index))
        conn.send("stacked")
        conn.recv()  # the stack measurement is over: the simulators go only after the pads
        conn.send(tuple(sum(getattr(sim.noise, n) for sim in sims) for n in ("garbled", "lost", "collisions")))
    finally:
        for sim in sims:
            sim.close()


def _latencies(moves: list[Move], events: list[CardSeen], gone: bool) -> list[float]:
    """Milliseconds from each move to the last of its tags' first matching events after it."""
    out = []
    for move in moves:
        if move.gone != gone:
            continue
        firsts = []
        for uid in move.uids:
            later = [
                e.t for e in events
                if e.zone == ZONES[move.pad] and e.sighting.uid == uid and e.gone == gone and e.t >= move.t
            ]
            if later:
                firsts.append(min(later))
        if len(firsts) == len(move.uids):
            out.append(1000 * (max(firsts) - move.t))
    return out


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _cpu_percent(seconds: float) -> float:
    cpu, wall = time.process_time(), time.monotonic()
    time.sleep(seconds)
    return 100 * (time.process_time() - cpu) / (time.monotonic() - wall)


def _drain(events: queue.Queue[DeviceEvent]) -> list[CardSeen]:
    seen: list[CardSeen] = []
    while not events.empty():
        event = events.get_nowait()
        if isinstance(event, CardSeen):
            seen.append(event)
    return seen


def _open_reader(path: str, attempts: int = 3) -> NfcpyReader:
    """The reader on ``path``, opened again if it failed (a busy machine may miss the first ACK, as
    the pads allow: ``PadTiming.fault_limit``).

    :raises DeviceNotFoundError: it failed ``attempts`` times.
    """
    for _ in range(attempts - 1):
        try:
            return NfcpyReader(path)
        except DeviceNotFoundError:
            time.sleep(0.05)
    return NfcpyReader(path)


def signature_check_ms(baud: int, checks: int = 30) -> float:
    """Median ms of one READ_SIG to a card the poll left selected, and its verification."""
    key = tag_signer.sim_public_key()
    uid = tag_of(0)
    times = []
    with Pn532Simulator(baud=baud, name="ttySIG", signer=tag_signer.sim_signer()) as sim:
        sim.place(uid)
        with _open_reader(sim.path) as reader:
            for _ in range(checks):
                reader.poll()
                start = time.perf_counter()
                signature = reader.read_signature(uid)
                ok = signature is not None and ntag_signature.verify_signature(bytes.fromhex(uid), signature, key)
                times.append(1000 * (time.perf_counter() - start))
                if not ok:
                    raise RuntimeError(f"tag {uid}: the signature did not verify")
    return statistics.median(times)


RESELECT_CHOICES = ("in_select", "by_uid", "fallback")
"""How a reader selects again the card a listing halted (:func:`reselect_cost`)."""


def reselect_cost(baud: int, choice: str, polls: int = 30) -> tuple[float, float]:
    """Median ms and frames of a poll that asks both cards of a pair just laid (MaxTg=2: the listing
    halted the first to find the second), the first selected again as ``choice`` says: by InSelect
    (the chip waking it, as the simulator assumes), by a listing by UID (the reader never sends
    InSelect), or by InSelect falling back on that listing (a chip whose InSelect wakes nothing)."""
    key = tag_signer.sim_public_key()
    pair = stack_of(0)[:2]
    times, frames = [], []
    with Pn532Simulator(baud=baud, name="ttyRESEL", depth=2, miss=0.0, signer=tag_signer.sim_signer(),
                        in_select_wakes=choice != "fallback") as sim, \
            NfcpyReader(sim.path, in_select=choice != "by_uid") as reader:
        for _ in range(polls):
            sim.place_stack(pair)
            asked = AskEvery()
            sent, start = reader.frames.sent, time.perf_counter()
            reader.poll(ask=asked)
            times.append(1000 * (time.perf_counter() - start))
            frames.append(reader.frames.sent - sent)
            if sorted(asked.facts) != sorted(pair) or any(
                    ntag_signature.judge(uid, facts, key) != Origin.GENUINE for uid, facts in asked.facts.items()):
                raise RuntimeError(f"{choice}: the pair was not both read genuine: {asked.facts}")
            sim.lift_all()
            reader.poll()  # the empty pad: the field reset, as before the next pair
    return statistics.median(times), statistics.median(frames)



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pads", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=20, help="cards (and packets) laid per pad")
    parser.add_argument("--baud", type=int, default=921600,
                        help="the serial link at most (nfcpy moves the PN532 to 921600 where the port takes it)")
    parser.add_argument("--interval", type=float, default=PadTiming().poll_interval, help="s")
    parser.add_argument("--leave-after", type=int, default=PadTiming().leave_after, help="polls")
    parser.add_argument("--idle-seconds", type=float, default=5.0)
    parser.add_argument("--miss", type=float, default=DEFAULT_MISS, help="simulated miss probability")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--signatures", choices=("off", "once", "every"), default="off",
                        help="check the tags' originality at each arrival, remembered while the tag stays (once) or "
                             "never remembered (every)")
    parser.add_argument("--noise", type=float, default=0.0, metavar="LEVEL",
                        help="the simulated radio's noise, times the noise model's rates (default 0: perfect)")
    parser.add_argument("--in-select", choices=("on", "off"), default="on",
                        help="off: the pads never send InSelect (a listing by UID selects a card again)")
    parser.add_argument("--debug", action="store_true", help="list moves and events on stderr")
    args = parser.parse_args(argv)
    if not 1 <= args.pads <= len(ZONES):
        parser.error(f"--pads must be 1..{len(ZONES)}")

    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    table = context.Process(
        target=_play_table, args=(theirs, args.pads, args.rounds, args.baud, args.seed, args.miss, args.noise)
    )
    table.start()
    cards = {tag_of(pad): "KS" for pad in range(args.pads)}
    cards |= {uid: "QH" for pad in range(args.pads) for uid in stack_of(pad)}
    events: queue.Queue[DeviceEvent] = queue.Queue()
    timing = PadTiming(poll_interval=args.interval, leave_after=args.leave_after)
    try:
        paths = ours.recv()
        ports = {ZONES[i]: path for i, path in enumerate(paths)}
        check = None
        if args.signatures != "off":
            key = tag_signer.sim_public_key()
            check = OriginalityCheck(lambda uid, facts: ntag_signature.judge(uid, facts, key),
                                     remember=args.signatures == "once")
        opener = functools.partial(NfcpyReader, in_select=args.in_select == "on")
        with PadSet(ports, events=events, card_for=cards.get, timing=timing, originality=check, open_reader=opener):
            online = 0
            while online < args.pads:
                event = events.get(timeout=30)
                online += isinstance(event, ReaderStatus) and event.online
            time.sleep(0.5)  # settle
            idle = _cpu_percent(args.idle_seconds)
            ours.send("go")
            singles: list[Move] = ours.recv()
            ours.send("packets")
            packets: list[Move] = ours.recv()
            ours.send("stacks")
            ours.recv()
            time.sleep(1.0)  # every stack seen
            stack_idle = _cpu_percent(args.idle_seconds)
            stacked = _drain(events)
        ours.send("done")
        radio = ours.recv()
    finally:
        table.join(timeout=30)
        if table.is_alive():
            table.terminate()

    if args.debug:
        for move in sorted(singles + packets, key=lambda m: m.t):
            print("move", ZONES[move.pad], len(move.uids), move.gone, f"{move.t:.4f}", file=sys.stderr)
        for event in stacked:
            print("event", event.zone, event.sighting.uid, event.gone, f"{event.t:.4f}", file=sys.stderr)
    arrive = _latencies(singles, stacked, gone=False)
    leave = _latencies(singles, stacked, gone=True)
    packet = _latencies(packets, stacked, gone=False)
    expected = len(singles) // 2
    if len(arrive) < expected or len(leave) < expected or len(packet) < len(packets) // 2:
        print(f"missed events: {len(arrive)}/{expected} arrivals, {len(leave)}/{expected} leaves, "
              f"{len(packet)}/{len(packets) // 2} packets seen whole", file=sys.stderr)
    in_stacks = {e.sighting.uid for e in stacked if e.sighting.uid in cards and cards[e.sighting.uid] == "QH"}
    print(
        f"# {args.pads} pads, at most {args.baud} baud, depth {DEPTH}, miss {args.miss}, poll_interval "
        f"{args.interval * 1000:.0f} ms, leave_after {args.leave_after} polls, {len(arrive)} arrivals, "
        f"{len(leave)} leaves, {len(packet)} packets of 3; {len(in_stacks)} stacked tags seen; "
        f"signatures {args.signatures}, noise {args.noise:g} ({radio[0]} answers garbled, {radio[1]} lost, "
        f"{radio[2]} listings spoilt by a collision), InSelect {args.in_select}",
        file=sys.stderr,
    )
    print(f"arrive_median_ms: {statistics.median(arrive):.1f} ms")
    print(f"arrive_p99_ms: {_percentile(arrive, 0.99):.1f} ms")
    print(f"leave_median_ms: {statistics.median(leave):.1f} ms")
    print(f"idle_cpu_percent: {idle:.1f} %")
    print(f"stack3_all_seen_median_ms: {statistics.median(packet):.1f} ms")
    print(f"stack_idle_cpu_percent: {stack_idle:.1f} %")
    if check is not None:
        said = [str(e.sighting.origin) for e in stacked if not e.gone]  # each verdict by its word
        verdicts = statistics.multimode(said)
        counts = {v: said.count(v) for v in sorted(set(said))}
        print(f"# signatures {args.signatures}: arrivals by verdict {counts} (most: {verdicts})", file=sys.stderr)
        print(f"genuine_refused: {sum(1 for e in stacked if not e.gone and e.sighting.origin != Origin.GENUINE)} cards")
    print(f"signature_check_ms: {signature_check_ms(args.baud):.1f} ms")
    for choice in RESELECT_CHOICES:
        ms, frames = reselect_cost(args.baud, choice)
        print(f"reselect_{choice}_ms: {ms:.1f} ms")
        print(f"reselect_{choice}_frames: {frames:.0f} frames")
    return 0


if __name__ == "__main__":
    sys.exit(main())
