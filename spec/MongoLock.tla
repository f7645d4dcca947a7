------------------------------ MODULE MongoLock ------------------------------
(***************************************************************************)
(* The clock-free lease protocol of mongolock: one lock document, clients  *)
(* with drifting monotonic clocks, a server whose wall clock can step, and *)
(* requests that may be applied late, applied with a lost reply, or never. *)
(* With the fairness rules of docs/fairness.md: the queue of waiting       *)
(* managers in the document (join, leave, head-only acquire of a free      *)
(* lock, stale-head takeover) and the hand-over of a released lock to the  *)
(* next acquisition of the same manager in one compare-and-set.  And the   *)
(* release within a minimum hold (holdAtLeast, ReleaseKeeping): the lock   *)
(* stays taken under a new lease id that nobody renews, until a waiter     *)
(* takes it over, after a watch or when the server's clock says so.        *)
(*                                                                         *)
(* Java / MongoDB mapping: every action below says which call it stands    *)
(* for.  "Filter" is the query part of a findOneAndUpdate / updateOne on   *)
(* {_id: name}; every write is atomic on the document.                     *)
(*                                                                         *)
(* Finite by construction, no state constraint (which would distort the    *)
(* liveness check):                                                        *)
(*  - clocks are kept as capped timers (elapsed or remaining local units), *)
(*    never as absolute readings;                                          *)
(*  - version and beat only grow and are only ever compared for equality  *)
(*    with the document's current value, so a remembered version (or beat) *)
(*    is kept as one bit: "still equal to the document's".  Every write    *)
(*    that increments version clears all remembered version bits;          *)
(*  - owner ids are only compared for equality, so client c's "new" id is  *)
(*    <<c, n>> with the smallest n not referenced anywhere in the state    *)
(*    (document, clients, requests in flight): the same as a fresh UUID;   *)
(*  - tokens are only compared with < and =, so after every grant each     *)
(*    token still referenced is replaced by its rank among them (an order- *)
(*    preserving renumbering: 1 = the oldest token a holder still has);    *)
(*  - the queue holds client numbers (a client is one manager) and only    *)
(*    ever holds each once ($addToSet), so it is a sequence of distinct    *)
(*    clients.                                                             *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets, Sequences

CONSTANTS
    Clients,     \* the client processes, numbered 1..N
    R,           \* nominal local clock units per real tick (the wall clock's rate)
    Rates,       \* the rates a client clock may run at, in units per real tick,
                 \* e.g. {R-1, R+1}: drift rho = 1/R; fixed per client for a run
    Lease,       \* the lease, in local units
    WaitFor,     \* Lease * (1 + Margin): how long a waiter watches an unchanged key
                 \* (Java: lease * 1.03); needs WaitFor >= Lease * (R+1)/(R-1)
    FastPath,    \* TRUE: model the wall-clock fast path and the wall clock steps
    FastMargin,  \* fast path: take over when wallNow - renewedAt > FastLease + FastMargin
    FastLease,   \* the lease term of that threshold: Lease as specified (then the
                 \* assumption needs MaxForward <= FastMargin - Lease*rho/(1-rho)), or
                 \* WaitFor (then MaxForward <= FastMargin suffices)
    MaxForward,  \* total forward wall-clock steps between writing renewedAt and a
                 \* read (the fast path's assumption: < FastMargin)
    MaxCrashes,  \* bound on crashes
    MaxLost,     \* bound on requests given up (lost reply, stalled or dropped request)
    MaxHolds,    \* bound on re-entrant holds
    MaxHandOvers,\* bound on hand-overs (0: no hand-over)
    Reacquire,   \* TRUE: a client that released wants the lock again; FALSE: it is done
    Variant,     \* "Correct" | "IgnoreBeat" (takeover CAS on version only)
                 \* | "NoMargin" (waiter waits exactly one Lease)
                 \* | "HandOverNoOwner" (hand-over CAS filtered on _id only)
                 \* | "HandOverKeepsKey" (hand-over increments neither version
                 \*   nor beat: the key other managers' waiters watch stays)
                 \* | "AbandonFirst" (after an unknown hand-over, the abandon of
                 \*   the new owner id before the release of the old acquisition)
                 \* | "KeepBelieving" (a keeping release that does not end the
                 \*   client's belief: isHeld() stays true until confirmedUntil)
                 \* | "KeepKeepsKey" (a keeping release that increments neither
                 \*   version nor beat: old watches run on across it)
    MaxId,       \* owner ids per client (recycled when unreferenced)
    WithQueue,   \* TRUE: waiters join the document's queue; a free lock with a
                 \* non-empty queue may be acquired only by its head
    WithLeave,   \* TRUE: a waiter may stop waiting (and leave the queue)
    HandOverLost,\* TRUE: every hand-over's request is given up at once (reply lost;
                 \* applied now, later or never), using up one of MaxLost
    Keepers      \* the clients that may release their last hold within a minimum
                 \* hold (ReleaseKeeping; {}: none); a waiter's read may take such a
                 \* kept lock at once (the server's clock says its minimum hold is over)

ASSUME /\ R >= 2 /\ Lease >= 1 /\ WaitFor >= Lease
       /\ FastPath \in BOOLEAN /\ MaxForward <= FastMargin /\ FastLease >= Lease
       /\ MaxHolds >= 1 /\ MaxHandOvers \in Nat /\ MaxCrashes \in Nat /\ MaxLost \in Nat
       /\ Reacquire \in BOOLEAN
       /\ Clients \subseteq Nat \ {0}
       /\ Variant \in {"Correct", "IgnoreBeat", "NoMargin", "HandOverNoOwner",
                       "HandOverKeepsKey", "AbandonFirst", "KeepBelieving", "KeepKeepsKey"}
       /\ WithQueue \in BOOLEAN /\ WithLeave \in BOOLEAN /\ HandOverLost \in BOOLEAN
       /\ Keepers \subseteq Clients

VARIABLES
    doc,         \* the lock document
    rate,        \* rate[c]: units client c's monotonic clock advances per real tick
    wall,        \* [age |-> wallNow - renewedAt (capped), fwd |-> forward steps since]
    cs,          \* per-client state, see ClientState
    net,         \* requests still in flight whose client no longer waits for them
    faults,      \* [crash, lost]: faults so far (bounded: eventually no more faults)
    handed,      \* hand-overs so far (bounded by MaxHandOvers)
    lastGranted, \* history: the token of the last grant
    tokensOk,    \* history: every grant's token exceeded lastGranted
    lateWrite    \* history: some non-grant write changed the document although it
                 \* did not carry the document's current owner id and lease id, or a
                 \* hand-over landed although it did not carry them as its old ones

vars == <<doc, rate, wall, cs, net, faults, handed, lastGranted, tokensOk, lateWrite>>

Ids  == Clients \X (1..MaxId)
NoId == <<0, 0>>          \* owner: null
\* The lease id a keeping release writes.  Only ever compared for equality with the
\* lease ids requests carry (renew, sync), and no request carries it (nobody renews a
\* kept lock), so one value not in Ids is as good as a fresh id per keeping release.
KeptLease == <<0, 1>>
WallCap == FastLease + FastMargin + 1
Threshold == IF Variant = "NoMargin" THEN Lease ELSE WaitFor

Min(S) == CHOOSE x \in S : \A y \in S : x <= y
Max2(a, b) == IF a >= b THEN a ELSE b
Min2(a, b) == IF a <= b THEN a ELSE b
Sub0(a, b) == IF a >= b THEN a - b ELSE 0

(***************************************************************************)
(* Requests.  One record shape for all kinds (unused: FALSE / 0).         *)
(*   id    the owner id of the attempt (the model uses it as leaseId too:  *)
(*         an attempt is granted at most once, so it names one acquisition)*)
(*   ver, beat  the filter's expected version / beat, as a bit: TRUE      *)
(*         while it still equals the document's (FALSE when unused)        *)
(*   holds the holds value a Sync sets                                     *)
(*   left  Lease minus the local time elapsed since the request was SENT:  *)
(*         what a success reply confirms (confirmedUntil - now)            *)
(*   old   HandOver: the releasing acquisition's owner id (the filter's);  *)
(*         id is then the new acquisition's                                *)
(*   pull  Takeover: the stale queue head the waiter saw (0: none), pulled *)
(*         from the queue with the grantee                                 *)
(***************************************************************************)
Req(k, i, v, b, h, l) == [kind |-> k, id |-> i, ver |-> v, beat |-> b, holds |-> h, left |-> l,
                          old |-> NoId, pull |-> 0]
NoReq == Req("none", NoId, FALSE, FALSE, 0, 0)
TakeoverReq(i, v, b, p) == [Req("Takeover", i, v, b, 0, Lease) EXCEPT !.pull = p]
HandOverReq(i, o, v)    == [Req("HandOver", i, v, FALSE, 0, Lease) EXCEPT !.old = o]
Kinds == {"Acquire", "Takeover", "HandOver", "Abandon", "Renew", "Reenter", "Release",
          "ReleaseLast", "ReleaseKeeping", "Sync"}
Requests == [kind : Kinds, id : Ids, ver : BOOLEAN, beat : BOOLEAN,
             holds : 0..MaxHolds, left : 0..Lease, old : Ids \cup {NoId},
             pull : Clients \cup {0}]

IsGrant(r)        == r.kind \in {"Acquire", "Takeover", "HandOver"}
SetsRenewedAt(r)  == r.kind \in {"Acquire", "Takeover", "HandOver", "Renew", "Reenter",
                                 "ReleaseKeeping"}
ChangesVersion(r) == /\ r.kind # "Renew"
                     /\ ~(r.kind = "HandOver" /\ Variant = "HandOverKeepsKey")
                     /\ ~(r.kind = "ReleaseKeeping" /\ Variant = "KeepKeepsKey")
ChangesBeat(r)    == \/ r.kind \in {"Acquire", "Takeover", "Renew"}
                     \/ r.kind = "HandOver" /\ Variant # "HandOverKeepsKey"
                     \/ r.kind = "ReleaseKeeping" /\ Variant # "KeepKeepsKey"
\* Filters on {owner, version: v}.
VersionKinds == {"Reenter", "Release", "ReleaseLast", "ReleaseKeeping"}

(***************************************************************************)
(* The queue of waiting managers (client numbers, in arrival order).       *)
(***************************************************************************)
InQueue(q, c) == \E i \in DOMAIN q : q[i] = c
QHead(q)      == IF q = <<>> THEN 0 ELSE Head(q)
Without(q, S) == SelectSeq(q, LAMBDA x : x \notin S)     \* $pullAll
\* The head a waiter watches: that of a free lock (0: none, or the lock is held).
SeenHead(d)   == IF d.holds = 0 THEN QHead(d.queue) ELSE 0

(***************************************************************************)
(* Client state.                                                           *)
(*  mode  "Wait" (wants the lock), "Acq" (a grant or hand-over request    *)
(*        out), "Abandon" (an Abandon out), "Hold", "Keeping" (released    *)
(*        within a minimum hold: the keeping release, or its resync, out;  *)
(*        cnt = 1 while a miss is still followed by resync and retry),     *)
(*        "Done" (released and wants no more, when Reacquire = FALSE; or   *)
(*        stopped waiting), "Crashed"                                      *)
(*  att   owner id of the current attempt (NoId: none)                     *)
(*  kset, kver, kbeat, khead, seen: the waiter has a key; its version /    *)
(*        beat are still the document's; the queue head it saw on a free  *)
(*        lock (0: none or held); local time since the reply that showed   *)
(*        it (capped at WaitFor)                                           *)
(*  cnt   local hold count; ver: the version this holder last wrote is     *)
(*        still the document's                                            *)
(*  conf  confirmedUntil - localNow (0: not confirmed)                     *)
(*  tok   the fencing token of the grant                                   *)
(*  app   the request the application thread waits for (acquire, hand-    *)
(*        over, abandon, re-enter, release, sync); ren: the renewer's      *)
(*        request; nxt: a request to send when app's reply comes (after an *)
(*        unknown hand-over: the abandon of the new owner id, sent after   *)
(*        the release of the old acquisition)                              *)
(***************************************************************************)
Idle == [mode |-> "Wait", att |-> NoId, kset |-> FALSE, kver |-> FALSE, kbeat |-> FALSE,
         khead |-> 0, seen |-> 0, cnt |-> 0, ver |-> FALSE, conf |-> 0, tok |-> 0,
         app |-> NoReq, ren |-> NoReq, nxt |-> NoReq]

ClientState == [mode : {"Wait", "Acq", "Abandon", "Hold", "Keeping", "Done", "Crashed"},
                att : Ids \cup {NoId},
                kset : BOOLEAN, kver : BOOLEAN, kbeat : BOOLEAN, khead : Clients \cup {0},
                seen : 0..WaitFor, cnt : 0..MaxHolds, ver : BOOLEAN, conf : 0..Lease,
                tok : 0..(Cardinality(Clients) + 1),
                app : Requests \cup {NoReq}, ren : Requests \cup {NoReq},
                nxt : Requests \cup {NoReq}]

\* isHeld(): in state holding and local clock < confirmedUntil.  (Variant
\* "KeepBelieving": also after a keeping release, until confirmedUntil.)
IsHeld(c) == /\ \/ cs[c].mode = "Hold"
                \/ cs[c].mode \in {"Keeping", "Done", "Wait"} /\ Variant = "KeepBelieving"
             /\ cs[c].conf > 0

(***************************************************************************)
(* Fresh values (see the header).                                          *)
(***************************************************************************)
AllReqs == net \cup {cs[c].app : c \in Clients} \cup {cs[c].ren : c \in Clients}
                \cup {cs[c].nxt : c \in Clients}
IdRefs == {doc.owner, doc.lease} \cup {cs[c].att : c \in Clients}
            \cup {r.id : r \in AllReqs} \cup {r.old : r \in AllReqs}
FreshId(c) == <<c, CHOOSE n \in 1..MaxId : <<c, n>> \notin IdRefs>>

\* Can a (version, beat) filter still match?  Versions and beats never repeat, so
\* once a remembered copy is stale, a filter on it never matches again.
KeyAlive(ver, beat) == ver /\ (beat \/ Variant = "IgnoreBeat")

\* A request that can never match again, in a canonical form (what only a success
\* would use is cleared).  Filters on owner never match again once the document's
\* owner has moved on from that id: an id is not reused while anything refers to it,
\* and an id that was granted has no grant request left in flight.
Dead(r) == [r EXCEPT !.ver = FALSE, !.beat = FALSE, !.holds = 0, !.left = 0, !.pull = 0,
                     !.old = NoId]

\* The hand-over's filter {owner: old, version: v} (the broken variant: {_id} only).
HandOverMatches(r, d) == Variant = "HandOverNoOwner" \/ (d.owner = r.old /\ r.ver)

\* A write incremented version (v) and/or beat (b) and/or moved the owner away from
\* id gone and/or (a keeping release) the lease id away from id lgone: every
\* remembered copy is stale.  To keep the state space small, what can
\* no longer matter is reset: a waiter's key that can never match again is dropped
\* (its next read restarts the observation, as it would; only a takeover CAS doomed
\* to fail is not sent), and so are the fields of a request that can never match.
StaleReq(r, v, b, gone, lgone) ==
    IF r = NoReq THEN r
    ELSE LET r1 == [r EXCEPT !.ver = @ /\ ~v, !.beat = @ /\ ~b]
         IN  IF   (r1.kind = "Takeover" /\ ~KeyAlive(r1.ver, r1.beat))
                \/ (r1.kind = "HandOver" /\ ~r1.ver /\ Variant # "HandOverNoOwner")
                \/ (r1.kind \in VersionKinds /\ ~r1.ver)
                \/ (~IsGrant(r1) /\ r1.id = gone)
                \/ (r1.kind \in {"Renew", "Sync"} /\ r1.id = lgone)
             THEN Dead(r1)
             ELSE r1
\* A holder's new request, in canonical form if it can never match (the holder does
\* not know that; it learns it from the reply).
HolderKinds == VersionKinds \cup {"Renew", "Sync"}
Send(r, d) ==
    IF \/ r.kind \in HolderKinds
          /\ \/ r.id # d.owner
             \/ r.kind \in VersionKinds /\ ~r.ver
             \/ r.kind \in {"Renew", "Sync"} /\ r.id # d.lease
       \/ r.kind = "HandOver" /\ ~HandOverMatches(r, d)
    THEN Dead(r) ELSE r

\* Can request r (in its current form) still match in some later state (d: the
\* document now)?  A filter on owner (and lease id) matches again only while that id is
\* the owner (and lease id) or a grant for it is in flight (gids: the ids of the grant
\* requests that can still match).
MayMatch(r, d, gids) ==
    CASE r.kind = "Acquire"  -> TRUE
      [] r.kind = "Takeover" -> KeyAlive(r.ver, r.beat)
      [] r.kind = "HandOver" -> Variant = "HandOverNoOwner" \/ r.ver
      [] r.kind \in VersionKinds -> r.ver
      [] r.kind = "Abandon" -> r.id = d.owner \/ r.id \in gids
      [] OTHER -> (r.id = d.owner /\ r.id = d.lease) \/ r.id \in gids  \* Renew, Sync
LiveGrantIds(reqs) == {q.id : q \in {x \in reqs : IsGrant(x) /\ MayMatch(x, doc, {})}}
SlotReqs(s) == {s.app, s.ren, s.nxt}
\* The requests in net (nobody waits for them) that can still match; one that cannot
\* is dropped: applying it later would change nothing but net (a step no fairness
\* forces), and its ids become free for reuse.
Keep(reqs, clients, d) ==
    LET gids == LiveGrantIds(reqs \cup UNION {SlotReqs(clients[x]) : x \in Clients})
    IN  {q \in reqs : MayMatch(q, d, gids)}

StaleClient(s, v, b, gone, lgone) ==
    LET s1 == [s EXCEPT !.kver = @ /\ ~v, !.kbeat = @ /\ ~b, !.ver = @ /\ ~v,
                        !.app = StaleReq(@, v, b, gone, lgone),
                        !.ren = StaleReq(@, v, b, gone, lgone),
                        !.nxt = StaleReq(@, v, b, gone, lgone)]
    IN  IF s1.kset /\ ~KeyAlive(s1.kver, s1.kbeat)
        THEN [s1 EXCEPT !.kset = FALSE, !.kver = FALSE, !.kbeat = FALSE, !.khead = 0,
                        !.seen = 0]
        ELSE s1

(***************************************************************************)
(* The server: filters and updates.                                        *)
(***************************************************************************)
Matches(r) ==
    CASE r.kind = "Acquire"  -> /\ doc.holds = 0                   \* {holds: 0, $or: [
                                /\ QHead(doc.queue) \in {0, r.id[1]} \* no queue.0, queue.0: me]}
      [] r.kind = "Takeover" -> /\ r.ver                           \* {version: v, beat: b}
                                /\ (Variant = "IgnoreBeat" \/ r.beat)
      [] r.kind = "HandOver" -> HandOverMatches(r, doc)            \* {owner: old, version: v}
      [] r.kind = "Abandon"  -> doc.owner = r.id                   \* {owner}
      [] r.kind = "Renew"    -> doc.owner = r.id /\ doc.lease = r.id \* {owner, leaseId}
      [] r.kind = "Sync"     -> doc.owner = r.id /\ doc.lease = r.id \* {owner, leaseId}
      [] r.kind \in VersionKinds ->
                                doc.owner = r.id /\ r.ver         \* {owner, version: v}
\* (A kept document, kept: releasedAt set, has lease id KeptLease: Renew and Sync of
\* its owner miss it; the owner's version-checked writes miss it as the keeping
\* release moved version; only a grant (a takeover) or an Abandon of its owner id,
\* which nobody sends for an id that was held, can match it.)

\* The document after r matched (token not yet normalised; version and beat are
\* incremented by invalidating every remembered copy, see Apply).  A free document's
\* leaseId is cleared with its owner: every filter that tests leaseId tests owner too.
\* kept (releasedAt set) is cleared by every grant ($unset) and, as a canonical form,
\* when the lock is freed (Java leaves releasedAt on a free document, where no one
\* reads it: only holds > 0 counts, and only a grant, which unsets it, makes holds > 0).
Updated(r) ==
    CASE IsGrant(r) ->    \* owner, leaseId := new; holds := 1; version, token, beat + 1;
                          \* $pullAll queue [me] (a takeover: [me, the stale head]);
                          \* $unset releasedAt
             [doc EXCEPT !.owner = r.id, !.lease = r.id, !.holds = 1, !.token = @ + 1,
                         !.queue = Without(@, {r.id[1], r.pull}), !.kept = FALSE]
      [] r.kind \in {"Abandon", "ReleaseLast"} ->  \* owner := null, holds := 0, version + 1
             [doc EXCEPT !.owner = NoId, !.lease = NoId, !.holds = 0, !.kept = FALSE]
      [] r.kind = "ReleaseKeeping" ->  \* holds := 1, leaseId := new, leaseMs := time left,
                                       \* version + 1, beat + 1, renewedAt, releasedAt := now
             [doc EXCEPT !.holds = 1, !.lease = KeptLease, !.kept = TRUE]
      [] r.kind = "Renew"   -> doc                                         \* beat + 1
      [] r.kind = "Reenter" -> [doc EXCEPT !.holds = @ + 1]                \* version + 1
      [] r.kind = "Release" -> [doc EXCEPT !.holds = @ - 1]                \* version + 1
      [] r.kind = "Sync"    -> [doc EXCEPT !.holds = r.holds]              \* version + 1

(***************************************************************************)
(* The client's handling of a reply (m: the filter matched, d: the         *)
(* document after the write).  Replies for an attempt the client has left  *)
(* are ignored.                                                            *)
(***************************************************************************)
SyncFor(s, d) == Send(Req("Sync", s.att, FALSE, FALSE, s.cnt, 0), d)
Lost(s) == [s EXCEPT !.mode = "Wait", !.att = NoId, !.cnt = 0, !.ver = FALSE, !.conf = 0, !.tok = 0]
Current(s, r, md) == s.mode = md /\ s.att = r.id
\* The keeping release is over (applied, or given up, or the lock was not ours any
\* more): the client is released locally, as after ReleaseLast (it stopped believing
\* before the send; Variant "KeepBelieving": it keeps its confirmedUntil and token).
KeepDone(s) ==
    [(IF Variant = "KeepBelieving"
      THEN [s EXCEPT !.att = NoId, !.cnt = 0, !.ver = FALSE] ELSE Lost(s))
     EXCEPT !.mode = IF Reacquire THEN "Wait" ELSE "Done", !.app = NoReq]

Reply(s, r, m, d) ==
    CASE IsGrant(r) ->
           IF ~Current(s, r, "Acq") THEN s
           ELSE IF m THEN [s EXCEPT !.mode = "Hold", !.cnt = 1, !.ver = TRUE,
                                    !.conf = r.left, !.tok = d.token]
           ELSE [s EXCEPT !.mode = "Wait", !.att = NoId]
      [] r.kind = "Abandon" ->      \* then the request held back in nxt, if any
           IF Current(s, r, "Abandon")
           THEN [s EXCEPT !.mode = "Wait", !.att = NoId, !.app = s.nxt, !.nxt = NoReq]
           ELSE s
      [] r.kind = "Renew" ->
           IF ~Current(s, r, "Hold") THEN s
           ELSE IF m THEN [s EXCEPT !.conf = Max2(@, r.left)]   \* max(confirmedUntil, sent + Lease)
           ELSE Lost(s)                                         \* no match: the lease is lost
      [] r.kind = "Reenter" ->
           IF ~Current(s, r, "Hold") THEN s
           ELSE IF m THEN [s EXCEPT !.cnt = @ + 1, !.ver = TRUE, !.conf = Max2(@, r.left)]
           ELSE [s EXCEPT !.app = SyncFor(s, d)]
      [] r.kind = "Release" ->
           IF ~Current(s, r, "Hold") THEN s
           ELSE IF m THEN [s EXCEPT !.ver = TRUE]
           ELSE [s EXCEPT !.app = SyncFor(s, d)]
      [] r.kind = "Sync" /\ s.mode = "Keeping" ->   \* the resync after a keeping miss
           IF ~Current(s, r, "Keeping") THEN s
           ELSE IF m THEN [s EXCEPT !.app = Send(Req("ReleaseKeeping", s.att, TRUE, FALSE, 0, 0), d)]
           ELSE KeepDone(s)                         \* not ours any more
      [] r.kind = "Sync" /\ s.mode # "Keeping" ->
           IF ~Current(s, r, "Hold") THEN s
           ELSE IF m THEN [s EXCEPT !.ver = TRUE]   \* new version from the before-image
           ELSE Lost(s)
      [] r.kind = "ReleaseKeeping" ->  \* a miss: resync (holds: 1), then keep once more
           IF ~Current(s, r, "Keeping") THEN s
           ELSE IF m \/ s.cnt = 0 THEN KeepDone(s)
           ELSE [s EXCEPT !.cnt = 0, !.app = Send(Req("Sync", s.att, FALSE, FALSE, 1, 0), d)]
      [] r.kind = "ReleaseLast" ->  \* then the abandon held back in nxt, if any
           IF s.mode = "Abandon" /\ s.nxt # NoReq
           THEN [s EXCEPT !.app = s.nxt, !.nxt = NoReq]
           ELSE s

(***************************************************************************)
(* The server applies r.  slot: "app" / "ren" (the client c still waits    *)
(* for the reply, which it gets in the same step) or "net" (nobody waits:  *)
(* a late write, a write whose reply was lost, a crashed client's write).  *)
(***************************************************************************)
Apply(r, c, slot) ==
    LET m     == Matches(r)
        d1    == IF m THEN Updated(r) ELSE doc
        grant == m /\ IsGrant(r)
        v     == m /\ ChangesVersion(r)
        b     == m /\ ChangesBeat(r)
        gone  == IF m /\ (IsGrant(r) \/ r.kind \in {"Abandon", "ReleaseLast"})
                 THEN doc.owner ELSE NoId
        lgone == IF m /\ r.kind = "ReleaseKeeping" THEN doc.lease ELSE NoId
        csv   == [x \in Clients |-> StaleClient(cs[x], v, b, gone, lgone)]
        s0    == CASE slot = "app" -> [csv[c] EXCEPT !.app = NoReq]
                   [] slot = "ren" -> [csv[c] EXCEPT !.ren = NoReq]
                   [] OTHER        -> csv[c]
        cs1   == IF slot = "net" THEN csv ELSE [csv EXCEPT ![c] = Reply(s0, r, m, d1)]
        hold1 == {x \in Clients : cs1[x].tok > 0}   \* holders (and, "KeepBelieving", keepers)
        toks  == {d1.token} \cup {cs1[x].tok : x \in hold1}
        Rank(t) == IF grant THEN Cardinality({u \in toks : u <= t}) ELSE t
    IN  /\ doc' = [d1 EXCEPT !.token = Rank(@)]
        /\ cs' = [x \in Clients |-> IF x \in hold1 THEN [cs1[x] EXCEPT !.tok = Rank(@)]
                                                  ELSE cs1[x]]
        /\ lastGranted' = IF grant THEN Rank(d1.token) ELSE lastGranted
        /\ tokensOk' = (tokensOk /\ (grant => d1.token > lastGranted))
        /\ lateWrite' = (lateWrite \/ (m /\ ~IsGrant(r)
                                        /\ ~(r.id = doc.owner /\ r.id = doc.lease))
                                   \/ (m /\ r.kind = "HandOver"
                                        /\ ~(r.old = doc.owner /\ r.old = doc.lease)))
        /\ wall' = IF m /\ SetsRenewedAt(r) THEN [age |-> 0, fwd |-> 0] ELSE wall
        /\ net' = Keep({StaleReq(q, v, b, gone, lgone) : q \in IF slot = "net" THEN net \ {r} ELSE net},
                       cs1, d1)
        /\ UNCHANGED <<rate, faults, handed>>

\* The server applies the request the application thread waits for.
ApplyApp(c) == cs[c].app # NoReq /\ Apply(cs[c].app, c, "app")
\* The server applies the renewer's request.
ApplyRen(c) == cs[c].ren # NoReq /\ Apply(cs[c].ren, c, "ren")
\* The server applies a request nobody waits for any more (possibly much later).
ApplyLate == \E r \in net : Apply(r, CHOOSE c \in Clients : TRUE, "net")

(***************************************************************************)
(* Waiters.                                                                *)
(***************************************************************************)
\* May c take the lock with a fresh acquire: free, and the queue empty or c its head?
FreeFor(c) == doc.holds = 0 /\ QHead(doc.queue) \in {0, c}
\* Does c's read make it join the queue: it must wait, and it is not in the queue.
Joins(c) == WithQueue /\ ~FreeFor(c) /\ ~InQueue(doc.queue, c)
\* May the read's answer say "take it now" for a kept lock (Java: WatchedState.sightingOf()'s
\* endedLongAgo, set when the aggregation's $$NOW >= releasedAt + leaseMs)?  The
\* server's clock is arbitrary here (any step, any rate): whatever it says, nobody
\* believes it holds a kept lock, so every answer must be safe.  So the model lets
\* every read of a kept document answer either way, which covers every server clock.
KeptOver == doc.kept

\* Java: findOne({_id}) (plus the server's $$NOW for the fast path); when free and
\* the queue empty or headed by this manager, findOneAndUpdate({_id, holds: 0,
\* $or: [{"queue.0": {$exists: false}}, {"queue.0": me}]}, {owner: newId, holds: 1,
\* leaseId: new, $inc: {version, token, beat}, $currentDate: renewedAt,
\* $pullAll: {queue: [me]}}) (upsert).  A free lock headed by another manager is
\* watched like a held one, its key being (version, beat, queue head).  The key and
\* seenAt are taken when the REPLY is received (the read is atomic here: its apply and
\* its reply are one step; a later reply only makes the wait longer).
\* Join: when the read shows a lock this manager must wait for and its id absent from
\* the queue, updateOne({_id}, {$addToSet: {queue: me}}).  It touches only the queue
\* (no compare-and-set, no watched key is disturbed), so it is taken in the same step
\* as the read; a join applied late is a stale entry, as a crash or a lost leave
\* leaves one.
Read(c) ==
    LET s == cs[c]
        a == FreshId(c)
        h == SeenHead(doc)
    IN
    /\ s.mode = "Wait" /\ s.app = NoReq
    /\ doc' = IF Joins(c) THEN [doc EXCEPT !.queue = Append(@, c)] ELSE doc
    /\ CASE FreeFor(c) ->                                       \* free for me: Acquire
              cs' = [cs EXCEPT ![c] = [s EXCEPT !.mode = "Acq", !.att = a, !.kset = FALSE,
                        !.kver = FALSE, !.kbeat = FALSE, !.khead = 0, !.seen = 0,
                        !.app = Req("Acquire", a, FALSE, FALSE, 0, Lease)]]
         [] FastPath /\ wall.age > FastLease + FastMargin ->       \* fast path: CAS at once
              cs' = [cs EXCEPT ![c] = [s EXCEPT !.mode = "Acq", !.att = a, !.kset = FALSE,
                        !.kver = FALSE, !.kbeat = FALSE, !.khead = 0, !.seen = 0,
                        !.app = TakeoverReq(a, TRUE, TRUE, h)]]
         [] OTHER ->
              \/ /\ KeptOver        \* a kept lock whose minimum hold is over by the
                                     \* server's clock: the same CAS at once
                 /\ cs' = [cs EXCEPT ![c] = [s EXCEPT !.mode = "Acq", !.att = a, !.kset = FALSE,
                           !.kver = FALSE, !.kbeat = FALSE, !.khead = 0, !.seen = 0,
                           !.app = TakeoverReq(a, TRUE, TRUE, h)]]
              \/ IF s.kset /\ s.kver /\ s.kbeat /\ s.khead = h
                 THEN UNCHANGED cs                             \* same key: keep seenAt
                 ELSE cs' = [cs EXCEPT ![c] = [s EXCEPT !.kset = TRUE, !.kver = TRUE,
                               !.kbeat = TRUE, !.khead = h, !.seen = 0]]   \* new key: restart
    /\ UNCHANGED <<rate, wall, net, faults, handed, lastGranted, tokensOk, lateWrite>>

\* Java: the key (version, beat; for a free lock also the queue head) unchanged for
\* lease * 1.03 on the monotonic clock: findOneAndUpdate({_id, version: v, beat: b},
\* same update as Acquire but $pullAll: {queue: [me, the stale head]}).  The filter
\* does not test the head: if the head changed since the last read, the CAS may still
\* match (and pulls a head that is already gone).
Takeover(c) ==
    LET s == cs[c]
        a == FreshId(c)
    IN
    /\ s.mode = "Wait" /\ s.app = NoReq /\ s.kset /\ s.seen >= Threshold
    /\ cs' = [cs EXCEPT ![c] = [s EXCEPT !.mode = "Acq", !.att = a, !.kset = FALSE,
                 !.kver = FALSE, !.kbeat = FALSE, !.khead = 0, !.seen = 0,
                 !.app = TakeoverReq(a, s.kver, s.kbeat, s.khead)]]
    /\ UNCHANGED <<doc, rate, wall, net, faults, handed, lastGranted, tokensOk, lateWrite>>

\* Java: the caller stops waiting (its timeout elapsed, or it was interrupted) between
\* two attempts; the manager's last waiter leaves the queue: updateOne({_id},
\* {$pullAll: {queue: [me]}}), best effort: the leave may be lost (counted as a request
\* given up), and then the entry stays, stale.  The client wants the lock no more.
Leave(c) ==
    /\ WithLeave /\ cs[c].mode = "Wait" /\ cs[c].app = NoReq
    /\ cs' = [cs EXCEPT ![c] = [@ EXCEPT !.mode = "Done", !.kset = FALSE, !.kver = FALSE,
                                          !.kbeat = FALSE, !.khead = 0, !.seen = 0]]
    /\ \/ /\ doc' = [doc EXCEPT !.queue = Without(@, {c})]
          /\ UNCHANGED faults
       \/ /\ faults.lost < MaxLost /\ InQueue(doc.queue, c)     \* the leave is lost
          /\ faults' = [faults EXCEPT !.lost = @ + 1]
          /\ UNCHANGED doc
    /\ UNCHANGED <<rate, wall, net, handed, lastGranted, tokensOk, lateWrite>>

(***************************************************************************)
(* Holders.  No fairness: a holder may stop renewing (pause) at any time.  *)
(***************************************************************************)
\* Java: the renewer, every lease/3: updateOne({_id, owner, leaseId},
\* {$inc: {beat: 1}, $currentDate: renewedAt}).  Here: at any time.
Renew(c) ==
    /\ cs[c].mode = "Hold" /\ cs[c].ren = NoReq
    /\ cs' = [cs EXCEPT ![c].ren = Send(Req("Renew", cs[c].att, FALSE, FALSE, 0, Lease), doc)]
    /\ UNCHANGED <<doc, rate, wall, net, faults, handed, lastGranted, tokensOk, lateWrite>>

\* Java: nested acquire: updateOne({_id, owner, version: v},
\* {$inc: {holds: 1, version: 1}, $currentDate: renewedAt}).
Reenter(c) ==
    /\ cs[c].mode = "Hold" /\ cs[c].app = NoReq /\ cs[c].cnt < MaxHolds
    /\ cs' = [cs EXCEPT ![c].app = Send(Req("Reenter", cs[c].att, cs[c].ver, FALSE, 0, Lease), doc)]
    /\ UNCHANGED <<doc, rate, wall, net, faults, handed, lastGranted, tokensOk, lateWrite>>

\* Java: release: updateOne({_id, owner, version: v}, {$inc: {holds: -1, version: 1}});
\* the last hold: {owner: null, holds: 0, $inc: {version: 1}}, sent after the client
\* stopped believing (the reply is waited for but changes nothing: if the CAS missed,
\* the document stays with a lease nobody renews, and a waiter takes it over).
Release(c) ==
    LET s == cs[c] IN
    /\ s.mode = "Hold" /\ s.app = NoReq
    /\ cs' = [cs EXCEPT ![c] =
                IF s.cnt > 1
                THEN [s EXCEPT !.cnt = @ - 1, !.app = Send(Req("Release", s.att, s.ver, FALSE, s.cnt - 1, 0), doc)]
                ELSE [Lost(s) EXCEPT !.mode = IF Reacquire THEN "Wait" ELSE "Done",
                                     !.app = Send(Req("ReleaseLast", s.att, s.ver, FALSE, 0, 0), doc)]]
    /\ UNCHANGED <<doc, rate, wall, net, faults, handed, lastGranted, tokensOk, lateWrite>>

\* Java: the last release (HoldCountChanges.changeHolds to 0) while the acquisition's minimum
\* hold (holdAtLeast, HeldLock.holdUntilNanos) is not over: releaseKeeping,
\* updateOne({_id, owner, version: v}, {$set: {holds: 1, leaseId: new, leaseMs: time
\* left}, $inc: {version: 1, beat: 1}, $currentDate: {renewedAt, releasedAt}}), sent
\* after the client stopped believing (the session is closed first; the manager's own
\* next caller acquires afresh like any other).  The lock stays taken under a lease id
\* nobody renews (a renewal in flight misses it) until a waiter takes it over: after
\* watching it unchanged for its leaseMs + 3 % on its own clock, or at once when the
\* server's clock says releasedAt + leaseMs has passed (KeptOver).  A miss: resync
\* findOneAndUpdate({_id, owner, leaseId}, {holds: 1, $inc: {version}}) and, if that
\* matched, the keeping release once more from the new version (Java sends a plain
\* release instead if the minimum hold ran out meanwhile: ReleaseLast's case).  A
\* store failure (given up): nothing more is sent; the lease runs out.  The model has
\* no minimum hold to measure (leaseMs, WaitFor as for any lease): any last release may
\* be a keeping one, and the kept lease is watched for WaitFor like any other.
\* Variant "KeepBelieving": the client's belief is not ended by the release, only by
\* the end of its confirmed lease (it keeps confirmedUntil and its token).
ReleaseKeeping(c) ==
    LET s  == cs[c]
        s1 == IF Variant = "KeepBelieving" THEN s ELSE Lost(s)
    IN
    /\ c \in Keepers /\ s.mode = "Hold" /\ s.app = NoReq /\ s.cnt = 1
    /\ cs' = [cs EXCEPT ![c] = [s1 EXCEPT !.mode = "Keeping", !.att = s.att, !.cnt = 1,
                 !.ver = FALSE, !.app = Send(Req("ReleaseKeeping", s.att, s.ver, FALSE, 0, 0), doc)]]
    /\ UNCHANGED <<doc, rate, wall, net, faults, handed, lastGranted, tokensOk, lateWrite>>

(***************************************************************************)
(* Faults (bounded by MaxCrashes and MaxLost).                            *)
(***************************************************************************)
\* Java: a timeout / MongoException with unknown outcome: the client gives up on the
\* request, which stays in flight (it may be applied later, or never; the reply, if any,
\* is lost).  The client reacts at once:
\*   grant unknown       -> Abandon: updateOne({_id, owner: thatId}, {owner: null, holds: 0, $inc: {version: 1}})
\*   hand-over unknown   -> the release of the old acquisition, version-checked:
\*                          updateOne({_id, owner: oldId, version}, {owner: null, holds: 0,
\*                          $inc: {version: 1}}), then (after its reply) the Abandon of the
\*                          new owner id as above; then the new acquisition waits again
\*                          normally.  If the release matches, the hand-over can never land;
\*                          if it missed because the hand-over landed, the abandon frees the
\*                          lock.  (Variant "AbandonFirst": abandon, then release.)
\*   that release unknown -> the abandon is not sent (Java: the clean-up throws, the
\*                          release fails); the new acquisition waits again
\*   re-enter / release / sync unknown -> Sync: findOneAndUpdate({_id, owner, leaseId},
\*                          {holds: localCount, $inc: {version: 1}}, BEFORE)
\*   abandon unknown     -> back to waiting (a later attempt uses a new id)
\*   renew unknown       -> nothing confirmed
\*   keeping release or its resync unknown -> nothing more (lastReleaseFailed: the
\*                          lock frees itself when its lease runs out)
CleanUp(s, r) ==                   \* after the hand-over r was given up
    LET ab == Req("Abandon", r.id, FALSE, FALSE, 0, 0)
        rl == Send(Req("ReleaseLast", r.old, r.ver, FALSE, 0, 0), doc)
    IN  CASE r.old = NoId ->                 \* (a release that cannot match is not sent)
               [s EXCEPT !.mode = "Abandon", !.app = ab]
          [] Variant = "AbandonFirst" ->
               [s EXCEPT !.mode = "Abandon", !.app = ab, !.nxt = rl]
          [] OTHER ->
               [s EXCEPT !.mode = "Abandon", !.app = rl, !.nxt = ab]

FollowUp(s, r) ==
    CASE r.kind = "HandOver" /\ Current(s, r, "Acq") -> CleanUp(s, r)
      [] Current(s, r, "Keeping") -> KeepDone(s)
      [] r.kind = "ReleaseLast" /\ s.mode = "Abandon" /\ s.nxt # NoReq ->
             [s EXCEPT !.mode = "Wait", !.att = NoId, !.app = NoReq, !.nxt = NoReq]
      [] IsGrant(r) /\ r.kind # "HandOver" /\ Current(s, r, "Acq") ->
             [s EXCEPT !.mode = "Abandon", !.app = Req("Abandon", r.id, FALSE, FALSE, 0, 0)]
      [] r.kind \in {"Reenter", "Release", "Sync"} /\ Current(s, r, "Hold") ->
             [s EXCEPT !.app = SyncFor(s, doc)]
      [] r.kind = "Abandon" /\ Current(s, r, "Abandon") ->
             [s EXCEPT !.mode = "Wait", !.att = NoId, !.app = s.nxt, !.nxt = NoReq]
      [] OTHER -> [s EXCEPT !.app = NoReq]

GiveUpApp(c) ==
    /\ faults.lost < MaxLost /\ cs[c].app # NoReq
    /\ net' = Keep(net \cup {cs[c].app}, cs, doc)
    /\ cs' = [cs EXCEPT ![c] = FollowUp(cs[c], cs[c].app)]
    /\ faults' = [faults EXCEPT !.lost = @ + 1]
    /\ UNCHANGED <<doc, rate, wall, handed, lastGranted, tokensOk, lateWrite>>

GiveUpRen(c) ==
    /\ faults.lost < MaxLost /\ cs[c].ren # NoReq
    /\ net' = Keep(net \cup {cs[c].ren}, cs, doc)
    /\ cs' = [cs EXCEPT ![c].ren = NoReq]
    /\ faults' = [faults EXCEPT !.lost = @ + 1]
    /\ UNCHANGED <<doc, rate, wall, handed, lastGranted, tokensOk, lateWrite>>

\* The process dies; its requests in flight may still land; its queue entry stays.
Crash(c) ==
    /\ faults.crash < MaxCrashes /\ cs[c].mode \notin {"Crashed", "Done"}
    /\ net' = Keep(net \cup ({cs[c].app, cs[c].ren} \ {NoReq}), cs, doc)
    /\ cs' = [cs EXCEPT ![c] = [Idle EXCEPT !.mode = "Crashed"]]
    /\ faults' = [faults EXCEPT !.crash = @ + 1]
    /\ UNCHANGED <<doc, rate, wall, handed, lastGranted, tokensOk, lateWrite>>

\* A pause (GC, SIGSTOP) needs no action: nothing forces a client to take a step
\* while Tick runs its clock on.

(***************************************************************************)
(* Hand-over.                                                              *)
(***************************************************************************)
\* Java: handOver, the release of the last hold while another caller of the same
\* manager waits for the lock: findOneAndUpdate({_id, owner, version: v},
\* {owner: newId, holds: 1, leaseId: new, leaseMs, $inc: {version, token, beat},
\* $currentDate: {acquiredAt, renewedAt}, $pullAll: {queue: [me]}}).  A client is a
\* process here, so the waiting caller is the same client under a NEW owner id (the
\* next acquisition): the releasing thread stops believing when it sends, and the new
\* acquisition waits for the reply as for a grant (confirmedUntil = sent + lease).
\* Neither the queue nor the 8-grant streak limit restricts it (see README).
\* With at most one hand-over, only the first client hands over: the clients are
\* symmetric (same actions, every combination of clock rates), so a behaviour where
\* another client does is the same up to renaming the clients.
\* HandOverLost: the request is given up at once, as GiveUpApp would (it may land
\* now, later or never, and the client starts its clean-up); giving it up later
\* differs only by a wait in which the reply may still come, which is the case
\* HandOverLost = FALSE checks.
HandOver(c) ==
    LET s  == cs[c]
        a  == FreshId(c)
        r  == Send(HandOverReq(a, s.att, s.ver), doc)
        s1 == [Lost(s) EXCEPT !.mode = "Acq", !.att = a, !.app = r]
    IN
    /\ handed < MaxHandOvers /\ (MaxHandOvers > 1 \/ c = Min(Clients))
    /\ s.mode = "Hold" /\ s.app = NoReq /\ s.cnt = 1
    /\ handed' = handed + 1
    /\ IF HandOverLost
       THEN /\ faults.lost < MaxLost
            /\ net' = Keep(net \cup {r}, [cs EXCEPT ![c] = s1], doc)
            /\ cs' = [cs EXCEPT ![c] = FollowUp(s1, r)]
            /\ faults' = [faults EXCEPT !.lost = @ + 1]
       ELSE /\ cs' = [cs EXCEPT ![c] = s1]
            /\ UNCHANGED <<net, faults>>
    /\ UNCHANGED <<doc, rate, wall, lastGranted, tokensOk, lateWrite>>

(***************************************************************************)
(* Time.                                                                   *)
(***************************************************************************)
\* One real tick: client c's monotonic clock advances rate[c] units, the server's wall
\* clock R units.
Advance(s, d) ==
    IF s.mode = "Crashed" THEN s
    ELSE [s EXCEPT !.seen = IF s.kset THEN Min2(@ + d, WaitFor) ELSE 0,
                   !.conf = Sub0(@, d),
                   !.app  = IF @ = NoReq THEN @ ELSE [@ EXCEPT !.left = Sub0(@, d)],
                   !.ren  = IF @ = NoReq THEN @ ELSE [@ EXCEPT !.left = Sub0(@, d)]]

Tick ==
    /\ cs' = [c \in Clients |-> Advance(cs[c], rate[c])]
    /\ wall' = IF FastPath THEN [wall EXCEPT !.age = Min2(@ + R, WallCap)] ELSE wall
    /\ UNCHANGED <<doc, rate, net, faults, handed, lastGranted, tokensOk, lateWrite>>

\* The server's wall clock steps forward (NTP, operator), at most MaxForward in total
\* between a write of renewedAt and a read; one step of the whole remaining allowance
\* is the worst case (the fast path only tests wallNow - renewedAt > threshold).
WallForward ==
    /\ FastPath /\ wall.fwd < MaxForward
    /\ wall' = [age |-> Min2(wall.age + MaxForward - wall.fwd, WallCap), fwd |-> MaxForward]
    /\ UNCHANGED <<doc, rate, cs, net, faults, handed, lastGranted, tokensOk, lateWrite>>

\* ... or backward, arbitrarily (represented by a step back to renewedAt itself).
WallBackward ==
    /\ FastPath /\ wall.age > 0
    /\ wall' = [wall EXCEPT !.age = 0]
    /\ UNCHANGED <<doc, rate, cs, net, faults, handed, lastGranted, tokensOk, lateWrite>>

(***************************************************************************)
(* The specification.                                                      *)
(***************************************************************************)
Init ==
    /\ doc = [owner |-> NoId, lease |-> NoId, holds |-> 0, token |-> 0, queue |-> <<>>,
              kept |-> FALSE]
    /\ rate \in [Clients -> Rates]
    /\ wall = [age |-> 0, fwd |-> 0]
    /\ cs = [c \in Clients |-> Idle]
    /\ net = {}
    /\ faults = [crash |-> 0, lost |-> 0]
    /\ handed = 0
    /\ lastGranted = 0
    /\ tokensOk = TRUE
    /\ lateWrite = FALSE

Next ==
    \/ Tick \/ WallForward \/ WallBackward \/ ApplyLate
    \/ \E c \in Clients :
          \/ Read(c) \/ Takeover(c) \/ Leave(c)
          \/ Renew(c) \/ Reenter(c) \/ Release(c) \/ ReleaseKeeping(c) \/ HandOver(c)
          \/ ApplyApp(c) \/ ApplyRen(c) \/ GiveUpApp(c) \/ GiveUpRen(c) \/ Crash(c)

\* Time does not stop, the server keeps applying what live clients wait for, and
\* waiters keep reading and taking over when allowed.  Holders get no fairness (they
\* may pause for ever).  Fairness is on the server as a whole and on the waiters as a
\* whole, weaker than per-client fairness (so the check is stronger) and much cheaper
\* for TLC.
ServerWork == \E c \in Clients : ApplyApp(c) \/ ApplyRen(c)
WaiterWork == \E c \in Clients : Read(c) \/ Takeover(c)

\* WF_vars(A) is <>[](ENABLED <<A>>_vars) => []<><<A>>_vars.  TLC evaluates ENABLED by
\* computing A in every state, and <<A>>_vars by computing A on every transition (for
\* ServerWork: every Apply, for every client); that made the liveness run of
\* MongoLock.cfg six times slower.  So WF_vars(ServerWork) and WF_vars(WaiterWork) are
\* written with state predicates equal to their ENABLED conditions and step
\* predicates equal to their steps, which TLC evaluates in a blink.  The equalities
\* are EnabledAsWritten and StepsAsWritten below: check them by hand after changing
\* an action (see README).
ServerCanWork == \E c \in Clients : cs[c].app # NoReq \/ cs[c].ren # NoReq
\* A step of ApplyApp(c): c's request is replaced by no request or its follow-up (of
\* another kind); of ApplyRen(c): the renewal goes.  Giving up or crashing instead
\* counts a fault.
ServerStep ==
    /\ faults' = faults
    /\ \E c \in Clients : \/ (cs[c].app # NoReq /\ cs'[c].app.kind # cs[c].app.kind)
                         \/ (cs[c].ren # NoReq /\ cs'[c].ren = NoReq)
\* Read(c) would only confirm the key c has (a stuttering step).
SameKey(c) ==
    /\ ~FreeFor(c) /\ ~Joins(c) /\ ~(FastPath /\ wall.age > FastLease + FastMargin) /\ ~KeptOver
    /\ cs[c].kset /\ cs[c].kver /\ cs[c].kbeat /\ cs[c].khead = SeenHead(doc)
WaiterCanWork ==
    \E c \in Clients : /\ cs[c].mode = "Wait" /\ cs[c].app = NoReq
                       /\ (~SameKey(c) \/ (cs[c].kset /\ cs[c].seen >= Threshold))
Key(s) == <<s.kset, s.kver, s.kbeat, s.khead>>
\* A step of Read(c) or Takeover(c): a waiter sends an attempt, or takes a new key, or
\* only joins; the document changes by that join at most.
WaiterStep ==
    /\ net' = net /\ faults' = faults
    /\ \E c \in Clients :
          /\ cs[c].mode = "Wait" /\ cs[c].app = NoReq
          /\ doc' \in {doc, [doc EXCEPT !.queue = Append(@, c)]}
          /\ \/ cs'[c].mode = "Acq"
             \/ /\ cs'[c].mode = "Wait" /\ cs'[c].kset /\ cs'[c].seen = 0
                /\ Key(cs'[c]) # Key(cs[c])
             \/ (cs' = cs /\ doc' # doc)

Fairness == /\ WF_vars(Tick)
            /\ <>[]ServerCanWork => []<><<ServerStep>>_vars    \* WF_vars(ServerWork)
            /\ <>[]WaiterCanWork => []<><<WaiterStep>>_vars    \* WF_vars(WaiterWork)

Spec == Init /\ [][Next]_vars /\ Fairness

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
TypeOK ==
    /\ doc \in [owner : Ids \cup {NoId}, lease : Ids \cup {NoId, KeptLease}, holds : 0..MaxHolds,
                token : 0..(Cardinality(Clients) + 1), queue : Seq(Clients), kept : BOOLEAN]
    /\ doc.kept => doc.holds = 1 /\ doc.lease = KeptLease /\ Keepers # {}
    /\ \A i, j \in DOMAIN doc.queue : i # j => doc.queue[i] # doc.queue[j]
    /\ wall \in [age : 0..WallCap, fwd : 0..MaxForward]
    /\ cs \in [Clients -> ClientState]
    /\ net \subseteq Requests
    /\ faults \in [crash : 0..MaxCrashes, lost : 0..MaxLost]
    /\ handed \in 0..MaxHandOvers
    /\ lastGranted = doc.token
    /\ tokensOk \in BOOLEAN /\ lateWrite \in BOOLEAN

\* At any instant at most one client's isHeld() is true.
AtMostOneBeliever ==
    \A c, d \in Clients : c # d => ~(IsHeld(c) /\ IsHeld(d))

\* Every grant's token is above all earlier ones; no holder has a token beyond the last.
TokensGrow ==
    /\ tokensOk
    /\ \A c \in Clients : cs[c].mode = "Hold" => cs[c].tok <= lastGranted

\* Fencing: whoever believes it holds carries the newest token.
BelieverHasNewestToken ==
    \A c \in Clients : IsHeld(c) => cs[c].tok = doc.token

\* No write other than a grant changed the document without carrying its current
\* owner id and lease id, and no hand-over landed on a document whose owner id and
\* lease id were not those of the acquisition it releases.
NoLateWrite == ~lateWrite

\* No orphan lock: the document is held only by an owner id that a client holds, or
\* with a request in flight (or held back in nxt) that can still free it or pass it to
\* a client that waits for the reply.  An orphan is freed only by another manager's
\* takeover after a watch period.  A crash, a lost release and a grant that lands after
\* its abandon missed all leave one by design, so this is required only while every
\* request given up was a hand-over given up at once (HandOverLost) and nobody crashed.
\* A kept lock (released within its minimum hold) is one nobody renews by design, and so
\* is the lock while its keeping release (or the resync after a miss) is out.
CanFree(r) == /\ r.id = doc.owner
              /\ \/ r.kind = "Abandon"
                 \/ r.kind = "ReleaseLast" /\ r.ver
PassesOn(c) == /\ cs[c].mode = "Acq" /\ cs[c].app.kind = "HandOver"
               /\ cs[c].app.old = doc.owner /\ cs[c].app.ver
OnlyHandOversLost ==
    faults.crash = 0 /\ faults.lost = (IF HandOverLost THEN handed ELSE 0)
NoOrphanLock ==
    OnlyHandOversLost /\ doc.holds > 0 /\ ~doc.kept =>
        \/ \E c \in Clients : \/ cs[c].mode \in {"Hold", "Keeping"} /\ cs[c].att = doc.owner
                             \/ PassesOn(c) \/ CanFree(cs[c].app) \/ CanFree(cs[c].nxt)
        \/ \E r \in net : CanFree(r)

\* Fairness as written is WF_vars(ServerWork) /\ WF_vars(WaiterWork): an invariant and
\* a property to check by hand (not in the build: they evaluate what Fairness avoids).
EnabledAsWritten == /\ ServerCanWork = ENABLED <<ServerWork>>_vars
                    /\ WaiterCanWork = ENABLED <<WaiterWork>>_vars
StepsAsWritten == [][/\ ServerWork <=> ServerStep
                     /\ WaiterWork <=> WaiterStep]_vars

HeldByLiveHolder ==
    /\ doc.holds > 0
    /\ \E c \in Clients : cs[c].mode = "Hold" /\ cs[c].att = doc.owner
Waiting == \E c \in Clients : cs[c].mode \in {"Wait", "Acq", "Abandon"}

\* Free (or held by a crashed or departed attempt) while a live client waits:
\* eventually a live client holds it and knows it (or no live client waits any more:
\* a waiter stops waiting only by being granted the lock, by leaving or by crashing).
FreeEventuallyGranted ==
    (Waiting /\ ~HeldByLiveHolder) ~> (HeldByLiveHolder \/ ~Waiting)
=============================================================================
