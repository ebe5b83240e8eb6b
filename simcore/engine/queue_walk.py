"""The order and the walk of a pass with queues (DESIGN-queues point 7).

The key of each pending job is fixed at the start of the pass: first every job within its queue's
quota then (group 0, by rank: the policy's order of rule 2), then the others (group 1, by the share
of their queue at the start of the pass, then rank: queues interleave). Within quota at the start:
a nominated job of q with GPUs r > 0 when U(q) + N(q) <= quota(q) (its own nomination counted
once), another when its GPUs r > 0 and r <= quota(q) - U(q) - N(q), every job of a queue whose quota is inf.

The walk tries the jobs in that order, but skips those whose try would provably do nothing (exact,
as the pass without queues skips jobs that cannot fit): a job is looked at when it is nominated, a
TE job of a preemptive policy, may meet the quota condition and fit somewhere (its request within
the most any node has), or is within quota while another queue over quota runs a BE job (it may
reclaim; a queue none of whose pending jobs asks per worker for at most its headroom has no job
within quota, so none of its jobs may reclaim). When no room was given back since the last pass and
no job may reclaim, only the jobs that joined at this instant and those always looked at may act;
the same when no pending job fits anywhere: the pass then tries only those, and the joiners join
the pending jobs only when tried and not placed (as without queues, most are placed at once).

Each queue's pending jobs are a :class:`~simcore.engine.pending.PendingQueue` of ranks; a
*stream* walks one queue's jobs of one group in rank order under a bound on their requests, and the
walk merges the streams by key, reading a stream only when no stream of a lower (group, share) has a
job left to try (its jobs all come after theirs: a borrowers' stream does not read its queue's
within-quota jobs while group 0 is tried). Bounds only shrink while no room is given back and no queue becomes
a lender; when either happens, every stream looks again from the job just tried on. A job is tried
at most once per pass. Under ``backfill = none`` every job is looked at until the first one that
waits for room (not for its queue's quota, nor nominated); after it only the nominated jobs are still
tried, and only to start (a nominated job of a borrowing queue may sit behind a job within quota that
its own reservation keeps out: stopping before it would leave both waiting for ever).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from typing import Final

from simcore.engine.gang import GangRun
from simcore.engine.pending import UNBOUNDED, PendingQueue, Waiting
from simcore.engine.quota import INF

_STALE: Final[int] = -2  # a stream's next rank is not known
_DONE: Final[int] = -1  # a stream has no job left to look at in this pass


class QueueWaiting:
    """The pending jobs of each queue: the ranks of every one (a :class:`PendingQueue`, requests by
    rank shared with the run's :class:`Waiting`) and, sorted, the ranks always looked at (the TE jobs
    of a preemptive run; nominated jobs)."""

    def __init__(self, waiting: Waiting, queue: list[int], n_queues: int, te_always: list[bool]) -> None:
        self.pend = [PendingQueue(waiting.queue.req_list) for _ in range(n_queues)]
        self.always: list[list[int]] = [[] for _ in range(n_queues)]
        self._queue = queue
        self._rank = waiting.rank
        self._te_always = te_always

    def add(self, j: int) -> None:
        """`j` joins (it may have been nominated when tried before it joined: listed already)."""
        self.pend[self._queue[j]].add(self._rank[j])
        if self._te_always[j]:
            self._list(j)

    def remove(self, j: int) -> None:
        """`j` leaves (placed)."""
        self.pend[self._queue[j]].remove(self._rank[j])
        self.unlist(j)

    def nominated(self, j: int) -> None:
        """A nominated job is looked at in every pass."""
        self._list(j)

    def _list(self, j: int) -> None:
        a, r = self.always[self._queue[j]], self._rank[j]
        i = bisect_left(a, r)
        if i == len(a) or a[i] != r:
            a.insert(i, r)

    def unnominated(self, j: int) -> None:
        """`j`'s nomination was returned (it stays pending: a TE job of a preemptive run stays listed)."""
        if not self._te_always[j]:
            self.unlist(j)

    def unlist(self, j: int) -> None:
        """`j` is no longer looked at in every pass."""
        a, r = self.always[self._queue[j]], self._rank[j]
        i = bisect_left(a, r)
        if i < len(a) and a[i] == r:
            del a[i]


class _Stream:
    """One queue's pending jobs of one group, in rank order from `pos` (see the module docstring)."""

    def __init__(self, q: int, group: int, share: int) -> None:
        self.q = q
        self.group = group
        self.share = share
        self.pos = 0
        self.nxt = _STALE


def _stream_share(s: _Stream) -> int:
    return s.share


def _resume(streams: list[_Stream], key: tuple[int, ...], r: int) -> None:
    """Every stream looks again (its bound may have grown) after the job of rank `r` and key (group,
    share) `key`: the streams of lower keys are done, those of this key go on after `r`."""
    for s in streams:
        mine = (s.group, s.share)
        if mine < key:
            s.nxt = _DONE
            continue
        if mine == key and s.pos <= r:
            s.pos = r + 1
        s.nxt = _STALE


class QueueWalk(GangRun):
    """The walk of a pass with queues, mixed into :class:`simcore.engine.loop._Run` (through
    :class:`~simcore.engine.teams.TeamRun`, whose tries it makes)."""

    qwait: QueueWaiting | None
    waiting: Waiting
    strict: bool
    tried: list[int]  # per job, the last pass that tried it
    pass_no: int
    version_seen: int  # cluster.version after the last pass, -1 when room was given back during it
    #: per queue, the sorted ranks of the jobs that joined at this instant, while no room has been given
    #: back since the last pass (only they, and the jobs always looked at, may act then); else None
    joiners: list[list[int]] | None
    h0: list[int]  # per queue at the start of the pass: quota - U - N
    wn0: list[bool]  # per queue at the start of the pass: is a nominated job within quota
    accepts: list[Callable[[int], bool]] | None  # per group, the pass's acceptor (:meth:`_acceptor`), made on first use

    def _try_queued(self, j: int) -> tuple[int, ...] | None:
        raise NotImplementedError  # simcore.engine.teams.TeamRun

    # -- the pass ------------------------------------------------------------------------------
    def _walk_queues(self, joining: list[int]) -> tuple[int, ...]:
        """One pass (`joining`: the jobs that joined at this instant); returns the jobs released within it."""
        qs, qw, cl = self.quota, self.qwait, self.cl
        assert qs is not None and qw is not None
        n, v0 = len(qs.quota), cl.version
        self.pass_no += 1
        self.q_stopped = False
        self.joiners = None
        # with no room given back since the last pass, the joiners are tried before they join the pending
        # jobs (most are placed at once: never added, never removed), unless some job may reclaim
        only = not self.strict and v0 == self.version_seen
        if joining and not only:
            self._join_queued(joining)
        has = [False] * n  # per queue: a pending job, or a joiner
        reclaims = False
        looked = False  # some job is always looked at
        h0, wn0, quota, U, N = self.h0, self.wn0, qs.quota, qs.U, qs.N
        for q in range(n):
            if quota[q] >= INF:
                h0[q], wn0[q] = INF, True
            else:
                h0[q] = quota[q] - U[q] - N[q]
                wn0[q] = h0[q] >= 0
            if qw.pend[q].count:
                has[q] = True
                reclaims = reclaims or (self.preemptive and self._reclaims(q))
                looked = looked or len(qw.always[q]) > 0
        if only:
            req = self.js.req_list
            for j in joining:
                q = qs.queue[j]
                has[q] = True
                if self.preemptive and not reclaims and qs.reclaim_possible(q):
                    h = h0[q]
                    reclaims = h >= INF or (h >= 0 and req[j][2] <= h)  # may be within quota (see _reclaims)
        live = [q for q in range(n) if has[q]]
        self.accepts = None
        if only and not reclaims:  # (no joiner may act when _may_fit says nothing fits: not asked)
            freed = self._walk_few(joining, live)
        elif not self.strict and not reclaims and not self._may_fit(live):
            # no pending job fits anywhere and none may reclaim: only those always looked at may act
            freed = self._walk_few([], live) if looked else ()
        else:
            if only:  # see _stream_next
                if joining:
                    self._join_queued(joining)
                rank = self.waiting.rank
                joiners: list[list[int]] = [[] for _ in range(n)]
                for j in joining:
                    joiners[qs.queue[j]].append(rank[j])
                self.joiners = [sorted(x) for x in joiners]
            freed = self._walk_streams(self._streams(live, [qs.share(q) for q in range(n)]), (), ())
        # a pass during which room was given back looked at some jobs before it: look again next time
        self.version_seen = cl.version if cl.version == v0 else -1
        return freed

    def _streams(self, live: list[int], shares: list[int]) -> list[_Stream]:
        """The streams of a pass: per queue with pending jobs at its start, group 0 (when a job may be
        within quota) and group 1 (when its quota is finite), keyed by the shares at the start."""
        qw = self.qwait
        assert qw is not None
        h0 = self.h0
        # by (group, share): the walk reads a stream only when no stream of a lower one has a job to try
        # (its jobs come after theirs), so a stream of borrowers does not read its queue while group 0 is tried
        borrowers = [_Stream(q, 1, shares[q]) for q in live if h0[q] < INF]
        borrowers.sort(key=_stream_share)
        return [_Stream(q, 0, 0) for q in live if h0[q] >= 0 or qw.always[q]] + borrowers

    def _walk_few(self, joining: list[int], live: list[int]) -> tuple[int, ...]:
        """The pass when only the joiners and the jobs always looked at may act (no room given back since
        the last pass, or no pending job fits anywhere; no reclaim possible): those, sorted by key, tried in
        turn; once room is given back or a queue becomes a lender, the streams take over after the job just
        tried. The joiners are not pending yet: each joins once tried and not placed, or not looked at
        (nothing in a try reads the pending jobs), and every later one when the streams take over."""
        qs, qw, cl = self.quota, self.qwait, self.cl
        assert qs is not None and qw is not None
        rank, job_of_rank = self.waiting.rank, self.waiting.job_of_rank
        shares = [qs.share(q) for q in range(len(qs.quota))]  # at the start of the pass: the keys
        keyed = []  # (group, share, rank, 1 for a joiner)
        for j in joining:
            if self._group(j):
                keyed.append((1, shares[qs.queue[j]], rank[j], 1))
            else:
                keyed.append((0, 0, rank[j], 1))
        for a in qw.always:
            for r in a:
                j = job_of_rank[r]
                if self._group(j):
                    keyed.append((1, shares[qs.queue[j]], r, 0))
                else:
                    keyed.append((0, 0, r, 0))
        if len(keyed) > 1:
            keyed.sort()
        freed: tuple[int, ...] = ()
        version, opened = cl.version, qs.opened
        for i, key in enumerate(keyed):
            j = job_of_rank[key[2]]
            joiner = key[3] == 1
            if not self._may_look(j):
                if joiner:
                    self._join_queued((j,))
                continue
            self.tried[j] = self.pass_no
            released = self._try_queued(j)
            if released is not None:
                freed += released
                if joiner:  # it was never pending, but its try may have listed it (nominated, then started)
                    qw.unlist(j)
                else:
                    self._leave(j)
            elif joiner:
                self._join_queued((j,))
            if cl.version != version or qs.opened != opened:
                self.joiners = None
                later = [job_of_rank[k[2]] for k in keyed[i + 1 :] if k[3] == 1]
                if later:
                    self._join_queued(later)
                return freed + self._walk_streams(self._streams(live, shares), (key[0], key[1]), (key[2],))
        return freed

    def _walk_streams(self, streams: list[_Stream], after: tuple[int, ...], rank: tuple[int, ...]) -> tuple[int, ...]:
        """Try the jobs of `streams` in key order (see the module docstring); `after` (group, share) and
        `rank`, when given: start after that key (the streams of lower keys are done)."""
        qs, cl = self.quota, self.cl
        assert qs is not None
        if after:
            _resume(streams, after, rank[0])
        job_of_rank = self.waiting.job_of_rank
        freed: tuple[int, ...] = ()
        version, opened = cl.version, qs.opened
        while True:
            best: _Stream | None = None
            fresh = False  # best's job was found just now (else before the last try, maybe under a larger bound)
            for s in streams:
                if best is not None and (s.group != best.group or s.share != best.share):
                    break  # this stream's jobs, and every later stream's, come after best's
                found = s.nxt == _STALE
                if found:
                    s.nxt = self._stream_next(s, s.pos)
                if s.nxt >= 0 and (best is None or s.nxt < best.nxt):
                    best, fresh = s, found
            if best is None:
                return freed
            r = best.nxt
            j = job_of_rank[r]
            if not fresh and not self._may_look(j):  # found under a bound that has shrunk since
                best.nxt = self._stream_next(best, r + 1)
                continue
            released = self._try_once(j)
            if released is not None:
                freed += released
            elif self.strict and self.q_blocked:
                self.q_stopped = True  # backfill none: only nominated jobs are still tried (to start)
            best.pos, best.nxt = r + 1, _STALE
            if cl.version != version or qs.opened != opened:  # bounds may have grown: look again after j
                version, opened = cl.version, qs.opened
                self.joiners = None
                _resume(streams, (best.group, best.share), r)

    def _stream_next(self, s: _Stream, pos: int) -> int:
        """The first rank >= pos of stream `s` that the walk looks at now, or -1."""
        qw = self.qwait
        assert qw is not None
        job_of_rank, q, group = self.waiting.job_of_rank, s.q, s.group
        h = self.h0[q]
        if group == 1 and h >= INF:  # an unlimited queue's jobs are all within quota
            return -1
        found = -1
        alw = qw.always[q]
        for i in range(bisect_left(alw, pos), len(alw)):
            j = job_of_rank[alw[i]]
            if self._group(j) == group and self._may_look(j):
                found = alw[i]
                break
        if group == 0 and h < 0:  # only its nominated jobs may be within quota
            return found
        if self.joiners is not None and not (self.preemptive and self._reclaims(q)):
            # no room given back since the last pass, which left every other job of q unable to act: only
            # the jobs that joined now may (and those always looked at)
            mine = self.joiners[q]
            for i in range(bisect_left(mine, pos), len(mine)):
                r = mine[i]
                if found >= 0 and r > found:
                    break
                j = job_of_rank[r]
                if self._group(j) == group and self._may_look(j):
                    return r
            return found
        box = self._box(q, group)
        if box[0] < 0 or box[1] < 0 or box[2] < 0:  # no request is within it (no node open, no room left)
            return found
        if self.accepts is None:
            self.accepts = [self._acceptor(0), self._acceptor(1)]
        r = qw.pend[q].next_within(pos, box, found if found >= 0 else None, self.accepts[group])
        return r if r >= 0 else found

    def _acceptor(self, group: int) -> Callable[[int], bool]:
        """Is the job of a rank one of `group` that the walk may look at now? (Made once per pass.)"""
        job_of_rank, tried, pass_no = self.waiting.job_of_rank, self.tried, self.pass_no

        def accept(r: int) -> bool:
            j = job_of_rank[r]
            return tried[j] != pass_no and self._group(j) == group and self._may_look(j)

        return accept

    def _may_fit(self, live: list[int]) -> bool:
        """Might some pending job fit somewhere and meet its quota condition (a bound: its request within
        the most any node has, its GPUs within the most room any queue has)?"""
        qs = self.quota
        assert qs is not None
        top = self.cl.top()
        room = -1
        for q in live:
            r = qs.room(q)
            if r > room:
                room = r
        return self.waiting.queue.next_within(0, (top[0], top[1], top[2] if top[2] < room else room)) >= 0

    def _reclaims(self, q: int) -> bool:
        """May a pending job of q reclaim now: another queue over quota runs a BE job, and some pending
        job of q may be within quota (q is below quota, and some job asks per worker for at most the
        headroom: a bound, as a gang's GPUs are at least one worker's)?"""
        qs, qw = self.quota, self.qwait
        assert qs is not None and qw is not None
        if not qs.reclaim_possible(q):
            return False
        h = qs.headroom(q)
        return h >= INF or (h >= 0 and qw.pend[q].next_within(0, (UNBOUNDED, UNBOUNDED, h)) >= 0)

    def _group(self, j: int) -> int:
        """0 when `j` was within quota at the start of the pass, else 1 (a job not yet tried in this
        pass has the nomination it had then)."""
        qs = self.quota
        assert qs is not None
        q = qs.queue[j]
        g, h = qs.gpus[j], self.h0[q]
        if self.book.node_of(j) is not None:  # without GPUs, within a finite quota never (point 4)
            return 0 if h >= INF or (g > 0 and self.wn0[q]) else 1
        return 0 if h >= INF or (g > 0 and g <= h) else 1

    def _box(self, q: int, group: int) -> tuple[int, int, int]:
        """A bound on the requests (per worker, units) of the jobs of q the walk may look at now."""
        if self.strict:
            return (UNBOUNDED, UNBOUNDED, UNBOUNDED)
        qs = self.quota
        assert qs is not None
        top = self.cl.top()
        room = qs.room(q)
        b0, b1, b2 = top[0], top[1], top[2] if top[2] < room else room
        if self.preemptive and qs.reclaim_possible(q):  # a job within quota may reclaim wherever it fits
            h = qs.headroom(q)
            # a job of group 1 has more GPUs than the headroom at the start of the pass: within quota only above it
            if h >= 0 and (group == 0 or h > self.h0[q]):
                b0, b1 = UNBOUNDED, UNBOUNDED
                if h > b2:
                    b2 = h
        if group == 0 and self.h0[q] < b2:
            b2 = self.h0[q]
        return (b0, b1, b2)

    def _may_look(self, j: int) -> bool:
        """Might trying `j` now change anything (see the module docstring)? Exact for a skip."""
        if self.strict:
            return not self.q_stopped or self.book.node_of(j) is not None
        if self.tried[j] == self.pass_no:
            return False
        if self.book.node_of(j) is not None or (self.preemptive and self.js.is_te_list[j]):
            return True
        qs = self.quota
        assert qs is not None
        q = qs.queue[j]
        r0, r1, r2 = self.js.req_list[j]
        top = self.cl.top()
        if qs.gpus[j] <= qs.room(q) and r0 <= top[0] and r1 <= top[1] and r2 <= top[2]:
            return True
        return self.preemptive and qs.reclaim_possible(q) and qs.within(j, False)

    def _try_once(self, j: int) -> tuple[int, ...] | None:
        """Try `j` (once in this pass): None when it stays pending, else it left the pending jobs and
        the result holds the jobs released within the pass to make room for it."""
        self.tried[j] = self.pass_no
        released = self._try_queued(j)
        if released is not None:
            self._leave(j)
        return released

    def _leave(self, j: int) -> None:
        """`j` was placed: it leaves the pending jobs."""
        assert self.qwait is not None
        self.waiting.remove(self.waiting.rank[j])
        self.qwait.remove(j)

    def _join_queued(self, jobs: list[int] | tuple[int, ...]) -> None:
        assert self.qwait is not None
        self.waiting.add(jobs)
        for j in jobs:
            self.qwait.add(j)
