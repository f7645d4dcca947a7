------------------------------ MODULE Permits ------------------------------
(***************************************************************************)
(* The leased counting semaphore of issue 32 (spec/PERMITS-DESIGN.md): one *)
(* document per name, {_id, limit, used, holders: [{owner, session,       *)
(* permits}], version, token, queue}, written only by single-document     *)
(* compare-and-sets, next to the session documents of issue 20            *)
(* (MongoLockSessions.tla, whose style and abstractions this module        *)
(* reuses: capped timers on drifting monotonic clocks, requests that may   *)
(* be applied with a lost reply, late or never, crashes, stale reads of    *)
(* a session, recycled ids, remembered versions kept as one bit).          *)
(*                                                                         *)
(*  - Grant n permits: one conditional upsert on used <= limit - n; its    *)
(*    token is the document's token after the $inc.                        *)
(*  - Release: by owner ({holders: {$elemMatch: {owner, permits: n}}}).    *)
(*  - Reclaim of a crashed holder's permits: a waiter that finds no room   *)
(*    reads the holders' sessions, watches a live one's beat for lease +   *)
(*    margin on its own clock, ends it by the sessions' compare-and-set    *)
(*    (expire; after a read that showed it ended or absent, or after a     *)
(*    failed expiry, endUnlessLive), and only then pulls that session's    *)
(*    entries by an update pinned to the version its sum k was read from.  *)
(*  - The session check: a hold whose entry is missing is reported lost;   *)
(*    with Sweep, an entry of the session whose owner the manager does not *)
(*    know (an orphan: a grant that landed after its abandon) is released  *)
(*    by owner.                                                            *)
(*  - The document is never removed (no token floor needed).               *)
(*                                                                         *)
(* Not modelled: the queue (it only narrows which grants match: safety is  *)
(* checked on a superset; fairness among managers is not a property here), *)
(* the limit mismatch (nothing written), the absent document (the upsert's *)
(* insert is the grant on a document with used = 0), stale reads of the    *)
(* semaphore document (every decision from it is a compare-and-set on its  *)
(* version or its used; a waiter's read of it is only a hint).            *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS
    Managers,    \* the lock managers (processes), numbered
    Asks,        \* a set of <<m, k, n>>: manager m's acquisition k asks n permits
                 \* (one acquisition per k; a manager may hold several at once:
                 \* not re-entrant, each takes new permits under its one session)
    Limit,       \* the semaphore's limit
    Lease,       \* a session's lease, in local units
    WaitFor,     \* Lease * (1 + margin): how long a waiter watches an unchanged beat
                 \* before it ends the session; needs WaitFor >= Lease * Fast / Slow
    Slow, Fast,  \* clock rates, local units per real tick: Watchers run Fast (they see
                 \* time pass soonest), every other manager Slow (its lease lasts longest)
    Watchers,    \* the managers that watch sessions and end them by the beat; the others
                 \* end only sessions read as ended or absent (endUnlessLive)
    Crashers,    \* the managers that may crash
    MaxCrashes,  \* bound on crashes
    MaxLost,     \* bound on requests given up (unknown outcome: lost reply, late or never)
    MaxStale,    \* bound on stale reads of a session (SERVER-53813): shown as absent
    MaxSid,      \* session ids per manager (recycled when unreferenced)
    MaxId,       \* owner ids per manager (recycled when unreferenced)
    Releasers,   \* the managers that release what they hold (the others keep it until
                 \* they crash or their session ends)
    Reacquire,   \* TRUE: an acquisition released or lost is wanted again; FALSE: done
    Sweep,       \* TRUE: the session check also releases, by owner, an entry of its
                 \* session whose owner the manager does not know (an orphan)
    CheckFair,   \* TRUE: weak fairness for the session check (liveness with lost requests:
                 \* an orphan is given back eventually); FALSE: none
    Variant      \* "Correct"
                 \* | "PullByRead": a session read as ended or absent (fresh or stale)
                 \*   authorises the pull at once, without endUnlessLive
                 \* | "PullWithoutVersion": the pull's filter is {_id} alone (no version):
                 \*   it subtracts the k it read, whatever the entries are when it lands
                 \* | "GrantWithoutUsed": the grant's filter does not check used
                 \* | "ReleaseAnyEntry": the release pulls the entries of its session
                 \*   (not of its owner), and frees their permits

\* The acquisition plans the configurations name (Asks <- ...): TLC's configuration
\* files take no tuples.
\* One acquisition each: manager 1 two permits, manager 2 one (one of 2 is left for 2).
AsksTwoOne == {<<1, 1, 2>>, <<2, 1, 1>>}
\* Both ask for the whole limit.
AsksTwoTwo == {<<1, 1, 2>>, <<2, 1, 2>>}
\* Manager 1 holds two acquisitions of one permit each (under its one session),
\* manager 2 asks for two.
AsksPairTwo == {<<1, 1, 1>>, <<1, 2, 1>>, <<2, 1, 2>>}
\* Three managers: two holders of one permit each, a third that asks for two.
AsksThree == {<<1, 1, 1>>, <<2, 1, 1>>, <<3, 1, 2>>}

Ks == {a[2] : a \in Asks}
Asked(m, k) == \E a \in Asks : a[1] = m /\ a[2] = k
Size(m, k) == IF Asked(m, k) THEN (CHOOSE a \in Asks : a[1] = m /\ a[2] = k)[3] ELSE 0
Rate(m) == IF m \in Watchers THEN Fast ELSE Slow

ASSUME /\ Managers \subseteq Nat \ {0} /\ Ks \subseteq Nat \ {0}
       /\ \A a \in Asks : a[1] \in Managers /\ a[3] \in 1..Limit
       /\ \A a, b \in Asks : a[1] = b[1] /\ a[2] = b[2] => a = b
       /\ Lease >= 1 /\ 1 <= Slow /\ Slow <= Fast /\ WaitFor * Slow >= Lease * Fast
       /\ Watchers \subseteq Managers /\ Crashers \subseteq Managers /\ Releasers \subseteq Managers
       /\ MaxCrashes \in Nat /\ MaxLost \in Nat /\ MaxStale \in Nat /\ MaxSid >= 1 /\ MaxId >= 1
       /\ Reacquire \in BOOLEAN /\ Sweep \in BOOLEAN /\ CheckFair \in BOOLEAN
       /\ Variant \in {"Correct", "PullByRead", "PullWithoutVersion", "GrantWithoutUsed",
                       "ReleaseAnyEntry"}

VARIABLES
    doc,         \* the semaphore document: [used, holders: a set of [o, s, n], tok]
    sd,          \* sd[s]: session document s's state: "none" | "live" | "ended"
    cs,          \* per-manager state, see ClientState
    net,         \* requests in flight whose manager no longer waits for them
    faults,      \* [crash, lost, stale]: faults so far
    lastGranted, \* history: the token of the last grant
    hist         \* history: [tokensOk: every grant's token exceeded the last]

vars == <<doc, sd, cs, net, faults, lastGranted, hist>>

Sids == Managers \X (1..MaxSid)
Ids  == Managers \X (1..MaxId)
NoSid == <<0, 0>>
NoId  == <<0, 0>>
MaxTok == Cardinality(Asks) + 1

Min2(a, b) == IF a <= b THEN a ELSE b
Max2(a, b) == IF a >= b THEN a ELSE b
Sub0(a, b) == IF a >= b THEN a - b ELSE 0
MinOf(S) == CHOOSE x \in S : \A y \in S : x <= y

\* The sum of the permits of a set of entries (or of requests: field n).
RECURSIVE SumN(_)
SumN(E) == IF E = {} THEN 0 ELSE LET e == CHOOSE x \in E : TRUE IN e.n + SumN(E \ {e})
Of(E, S) == {e \in E : e.s = S}

(***************************************************************************)
(* Requests, one record shape (unused fields: 0 / NoId / NoSid / FALSE).   *)
(*   kind  "Create" | "Renew" | "Expire" | "End" (session document),       *)
(*         "Grant" | "Release" | "Pull" (the semaphore document)           *)
(*   k     the acquisition it is for (Grant, Release; Expire, End, Pull:   *)
(*         the waiting acquisition whose reclaim sent it; 0: a sweep)      *)
(*   id    Grant: the new owner; Release: the owner filtered on            *)
(*   sid   Create, Renew: the manager's session; Grant: the session the    *)
(*         entry names; Expire, End, Pull: the session to end / pull       *)
(*   n     Grant, Release: the permits; Pull: k, the permits the session   *)
(*         held in the version read                                        *)
(*   ver   Expire: the beat watched is still the session's; Pull: the      *)
(*         version read is still the document's                            *)
(*   left  Create, Renew: Lease minus the local time since the SEND        *)
(***************************************************************************)
Req(kind, k, i, s, n, v, left) ==
    [kind |-> kind, k |-> k, id |-> i, sid |-> s, n |-> n, ver |-> v, left |-> left]
NoReq == Req("none", 0, NoId, NoSid, 0, FALSE, 0)
Kinds == {"Create", "Renew", "Expire", "End", "Grant", "Release", "Pull"}
Requests == [kind : Kinds, k : Ks \cup {0}, id : Ids \cup {NoId}, sid : Sids \cup {NoSid},
             n : Nat, ver : BOOLEAN, left : 0..Lease]

(***************************************************************************)
(* Manager state.                                                          *)
(*  mode  "Run" | "Crashed"                                                *)
(*  sm    session: "None", "Creating" (the insert out, in ren), "Live"     *)
(*  sid   the session; sconf: its confirmed lease left (0: lapsed)         *)
(*  ren   the session request out (Create or Renew)                        *)
(*  am[k] acquisition k: "Wait", "Acq" (its grant out), "Hold", "Rel" (its *)
(*        release out), "Clean" (releasing a grant it does not believe, or *)
(*        abandoning one whose outcome is unknown), "Done"                 *)
(*  att[k] its owner id; app[k]: its request out (or, while it waits, the  *)
(*        Expire, End or Pull of its reclaim); tok[k]: its token           *)
(*  wsid, seen, wk: the session it watches, the local time since the read  *)
(*        that showed its beat, and the acquisition the watch is for       *)
(*  swp   Sweep: the release of an orphan, out                             *)
(***************************************************************************)
ClientState ==
    [mode : {"Run", "Crashed"}, sm : {"None", "Creating", "Live"},
     sid : Sids \cup {NoSid}, sconf : 0..Lease, ren : Requests \cup {NoReq},
     am : [Ks -> {"Wait", "Acq", "Hold", "Rel", "Clean", "Done"}],
     att : [Ks -> Ids \cup {NoId}], app : [Ks -> Requests \cup {NoReq}],
     tok : [Ks -> 0..MaxTok],
     wsid : Sids \cup {NoSid}, seen : 0..WaitFor, wk : Ks \cup {0},
     swp : Requests \cup {NoReq}]

Fresh(m) == [mode |-> "Run", sm |-> "None", sid |-> NoSid, sconf |-> 0, ren |-> NoReq,
             am |-> [k \in Ks |-> IF Asked(m, k) THEN "Wait" ELSE "Done"],
             att |-> [k \in Ks |-> NoId], app |-> [k \in Ks |-> NoReq],
             tok |-> [k \in Ks |-> 0], wsid |-> NoSid, seen |-> 0, wk |-> 0, swp |-> NoReq]
CrashedState(m) == [Fresh(m) EXCEPT !.mode = "Crashed", !.am = [k \in Ks |-> "Done"]]

\* isHeld() of acquisition k: granted and believed, its session's confirmed lease runs.
IsHeld(m, k) ==
    /\ cs[m].mode = "Run" /\ cs[m].am[k] = "Hold" /\ cs[m].sm = "Live" /\ cs[m].sconf > 0

(***************************************************************************)
(* Fresh ids, and the garbage collection of forgotten session documents   *)
(* and of requests that can never match.                                   *)
(***************************************************************************)
SlotReqs(s) == {s.ren, s.swp} \cup {s.app[k] : k \in Ks}
AllReqs(c1, n1) == n1 \cup UNION {SlotReqs(c1[x]) : x \in Managers}
SidRefs(d1, c1, n1) ==
    {e.s : e \in d1.holders} \cup {c1[x].sid : x \in Managers} \cup {c1[x].wsid : x \in Managers}
      \cup {r.sid : r \in AllReqs(c1, n1)}
IdRefs == {e.o : e \in doc.holders} \cup {cs[x].att[k] : x \in Managers, k \in Ks}
            \cup {r.id : r \in AllReqs(cs, net)}
FreeIds(m)  == {i \in 1..MaxId : <<m, i>> \notin IdRefs}
FreshId(m)  == <<m, MinOf(FreeIds(m))>>
FreeSids(m) == {i \in 1..MaxSid : <<m, i>> \notin SidRefs(doc, cs, net)}
FreshSid(m) == <<m, MinOf(FreeSids(m))>>

\* Can request r in net still match in a later state (d1, s1: the documents then; gids:
\* the owners of grants that can still land)?  One that cannot is dropped.
MayMatch(r, d1, s1, gids) ==
    CASE r.kind = "Create"  -> FALSE              \* nobody waits for its session
      [] r.kind = "Renew"   -> s1[r.sid] = "live"
      [] r.kind = "Expire"  -> r.ver /\ s1[r.sid] = "live"
      [] r.kind = "End"     -> FALSE              \* ends only a session not live: no effect
      [] r.kind = "Grant"   -> TRUE
      [] r.kind = "Release" -> r.id \in {e.o : e \in d1.holders} \/ r.id \in gids
      [] r.kind = "Pull"    -> r.ver \/ Variant = "PullWithoutVersion"
Commit(d1, s1, c1, n1) ==
    LET gids == {q.id : q \in {x \in AllReqs(c1, n1) : x.kind = "Grant"}}
        n2   == {q \in n1 : MayMatch(q, d1, s1, gids)}
        refs == SidRefs(d1, c1, n2)
    IN  /\ doc' = d1
        /\ cs' = c1
        /\ net' = n2
        /\ sd' = [s \in Sids |-> IF s \in refs THEN s1[s] ELSE "none"]

(***************************************************************************)
(* Staleness: a write moved the semaphore's version (dw) and/or session    *)
(* sw's beat or state (NoSid: none).  The remembered bits are cleared.     *)
(***************************************************************************)
StaleReq(r, dw, sw) ==
    CASE r.kind = "Pull" /\ dw -> [r EXCEPT !.ver = FALSE]
      [] r.kind = "Expire" /\ r.sid = sw -> [r EXCEPT !.ver = FALSE]
      [] OTHER -> r
StaleClient(s, dw, sw) ==
    IF ~dw /\ sw = NoSid THEN s ELSE
    [s EXCEPT !.app  = [k \in Ks |-> StaleReq(s.app[k], dw, sw)],
              !.ren  = StaleReq(@, dw, sw), !.swp = StaleReq(@, dw, sw),
              !.wsid = IF @ = sw THEN NoSid ELSE @,
              !.seen = IF s.wsid = sw THEN 0 ELSE @,
              !.wk   = IF s.wsid = sw THEN 0 ELSE @]

(***************************************************************************)
(* The server: filters and updates.                                        *)
(***************************************************************************)
EntryOf(id) == {e \in doc.holders : e.o = id}
Matches(r) ==
    CASE r.kind = "Create"  -> TRUE                       \* insertOne (a fresh _id)
      [] r.kind = "Renew"   -> sd[r.sid] = "live"           \* {_id: S, state: "live"}
      [] r.kind = "Expire"  -> r.ver /\ sd[r.sid] = "live"  \* {_id: S, state: "live", beat: b}
      [] r.kind = "End"     -> sd[r.sid] # "live"           \* {_id: S, state: {$ne: "live"}}, upsert
      [] r.kind = "Grant"   ->                            \* {_id, limit, used: {$lte: L - n}}
             Variant = "GrantWithoutUsed" \/ doc.used <= Limit - r.n
      [] r.kind = "Release" ->                            \* {_id, holders: {$elemMatch: {owner, permits: n}}}
             \E e \in EntryOf(r.id) : e.n = r.n
      [] r.kind = "Pull"    ->                            \* {_id, version: v}
             r.ver \/ Variant = "PullWithoutVersion"

\* The document after r matched.
DocAfter(r) ==
    CASE r.kind = "Grant" ->        \* $push entry, $inc {used: n, version: 1, token: 1}
           [used |-> doc.used + r.n,
            holders |-> doc.holders \cup {[o |-> r.id, s |-> r.sid, n |-> r.n]},
            tok |-> doc.tok + 1]
      [] r.kind = "Release" /\ Variant = "ReleaseAnyEntry" ->
           \* $pull {holders: {session: S}} (S: the released entry's session), used less the
           \* permits pulled (the reclaim's write reused for a release)
           LET S == (CHOOSE e \in EntryOf(r.id) : TRUE).s IN
           [doc EXCEPT !.holders = @ \ Of(@, S), !.used = @ - SumN(Of(doc.holders, S))]
      [] r.kind = "Release" ->      \* $pull {holders: {owner}}, $inc {used: -n, version: 1}
           [doc EXCEPT !.holders = @ \ EntryOf(r.id), !.used = @ - r.n]
      [] r.kind = "Pull" ->         \* $pull {holders: {session: S}}, $inc {used: -k, version: 1}
           [doc EXCEPT !.holders = @ \ Of(@, r.sid), !.used = @ - r.n]
      [] OTHER -> doc

\* The manager's handling of a reply (m: matched; d1: the document after).
SessionLost(s) ==
    [s EXCEPT !.sm = "None", !.sid = NoSid, !.sconf = 0,
              !.am  = [k \in Ks |-> IF @[k] = "Hold" THEN IF Reacquire THEN "Wait" ELSE "Done"
                                    ELSE @[k]],
              !.att = [k \in Ks |-> IF s.am[k] = "Hold" THEN NoId ELSE @[k]],
              !.tok = [k \in Ks |-> IF s.am[k] = "Hold" THEN 0 ELSE @[k]]]
Believes(s, r) == r.sid = s.sid /\ s.sm = "Live" /\ s.sconf > 0
Waits(s, k) == k \in Ks /\ s.am[k] = "Wait" /\ s.app[k] = NoReq /\ s.sm = "Live"
\* After a matched expiry or end-unless-live (the session S is ended for sure): read the
\* semaphore (find), k = the permits S holds in it; none: nothing to pull; else the pull
\* pinned to the version read.  After a failed expiry: endUnlessLive.  After a failed
\* endUnlessLive (S is live): nothing (watch again).
AfterEnd(s, r, m, d1) ==
    IF ~Waits(s, r.k) THEN s
    ELSE IF m THEN LET k == SumN(Of(d1.holders, r.sid)) IN
                   IF k = 0 THEN s
                   ELSE [s EXCEPT !.app[r.k] = Req("Pull", r.k, NoId, r.sid, k, TRUE, 0)]
    ELSE IF r.kind = "Expire" THEN [s EXCEPT !.app[r.k] = Req("End", r.k, NoId, r.sid, 0, FALSE, 0)]
    ELSE s
Reply(s, r, m, d1) ==
    CASE r.kind = "Create" ->
           IF s.sm = "Creating" /\ s.sid = r.sid THEN [s EXCEPT !.sm = "Live", !.sconf = r.left]
           ELSE s
      [] r.kind = "Renew" ->
           IF ~(s.sm = "Live" /\ s.sid = r.sid) THEN s
           ELSE IF m THEN [s EXCEPT !.sconf = Max2(@, r.left)]   \* from the send
           ELSE SessionLost(s)                                  \* ended: every hold lost
      [] r.kind = "Grant" ->
           IF ~(s.am[r.k] = "Acq" /\ s.att[r.k] = r.id) THEN s
           ELSE IF ~m THEN [s EXCEPT !.am[r.k] = "Wait", !.att[r.k] = NoId]
           ELSE IF Believes(s, r) THEN [s EXCEPT !.am[r.k] = "Hold", !.tok[r.k] = d1.tok]
           ELSE [s EXCEPT !.am[r.k] = "Clean",                  \* not believed: release it
                          !.app[r.k] = Req("Release", r.k, r.id, NoSid, r.n, FALSE, 0)]
      [] r.kind = "Release" ->
           IF r.k \in Ks /\ s.att[r.k] = r.id /\ s.am[r.k] \in {"Rel", "Clean"}
           THEN [s EXCEPT !.am[r.k] = IF @ = "Rel" /\ ~Reacquire THEN "Done" ELSE "Wait",
                          !.att[r.k] = NoId]
           ELSE s
      [] r.kind \in {"Expire", "End"} -> AfterEnd(s, r, m, d1)
      [] OTHER -> s                                             \* Pull: wait on

\* The server applies r.  slot: <<"app", k>>, <<"ren">>, <<"swp">> (manager c waits for the
\* reply and gets it in the same step) or <<"net">> (nobody waits).
Apply(r, c, slot) ==
    LET m   == Matches(r)
        d0  == IF m THEN DocAfter(r) ELSE doc
        dw  == m /\ r.kind \in {"Grant", "Release", "Pull"}
        sw  == IF m /\ r.kind \in {"Renew", "Expire", "End"} THEN r.sid ELSE NoSid
        s1  == CASE ~m -> sd
                 [] r.kind \in {"Create", "Renew"} -> [sd EXCEPT ![r.sid] = "live"]
                 [] r.kind \in {"Expire", "End"} -> [sd EXCEPT ![r.sid] = "ended"]
                 [] OTHER -> sd
        csv == [x \in Managers |-> StaleClient(cs[x], dw, sw)]
        s0  == CASE slot[1] = "app" -> [csv[c] EXCEPT !.app[slot[2]] = NoReq]
                 [] slot[1] = "ren" -> [csv[c] EXCEPT !.ren = NoReq]
                 [] slot[1] = "swp" -> [csv[c] EXCEPT !.swp = NoReq]
                 [] OTHER -> csv[c]
        c0  == IF slot[1] = "net" THEN csv ELSE [csv EXCEPT ![c] = Reply(s0, r, m, d0)]
        grant == m /\ r.kind = "Grant"
        \* tokens renumbered by rank after a grant (only their order matters)
        toks == {d0.tok} \cup {c0[x].tok[k] : x \in Managers, k \in Ks}
        Rank(t) == IF grant /\ t > 0 THEN Cardinality({u \in toks : 0 < u /\ u <= t}) ELSE t
        d1  == [d0 EXCEPT !.tok = Rank(@)]
        c1  == [x \in Managers |-> [c0[x] EXCEPT !.tok = [k \in Ks |-> Rank(@[k])]]]
        n0  == IF slot[1] = "net" THEN net \ {r} ELSE net
        n1  == IF ~dw /\ sw = NoSid THEN n0 ELSE {StaleReq(q, dw, sw) : q \in n0}
    IN  /\ Commit(d1, s1, c1, n1)
        /\ lastGranted' = IF grant THEN d1.tok ELSE lastGranted
        /\ hist' = [hist EXCEPT !.tokensOk = @ /\ (grant => d0.tok > lastGranted)]
        /\ UNCHANGED faults

ApplyApp(c, k) == cs[c].app[k] # NoReq /\ Apply(cs[c].app[k], c, <<"app", k>>)
ApplyRen(c)    == cs[c].ren # NoReq /\ Apply(cs[c].ren, c, <<"ren">>)
ApplySwp(c)    == cs[c].swp # NoReq /\ Apply(cs[c].swp, c, <<"swp">>)
ApplyLate      == \E r \in net : Apply(r, CHOOSE c \in Managers : TRUE, <<"net">>)

(***************************************************************************)
(* Sessions.                                                               *)
(***************************************************************************)
Wants(s) == \E k \in Ks : s.am[k] = "Wait"
Active(s) == \E k \in Ks : s.am[k] # "Done"

\* Java: a manager that must acquire and has no session starts one:
\* insertOne({_id: newSid, state: "live", beat: 0, leaseMs}); its lease counts from the send.
CanCreate(c) ==
    LET s == cs[c] IN
    s.mode = "Run" /\ s.sm = "None" /\ s.ren = NoReq /\ Wants(s) /\ FreeSids(c) # {}
CreateSession(c) ==
    LET s == cs[c] IN
    /\ CanCreate(c)
    /\ LET sid == FreshSid(c) IN
       cs' = [cs EXCEPT ![c] = [s EXCEPT !.sm = "Creating", !.sid = sid,
                                  !.ren = Req("Create", 0, NoId, sid, 0, FALSE, Lease)]]
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

\* Java: the renewer (SessionRenewer.renew), at any time or never (a pause):
\* findOneAndUpdate({_id: S, state: "live"}, {$inc: {beat: 1}}).  Matched: a lease
\* confirmed from the send; not matched: the session ended, every hold of it lost.
Renew(c) ==
    LET s == cs[c] IN
    /\ s.mode = "Run" /\ s.sm = "Live" /\ s.ren = NoReq /\ Active(s)
    /\ cs' = [cs EXCEPT ![c].ren = Req("Renew", 0, NoId, s.sid, 0, FALSE, Lease)]
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

\* Java: the session check with a renewal (a signal, an unknown outcome, every 60th;
\* here at any time, or never): find({_id.mongolock: "permits", holders.session: S}).
\* A hold whose entry is not found is reported lost (LockLostException from its close).
\* Sweep: an entry of S whose owner the manager does not know is released by owner,
\* findOneAndUpdate({_id, holders: {$elemMatch: {owner, permits}}}, $pull, $inc).
Missing(c) == {k \in Ks : cs[c].am[k] = "Hold" /\ EntryOf(cs[c].att[k]) = {}}
Orphans(c) == {e \in Of(doc.holders, cs[c].sid) : e.o \notin {cs[c].att[k] : k \in Ks}}
Check(c) ==
    LET s  == cs[c]
        s1 == [s EXCEPT !.am  = [k \in Ks |-> IF k \in Missing(c)
                                             THEN IF Reacquire THEN "Wait" ELSE "Done" ELSE @[k]],
                        !.att = [k \in Ks |-> IF k \in Missing(c) THEN NoId ELSE @[k]],
                        !.tok = [k \in Ks |-> IF k \in Missing(c) THEN 0 ELSE @[k]]]
        s2 == IF Sweep /\ s.swp = NoReq /\ Orphans(c) # {}
              THEN LET e == CHOOSE x \in Orphans(c) : TRUE
                   IN  [s1 EXCEPT !.swp = Req("Release", 0, e.o, NoSid, e.n, FALSE, 0)]
              ELSE s1
    IN
    /\ s.mode = "Run" /\ s.sm = "Live" /\ s2 # s
    /\ cs' = [cs EXCEPT ![c] = s2]
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

(***************************************************************************)
(* Acquisitions and waiters.                                               *)
(***************************************************************************)
Room(c, k) == doc.used <= Limit - Size(c, k)

\* Java (PermitDocuments.tryAcquire): findOneAndUpdate({_id, limit: L, used: {$lte: L - n},
\* queue rule}, {$push: {holders: {owner, session, permits: n}}, $inc: {used: n,
\* version: 1, token: 1}, $pull: {queue}}, upsert, AFTER).  Sent when the waiter sees room
\* (its poll or a release notice; a grant sent without room only fails, changing nothing
\* but its own state), or at any time in GrantWithoutUsed.
CanGrant(c, k) ==
    /\ cs[c].mode = "Run" /\ Waits(cs[c], k) /\ FreeIds(c) # {}
    /\ Room(c, k) \/ Variant = "GrantWithoutUsed"
SendGrant(c, k) ==
    LET s == cs[c]
        a == FreshId(c)
    IN
    /\ CanGrant(c, k)
    /\ cs' = [cs EXCEPT ![c] = [s EXCEPT !.am[k] = "Acq", !.att[k] = a,
                 !.app[k] = Req("Grant", k, a, s.sid, Size(c, k), FALSE, 0)]]
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

\* Java: the grant found no room (tryAcquire -> Busy, with the holders' sessions read):
\* find({_id}), then the session S of a holder, findOne({_id: S}), fresh or (MaxStale)
\* from an older snapshot that shows S absent (before its insert).  What the waiter
\* does with the answer (Sighting, PermitDocuments.reclaim):
\*  - live: a Watcher watches its beat, if it does not already
\*  - ended or absent: SessionDocuments.endUnlessLive, findOneAndUpdate({_id: S, state:
\*    {$ne: "live"}}, $setOnInsert ended, upsert); matched, the pull follows (AfterEnd)
\*    ("PullByRead": the pull at once, with the k read now, pinned to the version read)
Cands(c) == {e.s : e \in doc.holders} \ {cs[c].sid}
CanRead(c, k) ==
    /\ cs[c].mode = "Run" /\ Waits(cs[c], k) /\ ~Room(c, k)
    /\ \E S \in Cands(c) : \/ sd[S] # "live"
                           \/ c \in Watchers /\ cs[c].wsid # S
                           \/ faults.stale < MaxStale
Read(c, k) ==
    LET s == cs[c]
        Act(S, seen) ==
            IF seen = "live"
            THEN [s EXCEPT !.wsid = S, !.seen = 0, !.wk = k]
            ELSE IF Variant = "PullByRead"
            THEN [s EXCEPT !.app[k] = Req("Pull", k, NoId, S, SumN(Of(doc.holders, S)), TRUE, 0)]
            ELSE [s EXCEPT !.app[k] = Req("End", k, NoId, S, 0, FALSE, 0)]
    IN
    /\ CanRead(c, k)
    /\ \E S \in Cands(c) :
          \/ /\ sd[S] # "live"
             /\ cs' = [cs EXCEPT ![c] = Act(S, "ended")]
             /\ UNCHANGED faults
          \/ /\ sd[S] = "live" /\ c \in Watchers /\ s.wsid # S
             /\ cs' = [cs EXCEPT ![c] = Act(S, "live")]
             /\ UNCHANGED faults
          \/ /\ sd[S] = "live" /\ faults.stale < MaxStale
             /\ cs' = [cs EXCEPT ![c] = Act(S, "absent")]
             /\ faults' = [faults EXCEPT !.stale = @ + 1]
    /\ UNCHANGED <<doc, sd, net, lastGranted, hist>>

\* Java: the watched session's beat stayed unchanged for its lease + 3 % on the waiter's
\* monotonic clock: SessionDocuments.expire, updateOne({_id: S, state: "live", beat: b},
\* {$set: {state: "ended"}}); the pull (matched) or endUnlessLive (missed) follows.
CanExpire(c) ==
    LET s == cs[c] IN
    /\ s.mode = "Run" /\ s.wsid # NoSid /\ s.seen >= WaitFor /\ Waits(s, s.wk)
Expire(c) ==
    LET s == cs[c] IN
    /\ CanExpire(c)
    /\ cs' = [cs EXCEPT ![c].app[s.wk] = Req("Expire", s.wk, NoId, s.wsid, 0, TRUE, 0)]
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

\* Java: PermitHold.close(), PermitDocuments.release: findOneAndUpdate({_id, holders:
\* {$elemMatch: {owner, permits: n}}}, {$pull: {holders: {owner}}, $inc: {used: -n,
\* version: 1}}), sent once the holder stopped believing.  No fairness: a holder may keep
\* its permits for ever.
Release(c, k) ==
    LET s == cs[c] IN
    /\ c \in Releasers /\ s.mode = "Run" /\ s.am[k] = "Hold" /\ s.app[k] = NoReq
    /\ cs' = [cs EXCEPT ![c] = [s EXCEPT !.am[k] = "Rel", !.tok[k] = 0,
                 !.app[k] = Req("Release", k, s.att[k], NoSid, Size(c, k), FALSE, 0)]]
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

(***************************************************************************)
(* Faults.                                                                 *)
(***************************************************************************)
\* A timeout or error with unknown outcome: the manager gives up on the request, which stays
\* in flight (applied later, or never; its reply, if any, lost).  Reactions:
\*   Grant unknown   -> abandon: release by owner (mode "Clean")
\*   Release unknown -> released as far as the manager knows
\*   Create unknown  -> no session; Renew unknown -> nothing confirmed
\*   Expire, End, Pull unknown -> nothing (the waiter reads again)
GiveUp(s, r) ==
    CASE r.kind = "Grant" /\ s.am[r.k] = "Acq" /\ s.att[r.k] = r.id ->
           [s EXCEPT !.am[r.k] = "Clean",
                     !.app[r.k] = Req("Release", r.k, r.id, NoSid, r.n, FALSE, 0)]
      [] r.kind = "Release" /\ r.k \in Ks /\ s.att[r.k] = r.id ->
           [s EXCEPT !.am[r.k] = IF @ = "Rel" /\ ~Reacquire THEN "Done" ELSE "Wait",
                     !.att[r.k] = NoId]
      [] r.kind = "Create" /\ s.sm = "Creating" ->
           [s EXCEPT !.sm = "None", !.sid = NoSid, !.ren = NoReq]
      [] r.kind \in {"Renew", "Create"} -> [s EXCEPT !.ren = NoReq]
      [] OTHER -> s
InNet(r) == [r EXCEPT !.left = 0]
LoseApp(c, k) ==
    LET r == cs[c].app[k] IN
    /\ faults.lost < MaxLost /\ r # NoReq
    /\ Commit(doc, sd, [cs EXCEPT ![c] = GiveUp([@ EXCEPT !.app[k] = NoReq], r)], net \cup {InNet(r)})
    /\ faults' = [faults EXCEPT !.lost = @ + 1]
    /\ UNCHANGED <<lastGranted, hist>>
LoseRen(c) ==
    LET r == cs[c].ren IN
    /\ faults.lost < MaxLost /\ r # NoReq
    /\ Commit(doc, sd, [cs EXCEPT ![c] = GiveUp(@, r)], net \cup {InNet(r)})
    /\ faults' = [faults EXCEPT !.lost = @ + 1]
    /\ UNCHANGED <<lastGranted, hist>>

\* The process dies (kill -9); its requests in flight may still land; its session stays
\* live until a waiter ends it, and its entries stay until a waiter pulls them.
Crash(c) ==
    /\ c \in Crashers /\ faults.crash < MaxCrashes /\ cs[c].mode = "Run"
    /\ Commit(doc, sd, [cs EXCEPT ![c] = CrashedState(c)],
              net \cup {InNet(r) : r \in SlotReqs(cs[c]) \ {NoReq}})
    /\ faults' = [faults EXCEPT !.crash = @ + 1]
    /\ UNCHANGED <<lastGranted, hist>>

(***************************************************************************)
(* Time: one real tick; manager c's monotonic clock advances Rate(c).      *)
(***************************************************************************)
AdvReq(r, d) == IF r = NoReq THEN r ELSE [r EXCEPT !.left = Sub0(@, d)]
Advance(s, d) ==
    IF s.mode = "Crashed" THEN s
    ELSE [s EXCEPT !.sconf = Sub0(@, d),
                   !.seen  = IF s.wsid # NoSid THEN Min2(@ + d, WaitFor) ELSE 0,
                   !.ren   = AdvReq(@, d)]
Tick ==
    /\ cs' = [c \in Managers |-> Advance(cs[c], Rate(c))]
    /\ cs' # cs
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

(***************************************************************************)
(* The specification.                                                      *)
(***************************************************************************)
Init ==
    /\ doc = [used |-> 0, holders |-> {}, tok |-> 0]
    /\ sd = [s \in Sids |-> "none"]
    /\ cs = [c \in Managers |-> Fresh(c)]
    /\ net = {}
    /\ faults = [crash |-> 0, lost |-> 0, stale |-> 0]
    /\ lastGranted = 0
    /\ hist = [tokensOk |-> TRUE]

Next ==
    \/ Tick \/ ApplyLate
    \/ \E c \in Managers :
          \/ CreateSession(c) \/ Renew(c) \/ Check(c) \/ Expire(c) \/ ApplyRen(c) \/ ApplySwp(c)
          \/ LoseRen(c) \/ Crash(c)
          \/ \E k \in Ks : SendGrant(c, k) \/ Read(c, k) \/ Release(c, k) \/ ApplyApp(c, k)
                           \/ LoseApp(c, k)

\* Time does not stop; the server applies every request a live manager waits for (weak
\* fairness per request slot); the waiters as a whole keep creating sessions, asking for
\* grants when they see room, reading and expiring.  Holders, renewers and the session
\* check get none (a manager may pause, or keep its permits, for ever), except that a
\* check that would find something is eventually made (CheckFair): the Java checks at the
\* renewal after an unknown outcome, and a session that holds permits (an orphan's too) or
\* waits for some is renewed.
\* Written as in MongoLockSessions.tla: WF_vars(A) as "<>[]P => []<><<S>>_vars", P a state
\* predicate equal to ENABLED A and S a step predicate equal to A's steps (TLC evaluated
\* ENABLED and the action itself, each with a Commit, on every transition: 30 s instead of
\* a few for the liveness run).  A slot's request is pending; a step replaces it (by none
\* or a follow-up of another kind: Release after Grant, End after Expire, Pull after
\* either) without a fault (giving up or crashing counts one; the bits a write clears
\* keep the kind).  The waiters' steps: a session asked for (sm "None" -> "Creating"),
\* a grant asked for (am "Wait" -> "Acq"), a new watch (only Read sets wsid to a
\* session), an End, Pull or Expire sent from an empty slot (only Read and Expire do:
\* the follow-ups of a reply replace a request).
WaiterWork == \E c \in Managers : CreateSession(c) \/ Expire(c)
                                   \/ \E k \in Ks : SendGrant(c, k) \/ Read(c, k)
WaiterCanWork ==
    \E c \in Managers : CanCreate(c) \/ CanExpire(c) \/ \E k \in Ks : CanGrant(c, k) \/ CanRead(c, k)
WaiterStep ==
    \E c \in Managers :
        \/ cs[c].sm = "None" /\ cs'[c].sm = "Creating"
        \/ cs'[c].wsid \notin {NoSid, cs[c].wsid}
        \/ \E k \in Ks :
              \/ cs[c].am[k] = "Wait" /\ cs'[c].am[k] = "Acq"
              \/ cs[c].app[k] = NoReq /\ cs'[c].app[k].kind \in {"End", "Pull", "Expire"}
AppStep(c, k) == /\ faults' = faults /\ cs[c].app[k] # NoReq
                 /\ cs'[c].app[k].kind # cs[c].app[k].kind
RenStep(c)    == faults' = faults /\ cs[c].ren # NoReq /\ cs'[c].ren = NoReq
SwpStep(c)    == faults' = faults /\ cs[c].swp # NoReq /\ cs'[c].swp = NoReq
Fairness ==
    /\ WF_vars(Tick)
    /\ \A c \in Managers : CheckFair => WF_vars(Check(c))
    /\ <>[]WaiterCanWork => []<><<WaiterStep>>_vars                    \* WF_vars(WaiterWork)
    /\ \A c \in Managers :
          /\ <>[](cs[c].ren # NoReq) => []<><<RenStep(c)>>_vars       \* WF_vars(ApplyRen(c))
          /\ <>[](cs[c].swp # NoReq) => []<><<SwpStep(c)>>_vars       \* WF_vars(ApplySwp(c))
          /\ \A k \in Ks :
                <>[](cs[c].app[k] # NoReq) => []<><<AppStep(c, k)>>_vars \* WF_vars(ApplyApp(c, k))

Spec == Init /\ [][Next]_vars /\ Fairness

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
Entries == [o : Ids, s : Sids, n : 1..Limit]
TypeOK ==
    /\ doc \in [used : Int, holders : SUBSET Entries, tok : 0..MaxTok]
    /\ \A e, f \in doc.holders : e.o = f.o => e = f
    /\ \A e \in doc.holders : sd[e.s] # "none"
    /\ sd \in [Sids -> {"none", "live", "ended"}]
    /\ cs \in [Managers -> ClientState]
    /\ net \subseteq Requests
    /\ faults \in [crash : 0..MaxCrashes, lost : 0..MaxLost, stale : 0..MaxStale]
    /\ lastGranted = doc.tok

\* The permits of the acquisitions whose isHeld() is true sum to at most the limit.
Believers == {<<c, k>> \in Managers \X Ks : IsHeld(c, k)}
RECURSIVE SumSizes(_)
SumSizes(B) == IF B = {} THEN 0
               ELSE LET b == CHOOSE x \in B : TRUE IN Size(b[1], b[2]) + SumSizes(B \ {b})
AtMostLimitBelievers == SumSizes(Believers) <= Limit

\* Every grant's token is above all earlier ones; no holder has a token beyond the last.
TokensGrow ==
    /\ hist.tokensOk
    /\ \A c \in Managers, k \in Ks : cs[c].am[k] = "Hold" => cs[c].tok[k] <= lastGranted

\* used is the sum of the holders' permits.
UsedIsExact == doc.used = SumN(doc.holders)

\* A crashed manager's entries stay while a live manager waits: eventually a live manager
\* holds permits (an entry whose owner is an acquisition of a running manager), or nobody
\* live waits any more.
CrashedHolds == \E e \in doc.holders : cs[e.o[1]].mode = "Crashed"
Waiting == \E c \in Managers : cs[c].mode = "Run" /\ \E k \in Ks : cs[c].am[k] \in {"Wait", "Acq", "Clean"}
LiveHolds == \E e \in doc.holders : \E c \in Managers :
                 cs[c].mode = "Run" /\ \E k \in Ks : cs[c].att[k] = e.o
CrashedPermitsRegranted == (CrashedHolds /\ Waiting) ~> (LiveHolds \/ ~Waiting)

\* Fairness as written is the weak fairness of WaiterWork: to check by hand after changing
\* an action (not in the build: they evaluate what Fairness avoids).
EnabledAsWritten == WaiterCanWork = ENABLED <<WaiterWork>>_vars
StepsAsWritten == [][WaiterWork <=> WaiterStep]_vars
=============================================================================
