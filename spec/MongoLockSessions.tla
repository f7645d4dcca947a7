-------------------------- MODULE MongoLockSessions --------------------------
(***************************************************************************)
(* The session design of issue 20 (implemented; spec/README.md lists       *)
(* every difference, "The Java against the model"):                        *)
(* one session document per lock manager, renewed by one write, instead of *)
(* one renewal per held lock.  Lock documents name the session that holds  *)
(* them and are never renewed.  A waiter that sees the holder's session    *)
(* unrenewed for its lease + margin on its own monotonic clock expires the *)
(* session by a compare-and-set on the session document; an expired       *)
(* session stays expired, and only then may a waiter take a lock of it.   *)
(*                                                                         *)
(* Session document {_id: sid, state: "live" | "expired", beat, leaseMs}.  *)
(* Lock document    {_id: name, owner, session: sid, holds, version,       *)
(*                   token}.                                               *)
(*                                                                         *)
(* Same style as MongoLock.tla: clients with drifting monotonic clocks     *)
(* kept as capped timers, requests that may be applied late, applied with  *)
(* a lost reply, or never; crashes; bounded faults.  Every action says     *)
(* which MongoDB operation it stands for.                                  *)
(*                                                                         *)
(* Finite by construction, no state constraint (as in MongoLock.tla):      *)
(*  - timers (local units elapsed or remaining), capped;                   *)
(*  - a lock's version and a session's beat only grow and are only ever   *)
(*    compared for equality with the document's current value, so a       *)
(*    remembered copy is one bit, "still the document's"; every write     *)
(*    that moves them clears the remembered bits (and a remembered copy   *)
(*    that is stale is dropped: it can never match again);                 *)
(*  - owner ids <<c, n>> and session ids <<c, n>> are only compared for    *)
(*    equality: a fresh one is the smallest n not referenced anywhere in   *)
(*    the state; a session document nobody refers to any more is          *)
(*    forgotten (state "none"): nothing can read or match it again;        *)
(*  - tokens are renumbered by rank after every grant (per lock).          *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS
    Clients,     \* the lock managers (processes), numbered 1..N
    Locks,       \* the lock names, numbered 1..M; every client wants every lock once
    R,           \* nominal local clock units per real tick
    Rates,       \* the rates a client clock may run at, in units per real tick,
                 \* fixed per client for a run
    WorstRates,  \* TRUE: only the worst case, watchers (Expirers) at the fastest
                 \* rate, every other client at the slowest; FALSE: every combination
    Lease,       \* a session's lease, in local units
    WaitFor,     \* Lease * (1 + margin): how long a waiter watches an unchanged
                 \* session (state, beat) before it expires it; needs
                 \* WaitFor >= Lease * max(Rates) / min(Rates)
    MaxCrashes,  \* bound on crashes
    Crashers,    \* the clients that may crash
    Expirers,    \* the clients that watch sessions and expire them (the others only
                 \* acquire free locks and take locks of sessions already expired)
    MaxLost,     \* bound on requests given up (lost reply, late or dropped request)
    MaxSid,      \* session ids per client (recycled when unreferenced)
    MaxId,       \* owner ids per client (recycled when unreferenced)
    Reacquire,   \* TRUE: a client that released a lock wants it again; FALSE: done
    Releasers,   \* the clients that may release a lock they hold (the others keep it
                 \* until they crash or their session expires; a state-space cut)
    Ordered,     \* TRUE: a client asks for lock l only while it holds (or is done
                 \* with) every lock below l: ordered acquisition (a state-space cut
                 \* for 2 locks, safety only: with it, progress depends on beliefs,
                 \* which need real-time bounds, see README finding (3))
    Staged,      \* TRUE: the clients outside Crashers start (create a session, read)
                 \* only once every lock was granted, or every crasher crashed: the
                 \* crasher takes both locks first (a state-space cut for 2 locks)
    RenewIdle,   \* TRUE: the renewer renews the session while the manager has one,
                 \* also when it holds nothing; FALSE: only while it holds or acquires
    MaxStale,    \* bound on stale reads: a read of a lock or of a session answered from
                 \* an older snapshot (SERVER-53813: a newly elected primary serving a
                 \* majority read from before acknowledged writes; MongoDB 5.0 to 7.0)
    StaleReads,  \* which reads may be stale: a subset of {"lock", "session"}
    Sweep,       \* TRUE: with every renewal the client reads the lock documents
                 \* that name its session and frees those it does not know it
                 \* holds (the fix for orphans, see README); FALSE: the design as
                 \* first written
    Variant      \* "Correct"
                 \* | "TakeUnexpired": a waiter takes a lock whose session it saw
                 \*   unrenewed for WaitFor, without expiring the session first
                 \* | "GrantOwnLease": a grant is believed from its own send for a
                 \*   lease, whatever the session's confirmed lease says
                 \* | "RenewExpired": the renewal filters on {_id: sid} only (no
                 \*   state: live), and so revives an expired session
                 \* | "TakeOnRead": the code before issue 31: a session READ as ended
                 \*   or absent authorises the take (no compare-and-set on the session),
                 \*   and so does a re-read after a failed expiry
                 \* | "EndLive": the end-unless-live upsert without its state filter
                 \*   ({_id: S} instead of {_id: S, state: {$ne: "live"}}): it ends a
                 \*   live session too

ASSUME /\ R >= 2 /\ Lease >= 1 /\ WaitFor >= Lease
       /\ Clients \subseteq Nat \ {0} /\ Locks \subseteq Nat \ {0}
       /\ Crashers \subseteq Clients /\ Expirers \subseteq Clients /\ MaxCrashes \in Nat /\ MaxLost \in Nat
       /\ WorstRates \in BOOLEAN /\ Staged \in BOOLEAN /\ Ordered \in BOOLEAN /\ RenewIdle \in BOOLEAN /\ Releasers \subseteq Clients /\ Reacquire \in BOOLEAN /\ MaxSid >= 1 /\ MaxId >= 1 /\ Sweep \in BOOLEAN
       /\ MaxStale \in Nat /\ StaleReads \subseteq {"lock", "session"}
       /\ Variant \in {"Correct", "TakeUnexpired", "GrantOwnLease", "RenewExpired", "TakeOnRead",
                       "EndLive"}

VARIABLES
    lk,          \* lk[l]: lock document l: [owner, sess, token]; owner NoId: free
    sd,          \* sd[s]: session document s's state: "none" | "live" | "expired"
    rate,        \* rate[c]: units client c's monotonic clock advances per real tick
    cs,          \* per-client state, see ClientState
    net,         \* requests in flight whose client no longer waits for them
    faults,      \* [crash, lost, stale]: faults so far
    lastGranted, \* history: lastGranted[l], the token of l's last grant
    hist         \* history flags: [tokensOk: every grant's token exceeded the last,
                 \* takeLive: a take landed on a lock whose session was not expired,
                 \* revived: a renewal matched an expired session]

vars == <<lk, sd, rate, cs, net, faults, lastGranted, hist>>

Sids == Clients \X (1..MaxSid)
Ids  == Clients \X (1..MaxId)
NoSid == <<0, 0>>
NoId  == <<0, 0>>
MaxTok == Cardinality(Clients) + 1

Min2(a, b) == IF a <= b THEN a ELSE b
Max2(a, b) == IF a >= b THEN a ELSE b
Sub0(a, b) == IF a >= b THEN a - b ELSE 0
MinOf(S) == CHOOSE x \in S : \A y \in S : x <= y
MaxOf(S) == CHOOSE x \in S : \A y \in S : x >= y

(***************************************************************************)
(* Requests, one record shape (unused fields: 0 / NoId / NoSid / FALSE).   *)
(*   kind  "Create" | "Renew" | "Expire" | "End" (session document),       *)
(*         "Acquire" | "Take" | "Release" (lock document l)                *)
(*   sid   Create, Renew: the client's session; Expire, End: the session   *)
(*         to end; Acquire, Take: the session the grant writes             *)
(*   old   Take: the (expired) session the filter names                    *)
(*   id    Acquire, Take: the new owner id; Release: the owner filtered on *)
(*   ver   Expire: the session's (state, beat) the waiter saw is still the *)
(*         document's; Take: the lock's version it read is still current   *)
(*   left  Create, Renew: Lease minus the local time since the request was *)
(*         SENT (what a "matched" reply confirms); Acquire, Take: the same *)
(*         for the broken variant GrantOwnLease only (else 0)              *)
(*   l, lv Expire, End: the lock the waiter takes once the session ended,  *)
(*         and whether the lock's version it read is still the document's *)
(***************************************************************************)
Req(k, l, i, s, o, v, left) ==
    [kind |-> k, l |-> l, id |-> i, sid |-> s, old |-> o, ver |-> v, left |-> left, lv |-> FALSE]
NoReq == Req("none", 0, NoId, NoSid, NoSid, FALSE, 0)
\* Expire (v: the beat watched is still the session's) or End, for the take of lock l
\* whose version read is still the document's (lv), under the owner id a (reserved at
\* the send: the take that follows carries it).
EndReq(k, l, s, v, lv, a) == [Req(k, l, a, s, NoSid, v, 0) EXCEPT !.lv = lv]
Kinds == {"Create", "Renew", "Expire", "End", "Acquire", "Take", "Release"}
Requests == [kind : Kinds, l : Locks \cup {0}, id : Ids \cup {NoId}, sid : Sids \cup {NoSid},
             old : Sids \cup {NoSid}, ver : BOOLEAN, left : 0..Lease, lv : BOOLEAN]
IsGrant(r) == r.kind \in {"Acquire", "Take"}
GrantLeft == IF Variant = "GrantOwnLease" THEN Lease ELSE 0

(***************************************************************************)
(* Client state.                                                           *)
(*  mode  "Run" | "Crashed"                                                *)
(*  sm    session: "None" (none: the next wait creates one), "Creating"    *)
(*        (the insert is out, in ren), "Live" (created; its lease is       *)
(*        confirmed while sconf > 0)                                       *)
(*  sid   the session; sconf: confirmedUntil - now (0: lapsed)             *)
(*  ren   the session request out (Create or Renew; one at a time)         *)
(*  lm[l] "Wait" (wants lock l), "Acq" (an Acquire or Take out), "Hold",   *)
(*        "Rel" (its release out, then done), "Clean" (freeing a grant it  *)
(*        does not believe, or abandoning a grant whose reply was lost,    *)
(*        then waiting again), "Done"                                      *)
(*  att[l] the owner id of the acquisition of l (NoId: none)               *)
(*  app[l] the request out for lock l (or an Expire sent while waiting     *)
(*        for l)                                                           *)
(*  tok[l] the fencing token of the grant; gconf[l]: GrantOwnLease only    *)
(*  rd[l] the first step of a read of lock l done: the session it named   *)
(*        and whether the version read is still the document's (NoRd:     *)
(*        none); the second step reads that session                        *)
(*  wsid, seen: the session this waiter watches (NoSid: none) and the      *)
(*        local time since the reply that showed its (state, beat); the    *)
(*        watch is dropped when that (state, beat) changes                 *)
(*  wl, wlv: the lock whose read started the watch (the expiry is sent     *)
(*        for it) and whether the version read is still the document's    *)
(*  swp   Sweep: the release of an orphan of its session, out             *)
(***************************************************************************)
Rd == [sid : Sids \cup {NoSid}, ver : BOOLEAN]
NoRd == [sid |-> NoSid, ver |-> FALSE]
ClientState ==
    [mode : {"Run", "Crashed"}, sm : {"None", "Creating", "Live"},
     sid : Sids \cup {NoSid}, sconf : 0..Lease, ren : Requests \cup {NoReq},
     lm : [Locks -> {"Wait", "Acq", "Hold", "Rel", "Clean", "Done"}],
     att : [Locks -> Ids \cup {NoId}], app : [Locks -> Requests \cup {NoReq}],
     tok : [Locks -> 0..MaxTok], gconf : [Locks -> 0..Lease], rd : [Locks -> Rd],
     wsid : Sids \cup {NoSid}, seen : 0..WaitFor, wl : Locks \cup {0}, wlv : BOOLEAN,
     swp : Requests \cup {NoReq}]

Fresh == [mode |-> "Run", sm |-> "None", sid |-> NoSid, sconf |-> 0, ren |-> NoReq,
          lm |-> [l \in Locks |-> "Wait"], att |-> [l \in Locks |-> NoId],
          app |-> [l \in Locks |-> NoReq], tok |-> [l \in Locks |-> 0],
          gconf |-> [l \in Locks |-> 0], rd |-> [l \in Locks |-> NoRd],
          wsid |-> NoSid, seen |-> 0, wl |-> 0, wlv |-> FALSE, swp |-> NoReq]
CrashedState == [Fresh EXCEPT !.mode = "Crashed", !.lm = [l \in Locks |-> "Done"]]

\* isHeld(): the grant was believed, and the session's confirmed lease runs.
\* (GrantOwnLease: or the grant's own lease, counted from its send.)
IsHeld(c, l) ==
    /\ cs[c].lm[l] = "Hold"
    /\ \/ cs[c].sconf > 0
       \/ Variant = "GrantOwnLease" /\ cs[c].gconf[l] > 0

(***************************************************************************)
(* Fresh ids and the garbage collection of forgotten session documents.    *)
(***************************************************************************)
SlotReqs(s) == {s.ren, s.swp} \cup {s.app[l] : l \in Locks}
AllReqs(c1, n1) == n1 \cup UNION {SlotReqs(c1[x]) : x \in Clients}
SidRefs(l1, c1, n1) ==
    {l1[l].sess : l \in Locks} \cup {c1[x].sid : x \in Clients} \cup {c1[x].wsid : x \in Clients}
      \cup {c1[x].rd[l].sid : x \in Clients, l \in Locks}
      \cup {r.sid : r \in AllReqs(c1, n1)} \cup {r.old : r \in AllReqs(c1, n1)}
IdRefs == {lk[l].owner : l \in Locks} \cup {cs[x].att[l] : x \in Clients, l \in Locks}
            \cup {r.id : r \in AllReqs(cs, net)}
FreeIds(c)  == {n \in 1..MaxId : <<c, n>> \notin IdRefs}
FreshId(c)  == <<c, MinOf(FreeIds(c))>>
FreeSids(c) == {n \in 1..MaxSid : <<c, n>> \notin SidRefs(lk, cs, net)}
FreshSid(c) == <<c, MinOf(FreeSids(c))>>

\* Can request r still match in a later state (l1, s1: the documents now; gids: the
\* owner ids of grant requests that can still land)?  One that cannot is dropped
\* from net (applying it would change nothing); a Create nobody waits for is dropped
\* too: the session document it may still insert is one nobody will ever name.
MayMatch(r, l1, s1, gids) ==
    CASE r.kind = "Create"  -> FALSE
      [] r.kind = "Renew"   -> IF Variant = "RenewExpired" THEN s1[r.sid] # "none"
                                                          ELSE s1[r.sid] = "live"
      [] r.kind = "Expire"  -> r.ver
      [] r.kind = "End"     -> FALSE    \* nobody waits: it can only end an ended session
      [] r.kind = "Acquire" -> TRUE
      [] r.kind = "Take"    -> r.ver
      [] r.kind = "Release" -> r.id = l1[r.l].owner \/ <<r.l, r.id>> \in gids
Keep(n1, l1, s1, c1) ==
    LET gids == {<<q.l, q.id>> : q \in {x \in AllReqs(c1, n1) : IsGrant(x) /\ (x.kind = "Acquire" \/ x.ver)}}
    IN  {q \in n1 : MayMatch(q, l1, s1, gids)}

\* The new state: requests in net that can never match are dropped, and session
\* documents nobody refers to are forgotten.
Commit(l1, s1, c1, n1) ==
    LET n2   == Keep(n1, l1, s1, c1)
        refs == SidRefs(l1, c1, n2)
    IN  /\ lk' = l1
        /\ cs' = c1
        /\ net' = n2
        /\ sd' = [s \in Sids |-> IF s \in refs THEN s1[s] ELSE "none"]

(***************************************************************************)
(* Staleness: a write moved lock lw's version (0: none) and/or session     *)
(* sw's (state, beat) (NoSid: none).  Remembered copies are cleared; a     *)
(* request that can never match again is put in a canonical form.          *)
(***************************************************************************)
StaleEnd(r, lw, sw) ==
    [r EXCEPT !.ver = IF r.kind = "Expire" /\ r.sid = sw THEN FALSE ELSE @,
              !.lv  = IF r.l = lw THEN FALSE ELSE @]
StaleReq(r, lw, sw) ==
    CASE r.kind = "Take" /\ r.l = lw   -> [r EXCEPT !.ver = FALSE, !.old = NoSid, !.left = 0]
      [] r.kind \in {"Expire", "End"} -> StaleEnd(r, lw, sw)
      [] OTHER -> r
StaleClient(s, lw, sw) ==
    IF lw = 0 /\ sw = NoSid THEN s ELSE
    [s EXCEPT !.app  = [l \in Locks |-> StaleReq(s.app[l], lw, sw)],
              !.ren  = StaleReq(@, lw, sw), !.swp = StaleReq(@, lw, sw),
              !.rd   = [l \in Locks |-> IF l = lw THEN [@[l] EXCEPT !.ver = FALSE] ELSE @[l]],
              !.wsid = IF @ = sw THEN NoSid ELSE @,
              !.seen = IF s.wsid = sw THEN 0 ELSE @,
              !.wl   = IF s.wsid = sw THEN 0 ELSE @,
              !.wlv  = IF s.wsid = sw \/ s.wl = lw THEN FALSE ELSE @]

(***************************************************************************)
(* The server: filters and updates.                                        *)
(***************************************************************************)
Matches(r) ==
    CASE r.kind = "Create"  -> TRUE                      \* insertOne (a fresh _id)
      [] r.kind = "Renew"   ->                           \* {_id: sid, state: "live"}
             IF Variant = "RenewExpired" THEN sd[r.sid] # "none" ELSE sd[r.sid] = "live"
      [] r.kind = "Expire"  -> r.ver /\ sd[r.sid] = "live" \* {_id: S, state: "live", beat: b}
      [] r.kind = "End"     ->                           \* {_id: S, state: {$ne: "live"}}, upsert
             Variant = "EndLive" \/ sd[r.sid] # "live"
      [] r.kind = "Acquire" -> lk[r.l].owner = NoId       \* {_id, holds: 0}
      [] r.kind = "Take"    -> r.ver /\ lk[r.l].sess = r.old \* {_id, version: v, session: S}
      [] r.kind = "Release" -> lk[r.l].owner = r.id       \* {_id, owner, version}

\* The client's handling of a reply (m: matched; l1: the lock documents after).
\* A grant is believed only while the session it was written for is the client's
\* session and that session's confirmed lease runs; otherwise it is freed at once.
SessionLost(s) ==
    [s EXCEPT !.sm = "None", !.sid = NoSid, !.sconf = 0,
              !.lm = [l \in Locks |-> IF @[l] = "Hold" THEN "Wait" ELSE @[l]],
              !.att = [l \in Locks |-> IF s.lm[l] = "Hold" THEN NoId ELSE @[l]],
              !.tok = [l \in Locks |-> IF s.lm[l] = "Hold" THEN 0 ELSE @[l]],
              !.gconf = [l \in Locks |-> 0]]
Believes(s, r) ==
    IF Variant = "GrantOwnLease" THEN r.sid = s.sid /\ s.sm = "Live"
    ELSE r.sid = s.sid /\ s.sm = "Live" /\ s.sconf > 0
\* The waiter's next step once its expiry (the compare-and-set on the beat watched) or its
\* end-unless-live upsert answered, if it still waits for the lock with nothing out:
\*  - matched: the session is ended for sure; the take, findOneAndUpdate({_id, version,
\*    owner, holds, session: S} as read, the grant)
\*  - an expiry that missed (the beat moved, or the session was ended meanwhile): the
\*    end-unless-live upsert ("TakeOnRead": a re-read of the session, whose answer, if
\*    not live, authorised the take)
\*  - an end-unless-live that failed (duplicate key: S is live): watch again
TakeFor(s, l, S, lv, a) ==
    [s EXCEPT !.lm[l] = "Acq", !.att[l] = a,
              !.app[l] = Req("Take", l, a, s.sid, S, lv, GrantLeft)]
AfterEnd(s, r, m) ==
    IF ~(s.lm[r.l] = "Wait" /\ s.app[r.l] = NoReq /\ s.sm = "Live") THEN s
    ELSE IF m THEN TakeFor(s, r.l, r.sid, r.lv, r.id)
    ELSE IF r.kind = "Expire" /\ Variant = "TakeOnRead"
         THEN [s EXCEPT !.rd[r.l] = [sid |-> r.sid, ver |-> r.lv]]
    ELSE IF r.kind = "Expire"
         THEN [s EXCEPT !.app[r.l] = EndReq("End", r.l, r.sid, FALSE, r.lv, r.id)]
    ELSE s
Reply(s, r, m, l1) ==
    CASE r.kind = "Create" ->
           IF s.sm = "Creating" /\ s.sid = r.sid
           THEN [s EXCEPT !.sm = "Live", !.sconf = r.left] ELSE s
      [] r.kind = "Renew" ->
           IF ~(s.sm = "Live" /\ s.sid = r.sid) THEN s
           ELSE IF m THEN [s EXCEPT !.sconf = Max2(@, r.left)]  \* from the send
           ELSE SessionLost(s)                                 \* expired: all its locks lost
      [] IsGrant(r) ->
           IF ~(s.lm[r.l] = "Acq" /\ s.att[r.l] = r.id) THEN s
           ELSE IF ~m THEN [s EXCEPT !.lm[r.l] = "Wait", !.att[r.l] = NoId]
           ELSE IF Believes(s, r)
                THEN [s EXCEPT !.lm[r.l] = "Hold", !.tok[r.l] = l1[r.l].token,
                               !.gconf[r.l] = r.left]
                ELSE [s EXCEPT !.lm[r.l] = "Clean",            \* not believed: free it
                               !.app[r.l] = Req("Release", r.l, r.id, NoSid, NoSid, FALSE, 0)]
      [] r.kind = "Release" ->
           IF s.att[r.l] = r.id /\ s.lm[r.l] \in {"Rel", "Clean"}
           THEN [s EXCEPT !.lm[r.l] = IF @ = "Rel" /\ ~Reacquire THEN "Done" ELSE "Wait",
                          !.att[r.l] = NoId]
           ELSE s
      [] r.kind \in {"Expire", "End"} -> AfterEnd(s, r, m)
      [] OTHER -> s

\* The server applies r.  slot: <<"app", l>>, <<"ren">>, <<"swp">> (client c waits
\* for the reply and gets it in the same step) or <<"net">> (nobody waits).
Apply(r, c, slot) ==
    LET m   == Matches(r)
        lw  == IF m /\ r.kind \in {"Acquire", "Take", "Release"} THEN r.l ELSE 0
        sw  == IF m /\ r.kind \in {"Renew", "Expire", "End"} THEN r.sid ELSE NoSid
        l0  == CASE ~m -> lk
                 [] IsGrant(r) -> [lk EXCEPT ![r.l] = [owner |-> r.id, sess |-> r.sid,
                                                       token |-> @.token + 1]]
                 [] r.kind = "Release" -> [lk EXCEPT ![r.l] = [@ EXCEPT !.owner = NoId,
                                                                       !.sess = NoSid]]
                 [] OTHER -> lk
        s1  == CASE ~m -> sd
                 [] r.kind \in {"Create", "Renew"} -> [sd EXCEPT ![r.sid] = "live"]
                 [] r.kind \in {"Expire", "End"} -> [sd EXCEPT ![r.sid] = "expired"]
                 [] OTHER -> sd
        csv == [x \in Clients |-> StaleClient(cs[x], lw, sw)]
        s0  == CASE slot[1] = "app" -> [csv[c] EXCEPT !.app[slot[2]] = NoReq]
                 [] slot[1] = "ren" -> [csv[c] EXCEPT !.ren = NoReq]
                 [] slot[1] = "swp" -> [csv[c] EXCEPT !.swp = NoReq]
                 [] OTHER -> csv[c]
        c0  == IF slot[1] = "net" THEN csv ELSE [csv EXCEPT ![c] = Reply(s0, r, m, l0)]
        grant == m /\ IsGrant(r)
        holders == {x \in Clients : c0[x].tok[r.l] > 0}
        toks == {l0[r.l].token} \cup {c0[x].tok[r.l] : x \in holders}
        Rank(t) == IF grant THEN Cardinality({u \in toks : u <= t}) ELSE t
        l1  == IF grant THEN [l0 EXCEPT ![r.l].token = Rank(@)] ELSE l0
        c1  == IF grant THEN [x \in Clients |-> IF x \in holders
                                                THEN [c0[x] EXCEPT !.tok[r.l] = Rank(@)]
                                                ELSE c0[x]]
               ELSE c0
        n0  == IF slot[1] = "net" THEN net \ {r} ELSE net
        n1  == IF lw = 0 /\ sw = NoSid THEN n0 ELSE {StaleReq(q, lw, sw) : q \in n0}
    IN  /\ Commit(l1, s1, c1, n1)
        /\ lastGranted' = IF grant THEN [lastGranted EXCEPT ![r.l] = l1[r.l].token]
                          ELSE lastGranted
        /\ hist' = [hist EXCEPT
                      !.tokensOk = @ /\ (grant => l0[r.l].token > lastGranted[r.l]),
                      !.takeLive = @ \/ (m /\ r.kind = "Take" /\ sd[r.old] # "expired"),
                      !.revived  = @ \/ (m /\ r.kind = "Renew" /\ sd[r.sid] = "expired")]
        /\ UNCHANGED <<rate, faults>>

ApplyApp(c, l) == cs[c].app[l] # NoReq /\ Apply(cs[c].app[l], c, <<"app", l>>)
ApplyRen(c)    == cs[c].ren # NoReq /\ Apply(cs[c].ren, c, <<"ren">>)
ApplySwp(c)    == cs[c].swp # NoReq /\ Apply(cs[c].swp, c, <<"swp">>)
ApplyLate      == \E r \in net : Apply(r, CHOOSE c \in Clients : TRUE, <<"net">>)

(***************************************************************************)
(* Sessions.                                                               *)
(***************************************************************************)
Wants(s) == \E l \in Locks : s.lm[l] = "Wait"
Started(c) == \/ ~Staged \/ c \in Crashers
              \/ \A l \in Locks : lastGranted[l] > 0
              \/ \A x \in Crashers : cs[x].mode = "Crashed"
Busy(s)  == \E l \in Locks : s.lm[l] \in {"Acq", "Hold"}

\* Java: a manager that must wait for or take a lock and has no session
\* starts one: insertOne({_id: newSid, state: "live", beat: 0, leaseMs}).  Its lease
\* counts from the send.  Also after its session was found expired.
CanCreate(c) ==
    LET s == cs[c] IN
    /\ s.mode = "Run" /\ s.sm = "None" /\ s.ren = NoReq /\ Wants(s) /\ FreeSids(c) # {}
    /\ Started(c)
CreateSession(c) ==
    LET s == cs[c] IN
    /\ CanCreate(c)
    /\ LET sid == FreshSid(c) IN
       Commit(lk, sd, [cs EXCEPT ![c] = [s EXCEPT !.sm = "Creating", !.sid = sid,
                          !.ren = Req("Create", 0, NoId, sid, NoSid, FALSE, Lease)]], net)
    /\ UNCHANGED <<rate, faults, lastGranted, hist>>

\* Java: the renewer, every lease/3 (here: at any time, or never: a pause):
\* updateOne({_id: sid, state: "live"}, {$inc: {beat: 1}}).  "Matched" confirms a lease
\* from the send; "not matched" means expired: every lock of the session is lost.
\* Sweep: with it, find({session: sid}) and, for a lock document whose owner is not
\* an acquisition the manager knows (a grant that landed after its abandon, a release
\* that was lost), updateOne({_id, owner, version}, {owner: null, holds: 0, session:
\* null, $inc: {version: 1}}).  (Read and send in the renewal's step; one at a time.)
Orphans(c) == {l \in Locks : /\ lk[l].owner # NoId /\ lk[l].sess = cs[c].sid
                             /\ lk[l].owner # cs[c].att[l]}
Renew(c) ==
    LET s  == cs[c]
        s1 == [s EXCEPT !.ren = Req("Renew", 0, NoId, s.sid, NoSid, FALSE, Lease)]
        s2 == IF Sweep /\ s.swp = NoReq /\ Orphans(c) # {}
              THEN LET l == MinOf(Orphans(c))
                   IN  [s1 EXCEPT !.swp = Req("Release", l, lk[l].owner, NoSid, NoSid, FALSE, 0)]
              ELSE s1
    IN
    /\ s.mode = "Run" /\ s.sm = "Live" /\ s.ren = NoReq /\ (Busy(s) \/ RenewIdle)
    /\ cs' = [cs EXCEPT ![c] = s2]
    /\ UNCHANGED <<lk, sd, rate, net, faults, lastGranted, hist>>

(***************************************************************************)
(* Waiters.                                                                *)
(***************************************************************************)
\* Java (MongoLockStore.tryAcquire): the upsert first; when it finds the lock held, a read
\* of the lock (an aggregate with $$NOW), then, for a lock held under a session, a read of
\* that session (SessionDocuments.read): two reads, each of which a newly elected primary
\* may answer from an older snapshot (MaxStale).  A grant may be asked for also when the
\* session's confirmed lease is over (a superset: its answer decides whether it is
\* believed).  What the first read leads to, from the document as it is:
\*  - free: the upsert, findOneAndUpdate({_id, holds: 0}, {owner: newId, session: sid,
\*    holds: 1, $inc: {version: 1, token: 1}}, upsert)
\*  - held under session S: the read of S (second step), unless S is live and already
\*    watched (nothing to do)
\* What a stale first read adds: an earlier holder's session, with a version that is
\* not the document's (its take can never match).  Which sessions held the lock earlier
\* is not kept: any other client's session whose document exists may be answered (a
\* superset, with no history to carry; the waiter's own session cannot have held the
\* lock it waits for: a client that released a lock is done with it, or wants it again
\* under Reacquire, when it may be answered too).  A stale read that shows the lock free leads to a compare-and-set on
\* that free state, which cannot match, or to the upsert, which is the fresh acquire
\* above: neither is modelled apart.
Existing(c) == {x \in Sids : sd[x] \in {"live", "expired"} /\ (x[1] # c \/ Reacquire)}
ReadFor(c, l) ==
    LET s == cs[c]
        d == lk[l]
    IN  IF d.owner = NoId THEN "Acquire"
        ELSE IF sd[d.sess] # "live" THEN "Session"
        ELSE IF Variant = "TakeUnexpired" /\ s.wsid = d.sess /\ s.seen >= WaitFor THEN "Session"
        ELSE IF c \in Expirers /\ s.wsid # d.sess THEN "Session"
        ELSE "None"
StaleLeft(k) == faults.stale < MaxStale /\ k \in StaleReads
CanRead(c, l) ==
    LET s == cs[c] IN
    /\ s.mode = "Run" /\ s.sm = "Live" /\ s.lm[l] = "Wait" /\ s.app[l] = NoReq
    /\ s.rd[l] = NoRd
    /\ Started(c)
    /\ Ordered => \A k \in Locks : k < l => s.lm[k] \in {"Hold", "Done"}
    /\ \/ ReadFor(c, l) \in {"Acquire", "Session"}
       \/ StaleLeft("lock") /\ Existing(c) # {}
    /\ ReadFor(c, l) = "Acquire" => FreeIds(c) # {}
Read(c, l) ==
    LET s  == cs[c]
        d  == lk[l]
        k  == ReadFor(c, l)
        a  == FreshId(c)
    IN
    /\ CanRead(c, l)
    /\ \/ /\ k = "Acquire"
          /\ Commit(lk, sd, [cs EXCEPT ![c] = [s EXCEPT !.lm[l] = "Acq", !.att[l] = a,
                     !.app[l] = Req("Acquire", l, a, s.sid, NoSid, FALSE, GrantLeft)]], net)
          /\ UNCHANGED faults
       \/ /\ k = "Session"
          /\ Commit(lk, sd, [cs EXCEPT ![c].rd[l] = [sid |-> d.sess, ver |-> TRUE]], net)
          /\ UNCHANGED faults
       \/ /\ StaleLeft("lock")
          /\ \E x \in Existing(c) :
                Commit(lk, sd, [cs EXCEPT ![c].rd[l] = [sid |-> x, ver |-> FALSE]], net)
          /\ faults' = [faults EXCEPT !.stale = @ + 1]
    /\ UNCHANGED <<rate, lastGranted, hist>>

\* The second step: the read of the session S the lock named, findOne({_id: S}), fresh or
\* (MaxStale) from an older snapshot, which may show any earlier state of S: live with an
\* older beat (a watch that no expiry can end: as a watch of the beat now, which an expiry
\* may end only if nothing renewed S since, so no more than a fresh read allows), or
\* absent (before its insert).  What the waiter does with the answer:
\*  - live: watch (state, beat) from the answer, if it does not watch S already
\*    ("TakeUnexpired": a live S watched unrenewed for WaitFor: the take at once)
\*  - ended, or absent: SessionDocuments.endUnlessLive, findOneAndUpdate({_id: S, state:
\*    {$ne: "live"}}, $setOnInsert ended, upsert): it matches an ended S, leaves an ended
\*    tombstone where S is absent, fails on a live S (duplicate key); matched, the take
\*    follows ("TakeOnRead": the take at once, the read being taken for the truth)
CanReadSession(c, l) ==
    LET s == cs[c] IN
    /\ s.mode = "Run" /\ s.sm = "Live" /\ s.lm[l] = "Wait" /\ s.app[l] = NoReq
    /\ s.rd[l] # NoRd
    /\ sd[s.rd[l].sid] # "live" => FreeIds(c) # {}
ReadSession(c, l) ==
    LET s  == cs[c]
        S  == s.rd[l].sid
        v  == s.rd[l].ver
        a  == FreshId(c)
        s0 == [s EXCEPT !.rd[l] = NoRd]
        \* what the answer shows: "live", "ended" (or absent)
        Act(seen) ==
            IF seen = "live"
            THEN IF Variant = "TakeUnexpired" /\ s.wsid = S /\ s.seen >= WaitFor
                 THEN TakeFor(s0, l, S, v, a)
                 ELSE IF c \in Expirers /\ s.wsid # S
                 THEN [s0 EXCEPT !.wsid = S, !.seen = 0, !.wl = l, !.wlv = v]
                 ELSE s0
            ELSE IF Variant = "TakeOnRead" THEN TakeFor(s0, l, S, v, a)
            ELSE [s0 EXCEPT !.app[l] = EndReq("End", l, S, FALSE, v, a)]
    IN
    /\ CanReadSession(c, l)
    /\ \/ /\ Commit(lk, sd, [cs EXCEPT ![c] = Act(IF sd[S] = "live" THEN "live" ELSE "ended")], net)
          /\ UNCHANGED faults
       \/ /\ StaleLeft("session") /\ FreeIds(c) # {}
          /\ Commit(lk, sd, [cs EXCEPT ![c] = Act("absent")], net)
          /\ faults' = [faults EXCEPT !.stale = @ + 1]
    /\ UNCHANGED <<rate, lastGranted, hist>>

\* Java: the watched session's (state, beat) stayed unchanged for its
\* leaseMs x (1 + margin) on the waiter's monotonic clock: updateOne({_id: S,
\* state: "live", beat: b}, {$set: {state: "expired"}}), for the lock whose read started
\* the watch; the take (matched) or the end-unless-live upsert (missed) follows, see
\* AfterEnd.  (Not in TakeUnexpired.)
ExpireSlots(c) == {l \in Locks : /\ cs[c].lm[l] = "Wait" /\ cs[c].app[l] = NoReq
                                 /\ cs[c].rd[l] = NoRd /\ l = cs[c].wl}
CanExpire(c) ==
    LET s == cs[c] IN
    /\ Variant # "TakeUnexpired"
    /\ s.mode = "Run" /\ s.sm = "Live" /\ ExpireSlots(c) # {} /\ s.wsid # NoSid
    /\ s.seen >= WaitFor
    /\ FreeIds(c) # {}
Expire(c) ==
    LET s == cs[c] IN
    /\ CanExpire(c)
    /\ Commit(lk, sd, [cs EXCEPT ![c].app[s.wl] =
                  EndReq("Expire", s.wl, s.wsid, TRUE, s.wlv, FreshId(c))], net)
    /\ UNCHANGED <<rate, faults, lastGranted, hist>>

(***************************************************************************)
(* Holders.  No fairness: a holder may keep a lock (and pause) for ever.   *)
(***************************************************************************)
\* Java: release: updateOne({_id, owner, version}, {owner: null, holds: 0,
\* session: null, $inc: {version: 1}}), sent after the client stopped believing.
Release(c, l) ==
    LET s == cs[c] IN
    /\ c \in Releasers /\ s.mode = "Run" /\ s.lm[l] = "Hold" /\ s.app[l] = NoReq
    /\ cs' = [cs EXCEPT ![c] = [s EXCEPT !.lm[l] = "Rel", !.tok[l] = 0, !.gconf[l] = 0,
                 !.app[l] = Req("Release", l, s.att[l], NoSid, NoSid, FALSE, 0)]]
    /\ UNCHANGED <<lk, sd, rate, net, faults, lastGranted, hist>>

(***************************************************************************)
(* Faults.                                                                 *)
(***************************************************************************)
\* A timeout / error with unknown outcome: the client gives up on the request, which
\* stays in flight (applied later, or never; its reply, if any, is lost).  Reactions:
\*   Acquire / Take unknown -> abandon: updateOne({_id, owner: thatId}, free) (the
\*                             same filter and update as a release, mode "Clean")
\*   Release unknown        -> released as far as the client knows (mode as if it
\*                             had landed); the release may never land
\*   Create unknown         -> no session; the next one gets a new sid
\*   Renew unknown          -> nothing confirmed
\*   Expire unknown         -> nothing (a later read shows the session's state)
GiveUp(s, r) ==
    CASE IsGrant(r) /\ s.lm[r.l] = "Acq" /\ s.att[r.l] = r.id ->
           [s EXCEPT !.lm[r.l] = "Clean",
                     !.app[r.l] = Req("Release", r.l, r.id, NoSid, NoSid, FALSE, 0)]
      [] r.kind = "Release" /\ s.att[r.l] = r.id ->
           [s EXCEPT !.lm[r.l] = IF @ = "Rel" /\ ~Reacquire THEN "Done" ELSE "Wait",
                     !.att[r.l] = NoId,
                     !.app[r.l] = NoReq]
      [] r.kind = "Create" /\ s.sm = "Creating" ->
           [s EXCEPT !.sm = "None", !.sid = NoSid, !.ren = NoReq]
      [] r.kind \in {"Renew", "Create"} -> [s EXCEPT !.ren = NoReq]
      [] OTHER -> s
LoseApp(c, l) ==
    LET r == cs[c].app[l] IN
    /\ faults.lost < MaxLost /\ r # NoReq
    /\ Commit(lk, sd, [cs EXCEPT ![c] = GiveUp([@ EXCEPT !.app[l] = NoReq], r)], net \cup {r})
    /\ faults' = [faults EXCEPT !.lost = @ + 1]
    /\ UNCHANGED <<rate, lastGranted, hist>>
LoseRen(c) ==
    LET r == cs[c].ren IN
    /\ faults.lost < MaxLost /\ r # NoReq
    /\ Commit(lk, sd, [cs EXCEPT ![c] = GiveUp(@, r)], net \cup {r})
    /\ faults' = [faults EXCEPT !.lost = @ + 1]
    /\ UNCHANGED <<rate, lastGranted, hist>>
LoseSwp(c) ==
    /\ faults.lost < MaxLost /\ cs[c].swp # NoReq
    /\ Commit(lk, sd, [cs EXCEPT ![c].swp = NoReq], net \cup {cs[c].swp})
    /\ faults' = [faults EXCEPT !.lost = @ + 1]
    /\ UNCHANGED <<rate, lastGranted, hist>>

\* The process dies (kill -9); its requests in flight may still land; its session
\* stays live until a waiter expires it.
Crash(c) ==
    /\ c \in Crashers /\ faults.crash < MaxCrashes /\ cs[c].mode = "Run"
    /\ Commit(lk, sd, [cs EXCEPT ![c] = CrashedState], net \cup (SlotReqs(cs[c]) \ {NoReq}))
    /\ faults' = [faults EXCEPT !.crash = @ + 1]
    /\ UNCHANGED <<rate, lastGranted, hist>>

(***************************************************************************)
(* Time: one real tick; client c's monotonic clock advances rate[c] units. *)
(***************************************************************************)
AdvReq(r, d) == IF r = NoReq THEN r ELSE [r EXCEPT !.left = Sub0(@, d)]
Advance(s, d) ==
    IF s.mode = "Crashed" THEN s
    ELSE [s EXCEPT !.sconf = Sub0(@, d),
                   !.seen  = IF s.wsid # NoSid THEN Min2(@ + d, WaitFor) ELSE 0,
                   !.ren   = AdvReq(@, d), !.swp = AdvReq(@, d),
                   !.app   = [l \in Locks |-> AdvReq(@[l], d)],
                   !.gconf = [l \in Locks |-> Sub0(@[l], d)]]
Tick ==
    /\ cs' = [c \in Clients |-> Advance(cs[c], rate[c])]
    /\ UNCHANGED <<lk, sd, rate, net, faults, lastGranted, hist>>

(***************************************************************************)
(* The specification.                                                      *)
(***************************************************************************)
Init ==
    /\ lk = [l \in Locks |-> [owner |-> NoId, sess |-> NoSid, token |-> 0]]
    /\ sd = [s \in Sids |-> "none"]
    /\ rate \in IF WorstRates
                THEN {[c \in Clients |-> IF c \in Expirers THEN MaxOf(Rates) ELSE MinOf(Rates)]}
                ELSE [Clients -> Rates]
    /\ cs = [c \in Clients |-> Fresh]
    /\ net = {}
    /\ faults = [crash |-> 0, lost |-> 0, stale |-> 0]
    /\ lastGranted = [l \in Locks |-> 0]
    /\ hist = [tokensOk |-> TRUE, takeLive |-> FALSE, revived |-> FALSE]

Next ==
    \/ Tick \/ ApplyLate
    \/ \E c \in Clients :
          \/ CreateSession(c) \/ Renew(c) \/ Expire(c) \/ ApplyRen(c) \/ ApplySwp(c)
          \/ LoseRen(c) \/ LoseSwp(c) \/ Crash(c)
          \/ \E l \in Locks : Read(c, l) \/ ReadSession(c, l) \/ Release(c, l) \/ ApplyApp(c, l)
                              \/ LoseApp(c, l)

\* Time does not stop; the server applies what live clients wait for; waiters keep
\* creating sessions, reading, expiring.  Holders and renewers get no fairness (a
\* client may pause for ever, or keep a lock for ever).
\* The server applies every request a live client waits for: weak fairness per request
\* slot (with one fairness for the server as a whole, a client's renewals applied for
\* ever would let its acquire wait for ever).  Written as in MongoLock.tla, with a state
\* predicate equal to ENABLED and a step predicate equal to the action's steps (TLC
\* evaluates WF_vars(ApplyApp(c, l)) by computing the action on every transition,
\* which made the liveness run minutes long): a slot's request is pending; a step
\* replaces it (ApplyApp: by none or a follow-up of another kind; ApplyRen, ApplySwp:
\* by none) without a fault (giving up or crashing counts one).
\* The waiters as a whole keep creating sessions, reading and expiring.
AppPending(c, l) == cs[c].app[l] # NoReq
AppStep(c, l)    == /\ faults' = faults /\ cs[c].app[l] # NoReq
                    /\ cs'[c].app[l].kind # cs[c].app[l].kind
RenStep(c)       == faults' = faults /\ cs[c].ren # NoReq /\ cs'[c].ren = NoReq
SwpStep(c)       == faults' = faults /\ cs[c].swp # NoReq /\ cs'[c].swp = NoReq
WaiterWork == \E c \in Clients : CreateSession(c) \/ Expire(c)
                                  \/ \E l \in Locks : Read(c, l) \/ ReadSession(c, l)
\* WF_vars(WaiterWork) written as its state predicate and its step predicate, as in
\* MongoLock.tla: TLC evaluated ENABLED WaiterWork in every state and WaiterWork on
\* every transition (each a Commit), which made the liveness run four times slower.
\* WaiterCanWork is the actions' own guards; a step of WaiterWork is the one thing
\* each of its actions changes that no other action does: a session created (sm
\* "None" -> "Creating"), an Expire sent, a grant asked for (lm "Wait" -> "Acq"), a
\* new watch (wsid set to a session; other actions only clear it).  The equalities
\* are EnabledAsWritten and StepsAsWritten below: check them by hand after changing
\* an action (see README).
WaiterCanWork ==
    \E c \in Clients : CanCreate(c) \/ CanExpire(c)
                       \/ \E l \in Locks : CanRead(c, l) \/ CanReadSession(c, l)
\* (Since the read has two steps: the first read done, rd set; the second done, rd
\* cleared, whatever it led to.  A grant asked for by a read, with nothing out before: the
\* take that follows an expiry or an end-unless-live is the server's step.  Only
\* "TakeOnRead", a broken variant checked for safety alone, sets rd in another step: the
\* server's answer to a failed expiry.)
WaiterStep ==
    \E c \in Clients :
        \/ cs[c].sm = "None" /\ cs'[c].sm = "Creating"
        \/ cs'[c].wsid \notin {NoSid, cs[c].wsid}
        \/ \E l \in Locks :
              \/ cs[c].lm[l] = "Wait" /\ cs'[c].lm[l] = "Acq" /\ cs[c].app[l] = NoReq
              \/ cs[c].app[l] = NoReq /\ cs'[c].app[l].kind = "Expire"
              \/ cs[c].rd[l] = NoRd /\ cs'[c].rd[l] # NoRd
              \/ cs[c].rd[l] # NoRd /\ cs'[c].rd[l] = NoRd /\ cs'[c].mode = "Run"
Fairness ==
    /\ WF_vars(Tick)
    /\ <>[]WaiterCanWork => []<><<WaiterStep>>_vars         \* WF_vars(WaiterWork)
    /\ \A c \in Clients :
          /\ <>[](cs[c].ren # NoReq) => []<><<RenStep(c)>>_vars    \* WF_vars(ApplyRen(c))
          /\ <>[](cs[c].swp # NoReq) => []<><<SwpStep(c)>>_vars    \* WF_vars(ApplySwp(c))
          /\ \A l \in Locks :
                <>[]AppPending(c, l) => []<><<AppStep(c, l)>>_vars  \* WF_vars(ApplyApp(c, l))

Spec == Init /\ [][Next]_vars /\ Fairness

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
TypeOK ==
    /\ lk \in [Locks -> [owner : Ids \cup {NoId}, sess : Sids \cup {NoSid}, token : 0..MaxTok]]
    /\ \A l \in Locks : (lk[l].owner = NoId) <=> (lk[l].sess = NoSid)
    /\ sd \in [Sids -> {"none", "live", "expired"}]
    /\ \A l \in Locks : lk[l].owner # NoId => sd[lk[l].sess] # "none"
    /\ cs \in [Clients -> ClientState]
    /\ net \subseteq Requests
    /\ faults \in [crash : 0..MaxCrashes, lost : 0..MaxLost, stale : 0..MaxStale]
    /\ lastGranted = [l \in Locks |-> lk[l].token]

\* Per lock, at any instant at most one client's isHeld() is true.
AtMostOneBeliever ==
    \A l \in Locks : \A c, d \in Clients : c # d => ~(IsHeld(c, l) /\ IsHeld(d, l))

\* Per lock, every grant's token is above all earlier ones; no holder has a token
\* beyond the last.
TokensGrow ==
    /\ hist.tokensOk
    /\ \A c \in Clients, l \in Locks : cs[c].lm[l] = "Hold" => cs[c].tok[l] <= lastGranted[l]

\* Whoever believes holds the newest token.
BelieverHasNewestToken ==
    \A c \in Clients, l \in Locks : IsHeld(c, l) => cs[c].tok[l] = lk[l].token

\* Whoever believes is the document's owner, under its own session, which is live in
\* the database (so no waiter can take the lock at that instant).
BelieverSessionLive ==
    \A c \in Clients, l \in Locks :
        IsHeld(c, l) => /\ lk[l].owner = cs[c].att[l] /\ lk[l].sess = cs[c].sid
                        /\ sd[cs[c].sid] = "live"

\* A take landed only on a lock whose session was expired, and no renewal ever
\* matched an expired session (an expired session stays expired).
OnlyExpiredTaken == ~hist.takeLive
ExpiredStaysExpired == ~hist.revived

\* Fairness as written is WF_vars(WaiterWork): an invariant and a property to check
\* by hand (not in the build: they evaluate what Fairness avoids).
EnabledAsWritten == WaiterCanWork = ENABLED <<WaiterWork>>_vars
StepsAsWritten == [][WaiterWork <=> WaiterStep]_vars

HeldByLive(l) ==
    /\ lk[l].owner # NoId
    /\ \E c \in Clients : cs[c].mode = "Run" /\ cs[c].att[l] = lk[l].owner
Waiting(l) == \E c \in Clients : cs[c].mode = "Run" /\ cs[c].lm[l] \in {"Wait", "Acq", "Clean"}

\* A lock that no live client holds (free, or held by a crashed client, or by an
\* acquisition its client no longer knows) while a live client waits for it is
\* eventually granted to a live client (or nobody live waits any more).
EventuallyGranted ==
    \A l \in Locks : (Waiting(l) /\ ~HeldByLive(l)) ~> (HeldByLive(l) \/ ~Waiting(l))
=============================================================================
