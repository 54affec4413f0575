"""Clock models by ping-pong over torch.distributed (the stepclock rules, docs/schema.md).

One exchange: rank 0 reads t_send, the peer reads t_peer on receipt and replies, rank 0 reads
t_recv; offset = (t_send + t_recv) / 2 - t_peer with |error| <= (t_recv - t_send) / 2. At least
10 exchanges at the start and at the end; the one with the smallest round trip is kept; the
change in offset between the two gives the drift. Raw timestamps are CLOCK_MONOTONIC in ns,
as stepclock's, and are never rewritten."""

import time

import torch
import torch.distributed as dist

MIN_EXCHANGES = 10

# Tensors handed to torch.distributed stay referenced from Python for the life of the process.
# (torch 1.13: when a gloo worker thread drops the last reference to a tensor that Python has
# seen, it needs the GIL; at interpreter exit the main thread joins that worker while holding the
# GIL, and the process hangs. Kept here, the last reference is never the worker's.)
PINNED = []


def now_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def unix_offset_ns():
    """Unix time minus the raw clock, in ns: one CLOCK_REALTIME read between two raw reads (their
    midpoint), as stepclock's unix_offset_ns (the run meta unix_offset_ns)."""
    before = now_ns()
    unix_ns = time.clock_gettime_ns(time.CLOCK_REALTIME)
    after = now_ns()
    return unix_ns - (before + (after - before) // 2)


class Estimate:
    __slots__ = ("peer_ns", "offset_ns", "rtt_ns", "valid")

    def __init__(self, peer_ns=0, offset_ns=0.0, rtt_ns=0.0, valid=False):
        self.peer_ns = peer_ns
        self.offset_ns = offset_ns
        self.rtt_ns = rtt_ns
        self.valid = valid


def best_offset(samples):
    """samples: [(send_ns, peer_ns, recv_ns)]; keeps the exchange with the minimum round trip.
    Integers throughout (Python's are exact), as stepclock's best_offset."""
    best = Estimate()
    for send, peer, recv in samples:
        rtt = recv - send
        if rtt < 0:
            continue
        if not best.valid or rtt < best.rtt_ns:
            best = Estimate(peer, float(send + rtt // 2 - peer) + (rtt % 2) / 2.0, float(rtt),
                            True)
    return best


def exchange(rank, world, exchanges, group=None, clock=now_ns):
    """Rank 0 exchanges `exchanges` pings with every other rank in turn; returns rank 0's
    estimates per rank (None on the other ranks)."""
    if exchanges < MIN_EXCHANGES:
        raise ValueError("at least %d clock exchanges are required" % MIN_EXCHANGES)
    ping = torch.zeros(1, dtype=torch.int64)
    pong = torch.zeros(1, dtype=torch.int64)
    PINNED.extend((ping, pong))
    if rank != 0:
        for _ in range(exchanges):
            dist.recv(ping, src=0, group=group)
            pong[0] = clock()
            dist.send(pong, dst=0, group=group)
        return None
    estimates = [Estimate(clock(), 0.0, 0.0, True)]
    for peer in range(1, world):
        samples = []
        for _ in range(exchanges):
            send = clock()
            dist.send(ping, dst=peer, group=group)
            dist.recv(pong, src=peer, group=group)
            recv = clock()
            samples.append((send, int(pong[0]), recv))
        estimates.append(best_offset(samples))
    return estimates


def clock_model(rank, start, end, exchanges, host):
    """The clock_models row of one rank from its start and end estimates."""
    model = {"rank": rank, "host": host, "ref_ns": 0, "offset_ns": 0.0, "drift_ppm": 0.0,
             "uncertainty_ns": 0.0, "start_rtt_ns": 0.0, "end_rtt_ns": 0.0,
             "exchanges": exchanges}
    if rank == 0:
        model["ref_ns"] = start.peer_ns if start is not None else 0
        return model
    if start is None or not start.valid:
        return model
    model["ref_ns"] = start.peer_ns
    model["offset_ns"] = start.offset_ns
    model["start_rtt_ns"] = start.rtt_ns
    model["uncertainty_ns"] = start.rtt_ns / 2.0
    if end is not None and end.valid and end.peer_ns != start.peer_ns:
        span = float(end.peer_ns - start.peer_ns)
        model["drift_ppm"] = (end.offset_ns - start.offset_ns) / span * 1e6
        model["end_rtt_ns"] = end.rtt_ns
        model["uncertainty_ns"] = max(start.rtt_ns, end.rtt_ns) / 2.0
    return model


def gather_bytes(rank, world, payload, group=None):
    """Every rank's `payload` (bytes) on rank 0, in rank order (None on the other ranks), by
    point-to-point sends of tensors kept in PINNED."""
    if rank != 0:
        size = torch.tensor([len(payload)], dtype=torch.int64)
        buffer = bytearray(payload)  # frombuffer shares this memory: it must outlive the send
        data = torch.frombuffer(buffer, dtype=torch.uint8) if payload else \
            torch.zeros(0, dtype=torch.uint8)
        PINNED.extend((buffer, size, data))
        dist.send(size, dst=0, group=group)
        if len(payload):
            dist.send(data, dst=0, group=group)
        return None
    out = [payload]
    for peer in range(1, world):
        size = torch.zeros(1, dtype=torch.int64)
        PINNED.append(size)
        dist.recv(size, src=peer, group=group)
        data = torch.zeros(int(size[0]), dtype=torch.uint8)
        PINNED.append(data)
        if int(size[0]):
            dist.recv(data, src=peer, group=group)
        out.append(data.numpy().tobytes())
    return out
