------------------------------ MODULE RWLock ------------------------------
(***************************************************************************)
(* The leased read-write lock (spec/RWLOCK-DESIGN.md): the semaphore's     *)
(* document (Permits.tla) with a fixed large limit L, {_id, limit: L,      *)
(* used, holders: [{owner, session, permits}], version, token, writers,   *)
(* turn}: a read hold is an entry of 1 permit, a write hold an entry of L. *)
(* Sessions, clocks, faults and abstractions as in Permits.tla (capped     *)
(* timers on drifting monotonic clocks, requests applied with a lost       *)
(* reply, late or never, crashes, stale reads of a session, recycled ids,  *)
(* version and beat remembered as "still the document's" bits, tokens      *)
(* renumbered by rank).                                                    *)
(*                                                                         *)
(*  - Read grant: used <= L - 1 and no writer waiting (writers.0 absent).  *)
(*  - Write grant: used <= 0 and (writers.0 absent or writers.0 = me); it  *)
(*    pulls me from writers.                                               *)
(*  - Join: a writer that cannot be granted appends its manager to writers *)
(*    ($addToSet; no version change).                                      *)
(*  - Turn: a waiting head moves turn at least once per real tick          *)
(*    (1 s; the turn grace is 3 s + 3 %); a waiter that could be granted   *)
(*    but for the head, and sees version, head and turn unchanged for the  *)
(*    turn grace on its own clock, takes the head out (compare-and-set on  *)
(*    all three).                                                          *)
(*  - Downgrade: the write holder pushes a 1-permit read entry, filtered   *)
(*    on its own write entry (not on used): used may be L + 1.             *)
(*  - Release by owner; take-back of an ended session's entries after the  *)
(*    sessions' compare-and-set, pinned to the version read: as Permits.   *)
(*  - version + 1 and token + 1 on every grant (the downgrade too).        *)
(*                                                                         *)
(* Re-entry of a mode by its holder and the refused upgrade are local (no  *)
(* store write): not modelled.  The queue writes (join, turn, take-out of  *)
(* a gone head) are atomic steps (they change no holder: a lost or late    *)
(* one only reorders the queue); the grants, releases, downgrades, session *)
(* writes and take-backs are requests, with every fault of Permits.tla.   *)
(***************************************************************************)
EXTENDS Integers, FiniteSets, Sequences

CONSTANTS
    Managers,    \* the lock managers (processes), numbered
    Asks,        \* a set of <<m, k, mode>>: manager m's caller k asks mode "R" (read),
                 \* "W" (write) or "D" (the downgrade of m's write caller: the same
                 \* caller asks read while it holds its write, then releases the write)
    L,           \* the limit: a write entry's permits (a read entry has 1)
    Lease, WaitFor, Slow, Fast, Watchers, Crashers, MaxCrashes, MaxLost, MaxStale,
    MaxSid, MaxId, Releasers, Sweep,
                 \* as in Permits.tla
    Again,       \* the managers whose callers ask again after a release or a loss
                 \* (a stream of readers); the others are done
    TurnGrace,   \* how long (local units) a waiter watches an unchanged head before it
                 \* takes it out; a live head moves turn at least once per real tick,
                 \* needs TurnGrace > Fast (the watch spans more than one tick)
    Variant      \* "Correct"
                 \* | "ReadIgnoresWaitingWriter": the read grant does not check writers
                 \* | "WriteWithoutUsed": the write grant does not check used
                 \* | "DowngradeAsFreshRead": the downgrade is an ordinary read grant
                 \*   (used <= L - 1, no writer waiting), which waits until it matches
                 \* | "PullByRead": a session read as ended or absent authorises the
                 \*   take-back at once, without endUnlessLive

\* The plans the configurations name (Asks <- ...).
\* Manager 1: a stream of two reader callers; manager 2: a writer that downgrades.
AsksStream == {<<1, 1, "R">>, <<1, 2, "R">>, <<2, 1, "W">>, <<2, 2, "D">>}
\* One reader, one writer that downgrades.
AsksReadDown == {<<1, 1, "R">>, <<2, 1, "W">>, <<2, 2, "D">>}
\* One reader, one writer.
AsksReadWrite == {<<1, 1, "R">>, <<2, 1, "W">>}
\* Two writers.
AsksTwoWriters == {<<1, 1, "W">>, <<2, 1, "W">>}

Ks == {a[2] : a \in Asks}
Asked(m, k) == \E a \in Asks : a[1] = m /\ a[2] = k
ModeOf(m, k) == IF Asked(m, k) THEN (CHOOSE a \in Asks : a[1] = m /\ a[2] = k)[3] ELSE "-"
Size(m, k) == IF ModeOf(m, k) = "W" THEN L ELSE 1
Rate(m) == IF m \in Watchers THEN Fast ELSE Slow
Modes == {"R", "W", "D", "-"}

ASSUME /\ Managers \subseteq Nat \ {0} /\ Ks \subseteq Nat \ {0}
       /\ \A a \in Asks : a[1] \in Managers /\ a[3] \in {"R", "W", "D"}
       /\ \A a, b \in Asks : a[1] = b[1] /\ a[2] = b[2] => a = b
       \* a manager has at most one write caller, and a downgrade only beside one
       /\ \A m \in Managers : Cardinality({k \in Ks : ModeOf(m, k) = "W"}) <= 1
       /\ \A m \in Managers : Cardinality({k \in Ks : ModeOf(m, k) = "D"}) <= 1
       /\ \A a \in Asks : a[3] = "D" => \E k \in Ks : ModeOf(a[1], k) = "W"
       /\ L >= 2 /\ Lease >= 1 /\ 1 <= Slow /\ Slow <= Fast /\ WaitFor * Slow >= Lease * Fast
       /\ TurnGrace > Fast
       /\ Watchers \subseteq Managers /\ Crashers \subseteq Managers /\ Releasers \subseteq Managers
       /\ Again \subseteq Managers
       /\ MaxCrashes \in Nat /\ MaxLost \in Nat /\ MaxStale \in Nat /\ MaxSid >= 1 /\ MaxId >= 1
       /\ Sweep \in BOOLEAN
       /\ Variant \in {"Correct", "ReadIgnoresWaitingWriter", "WriteWithoutUsed",
                       "DowngradeAsFreshRead", "PullByRead"}

VARIABLES
    doc,         \* [used, holders: a set of [o, s, n], tok, writers: a sequence of managers]
    sd,          \* sd[s]: session document s's state: "none" | "live" | "ended"
    cs,          \* per-manager state, see ClientState
    net,         \* requests in flight whose manager no longer waits for them
    faults,      \* [crash, lost, stale]: faults so far
    lastGranted, \* history: the token of the last grant
    hist         \* history: [tokensOk: every write grant's token exceeded the last grant's]

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

RECURSIVE SumN(_)
SumN(E) == IF E = {} THEN 0 ELSE LET e == CHOOSE x \in E : TRUE IN e.n + SumN(E \ {e})
Of(E, S) == {e \in E : e.s = S}

\* The queue of waiting writers' managers.
NoWriter == doc.writers = <<>>
HeadIs(m) == doc.writers # <<>> /\ Head(doc.writers) = m
Without(q, m) == SelectSeq(q, LAMBDA x : x # m)
InQueue(m) == \E i \in 1..Len(doc.writers) : doc.writers[i] = m

(***************************************************************************)
(* Requests, one record shape (unused fields: 0 / NoId / NoSid / FALSE).   *)
(*   kind  "Create" | "Renew" | "Expire" | "End" (session document),       *)
(*         "Grant" | "Down" | "Release" | "Pull" (the lock document)       *)
(*   k     the caller it is for; id: Grant, Down: the new owner; Release:  *)
(*         the owner filtered on; wid: Down: the write entry's owner       *)
(*   sid, n, ver, left: as in Permits.tla (n = L: a write grant)           *)
(***************************************************************************)
Req(kind, k, i, w, s, n, v, left) ==
    [kind |-> kind, k |-> k, id |-> i, wid |-> w, sid |-> s, n |-> n, ver |-> v, left |-> left]
NoReq == Req("none", 0, NoId, NoId, NoSid, 0, FALSE, 0)
Kinds == {"Create", "Renew", "Expire", "End", "Grant", "Down", "Release", "Pull"}
Requests == [kind : Kinds, k : Ks \cup {0}, id : Ids \cup {NoId}, wid : Ids \cup {NoId},
             sid : Sids \cup {NoSid}, n : Nat, ver : BOOLEAN, left : 0..Lease]

(***************************************************************************)
(* Manager state: as Permits.tla, and                                      *)
(*  md[k] the caller's mode (constant); ag: the manager asks again         *)
(*  am[k] also "Later": a downgrade caller whose write is not held yet     *)
(*  hw, hseen: the writers' head it watches and the local time since the   *)
(*        read that showed it (version, head, turn unchanged since)        *)
(*  owes  a head that has not moved turn since the last tick               *)
(***************************************************************************)
AmStates == {"Later", "Wait", "Acq", "Hold", "Rel", "Clean", "Done"}
ClientState ==
    [mode : {"Run", "Crashed"}, sm : {"None", "Creating", "Live"},
     sid : Sids \cup {NoSid}, sconf : 0..Lease, ren : Requests \cup {NoReq},
     md : [Ks -> Modes], ag : BOOLEAN,
     am : [Ks -> AmStates],
     att : [Ks -> Ids \cup {NoId}], app : [Ks -> Requests \cup {NoReq}],
     tok : [Ks -> 0..MaxTok],
     wsid : Sids \cup {NoSid}, seen : 0..WaitFor, wk : Ks \cup {0},
     hw : Managers \cup {0}, hseen : 0..TurnGrace, owes : BOOLEAN,
     swp : Requests \cup {NoReq}]

Start(md, k) == CASE md[k] = "D" -> "Later" [] md[k] = "-" -> "Done" [] OTHER -> "Wait"
Fresh(m) == [mode |-> "Run", sm |-> "None", sid |-> NoSid, sconf |-> 0, ren |-> NoReq,
             md |-> [k \in Ks |-> ModeOf(m, k)], ag |-> m \in Again,
             am |-> [k \in Ks |-> Start([j \in Ks |-> ModeOf(m, j)], k)],
             att |-> [k \in Ks |-> NoId], app |-> [k \in Ks |-> NoReq],
             tok |-> [k \in Ks |-> 0], wsid |-> NoSid, seen |-> 0, wk |-> 0,
             hw |-> 0, hseen |-> 0, owes |-> FALSE, swp |-> NoReq]
CrashedState(m) == [Fresh(m) EXCEPT !.mode = "Crashed", !.am = [k \in Ks |-> "Done"]]

\* What caller k does after its hold ended (released or lost) or its downgrade failed.
After(s, k) == IF ~s.ag THEN "Done" ELSE Start(s.md, k)
WK(s) == CHOOSE k \in Ks : s.md[k] = "W"

IsHeld(m, k) ==
    /\ cs[m].mode = "Run" /\ cs[m].am[k] = "Hold" /\ cs[m].sm = "Live" /\ cs[m].sconf > 0

(***************************************************************************)
(* Fresh ids and garbage collection, as in Permits.tla.                    *)
(***************************************************************************)
SlotReqs(s) == {s.ren, s.swp} \cup {s.app[k] : k \in Ks}
AllReqs(c1, n1) == n1 \cup UNION {SlotReqs(c1[x]) : x \in Managers}
SidRefs(d1, c1, n1) ==
    {e.s : e \in d1.holders} \cup {c1[x].sid : x \in Managers} \cup {c1[x].wsid : x \in Managers}
      \cup {r.sid : r \in AllReqs(c1, n1)}
IdRefs == {e.o : e \in doc.holders} \cup {cs[x].att[k] : x \in Managers, k \in Ks}
            \cup {r.id : r \in AllReqs(cs, net)} \cup {r.wid : r \in AllReqs(cs, net)}
FreeIds(m)  == {i \in 1..MaxId : <<m, i>> \notin IdRefs}
FreshId(m)  == <<m, MinOf(FreeIds(m))>>
FreeSids(m) == {i \in 1..MaxSid : <<m, i>> \notin SidRefs(doc, cs, net)}
FreshSid(m) == <<m, MinOf(FreeSids(m))>>

MayMatch(r, d1, s1, gids) ==
    CASE r.kind = "Create"  -> FALSE
      [] r.kind = "Renew"   -> s1[r.sid] = "live"
      [] r.kind = "Expire"  -> r.ver /\ s1[r.sid] = "live"
      [] r.kind = "End"     -> FALSE
      [] r.kind = "Grant"   -> TRUE
      [] r.kind = "Down"    -> TRUE
      [] r.kind = "Release" -> r.id \in {e.o : e \in d1.holders} \/ r.id \in gids
      [] r.kind = "Pull"    -> r.ver
Commit(d1, s1, c1, n1) ==
    LET gids == {q.id : q \in {x \in AllReqs(c1, n1) : x.kind \in {"Grant", "Down"}}}
        n2   == {q \in n1 : MayMatch(q, d1, s1, gids)}
        refs == SidRefs(d1, c1, n2)
    IN  /\ doc' = d1
        /\ cs' = c1
        /\ net' = n2
        /\ sd' = [s \in Sids |-> IF s \in refs THEN s1[s] ELSE "none"]

\* A write moved the version (dw: the head watches restart too) and/or session sw.
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
              !.wk   = IF s.wsid = sw THEN 0 ELSE @,
              !.hw   = IF dw THEN 0 ELSE @,
              !.hseen = IF dw THEN 0 ELSE @]
\* The queue's head or turn changed: every head watch restarts.
Unwatch(c1) == [x \in Managers |-> [c1[x] EXCEPT !.hw = 0, !.hseen = 0]]

(***************************************************************************)
(* The server: filters and updates.                                        *)
(***************************************************************************)
EntryOf(id) == {e \in doc.holders : e.o = id}
IsWrite(r) == r.n = L
ReadFilter == doc.used <= L - 1 /\ (NoWriter \/ Variant = "ReadIgnoresWaitingWriter")
WriteFilter(m) == (doc.used <= 0 \/ Variant = "WriteWithoutUsed") /\ (NoWriter \/ HeadIs(m))
Matches(r) ==
    CASE r.kind = "Create"  -> TRUE
      [] r.kind = "Renew"   -> sd[r.sid] = "live"
      [] r.kind = "Expire"  -> r.ver /\ sd[r.sid] = "live"
      [] r.kind = "End"     -> sd[r.sid] # "live"
      [] r.kind = "Grant" /\ IsWrite(r) ->
             \* {_id, limit: L, used: {$lte: 0}, $or: [{writers.0 absent}, {writers.0: me}]}
             WriteFilter(r.id[1])
      [] r.kind = "Grant"   ->    \* {_id, limit: L, used: {$lte: L - 1}, writers.0 absent}
             ReadFilter
      [] r.kind = "Down"    ->    \* {_id, holders: {$elemMatch: {owner: writeOwner, permits: L}}}
             \E e \in EntryOf(r.wid) : e.n = L
      [] r.kind = "Release" ->    \* {_id, holders: {$elemMatch: {owner, permits: n}}}
             \E e \in EntryOf(r.id) : e.n = r.n
      [] r.kind = "Pull"    ->    \* {_id, version: v}
             r.ver

DocAfter(r) ==
    CASE r.kind \in {"Grant", "Down"} ->
           \* $push entry, $inc {used: n, version: 1, token: 1}; a write grant also
           \* $pull {writers: me}
           [used |-> doc.used + r.n,
            holders |-> doc.holders \cup {[o |-> r.id, s |-> r.sid, n |-> r.n]},
            tok |-> doc.tok + 1,
            writers |-> IF r.kind = "Grant" /\ IsWrite(r) THEN Without(doc.writers, r.id[1])
                        ELSE doc.writers]
      [] r.kind = "Release" ->      \* $pull {holders: {owner}}, $inc {used: -n, version: 1}
           [doc EXCEPT !.holders = @ \ EntryOf(r.id), !.used = @ - r.n]
      [] r.kind = "Pull" ->         \* $pull {holders: {session: S}}, $inc {used: -k, version: 1}
           [doc EXCEPT !.holders = @ \ Of(@, r.sid), !.used = @ - r.n]
      [] OTHER -> doc

SessionLost(s) ==
    [s EXCEPT !.sm = "None", !.sid = NoSid, !.sconf = 0,
              !.am  = [k \in Ks |-> IF @[k] = "Hold" THEN After(s, k) ELSE @[k]],
              !.att = [k \in Ks |-> IF s.am[k] = "Hold" THEN NoId ELSE @[k]],
              !.tok = [k \in Ks |-> IF s.am[k] = "Hold" THEN 0 ELSE @[k]]]
Believes(s, r) == r.sid = s.sid /\ s.sm = "Live" /\ s.sconf > 0
Waits(s, k) == k \in Ks /\ s.am[k] = "Wait" /\ s.app[k] = NoReq /\ s.sm = "Live"
AfterEnd(s, r, m, d1) ==
    IF ~Waits(s, r.k) THEN s
    ELSE IF m THEN LET k == SumN(Of(d1.holders, r.sid)) IN
                   IF k = 0 THEN s
                   ELSE [s EXCEPT !.app[r.k] = Req("Pull", r.k, NoId, NoId, r.sid, k, TRUE, 0)]
    ELSE IF r.kind = "Expire"
         THEN [s EXCEPT !.app[r.k] = Req("End", r.k, NoId, NoId, r.sid, 0, FALSE, 0)]
    ELSE s
Reply(s, r, m, d1) ==
    CASE r.kind = "Create" ->
           IF s.sm = "Creating" /\ s.sid = r.sid THEN [s EXCEPT !.sm = "Live", !.sconf = r.left]
           ELSE s
      [] r.kind = "Renew" ->
           IF ~(s.sm = "Live" /\ s.sid = r.sid) THEN s
           ELSE IF m THEN [s EXCEPT !.sconf = Max2(@, r.left)]
           ELSE SessionLost(s)
      [] r.kind \in {"Grant", "Down"} ->
           IF ~(s.am[r.k] = "Acq" /\ s.att[r.k] = r.id) THEN s
           ELSE IF ~m THEN
                \* a grant that found no room waits on; a downgrade that found no write
                \* entry of its caller fails (the write was lost: the caller is told)
                IF r.kind = "Grant" THEN [s EXCEPT !.am[r.k] = "Wait", !.att[r.k] = NoId]
                ELSE [s EXCEPT !.am[r.k] = After(s, r.k), !.att[r.k] = NoId]
           ELSE IF Believes(s, r) THEN [s EXCEPT !.am[r.k] = "Hold", !.tok[r.k] = d1.tok]
           ELSE [s EXCEPT !.am[r.k] = "Clean",
                          !.app[r.k] = Req("Release", r.k, r.id, NoId, NoSid, r.n, FALSE, 0)]
      [] r.kind = "Release" ->
           IF r.k \in Ks /\ s.att[r.k] = r.id /\ s.am[r.k] \in {"Rel", "Clean"}
           THEN [s EXCEPT !.am[r.k] = IF @ = "Rel" \/ s.md[r.k] = "D" THEN After(s, r.k)
                                      ELSE "Wait",
                          !.att[r.k] = NoId]
           ELSE s
      [] r.kind \in {"Expire", "End"} -> AfterEnd(s, r, m, d1)
      [] OTHER -> s

Apply(r, c, slot) ==
    LET m   == Matches(r)
        \* a write grant that did not match: the caller reads the document and joins
        \* writers (updateOne {$addToSet: {writers: me}}) if it is not there
        join == /\ ~m /\ slot[1] = "app" /\ r.kind = "Grant" /\ IsWrite(r)
                /\ ~InQueue(c) /\ cs[c].am[r.k] = "Acq" /\ cs[c].att[r.k] = r.id
        d0  == CASE m -> DocAfter(r)
                 [] join -> [doc EXCEPT !.writers = Append(@, c)]
                 [] OTHER -> doc
        dw  == m /\ r.kind \in {"Grant", "Down", "Release", "Pull"}
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
        grant == m /\ r.kind \in {"Grant", "Down"}
        toks == {d0.tok} \cup {c0[x].tok[k] : x \in Managers, k \in Ks}
        Rank(t) == IF grant /\ t > 0 THEN Cardinality({u \in toks : 0 < u /\ u <= t}) ELSE t
        d1  == [d0 EXCEPT !.tok = Rank(@)]
        c1  == [x \in Managers |-> [c0[x] EXCEPT !.tok = [k \in Ks |-> Rank(@[k])]]]
        n0  == IF slot[1] = "net" THEN net \ {r} ELSE net
        n1  == IF ~dw /\ sw = NoSid THEN n0 ELSE {StaleReq(q, dw, sw) : q \in n0}
    IN  /\ Commit(d1, s1, c1, n1)
        /\ lastGranted' = IF grant THEN d1.tok ELSE lastGranted
        /\ hist' = [hist EXCEPT !.tokensOk =
                       @ /\ (grant /\ r.kind = "Grant" /\ IsWrite(r) => d0.tok > lastGranted)]
        /\ UNCHANGED faults

ApplyApp(c, k) == cs[c].app[k] # NoReq /\ Apply(cs[c].app[k], c, <<"app", k>>)
ApplyRen(c)    == cs[c].ren # NoReq /\ Apply(cs[c].ren, c, <<"ren">>)
ApplySwp(c)    == cs[c].swp # NoReq /\ Apply(cs[c].swp, c, <<"swp">>)
ApplyLate      == \E r \in net : Apply(r, CHOOSE c \in Managers : TRUE, <<"net">>)

(***************************************************************************)
(* Sessions (as Permits.tla).                                              *)
(***************************************************************************)
Wants(s) == \E k \in Ks : s.am[k] = "Wait"
Active(s) == \E k \in Ks : s.am[k] \notin {"Done", "Later"}

CanCreate(c) ==
    LET s == cs[c] IN
    s.mode = "Run" /\ s.sm = "None" /\ s.ren = NoReq /\ Wants(s) /\ FreeSids(c) # {}
CreateSession(c) ==
    LET s == cs[c] IN
    /\ CanCreate(c)
    /\ LET sid == FreshSid(c) IN
       cs' = [cs EXCEPT ![c] = [s EXCEPT !.sm = "Creating", !.sid = sid,
                                  !.ren = Req("Create", 0, NoId, NoId, sid, 0, FALSE, Lease)]]
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

Renew(c) ==
    LET s == cs[c] IN
    /\ s.mode = "Run" /\ s.sm = "Live" /\ s.ren = NoReq /\ Active(s)
    /\ cs' = [cs EXCEPT ![c].ren = Req("Renew", 0, NoId, NoId, s.sid, 0, FALSE, Lease)]
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

\* The session check: a hold whose entry is gone is lost; an orphan entry of the session
\* is given back by owner (Sweep).
Missing(c) == {k \in Ks : cs[c].am[k] = "Hold" /\ EntryOf(cs[c].att[k]) = {}}
Orphans(c) == {e \in Of(doc.holders, cs[c].sid) : e.o \notin {cs[c].att[k] : k \in Ks}}
Check(c) ==
    LET s  == cs[c]
        s1 == [s EXCEPT !.am  = [k \in Ks |-> IF k \in Missing(c) THEN After(s, k) ELSE @[k]],
                        !.att = [k \in Ks |-> IF k \in Missing(c) THEN NoId ELSE @[k]],
                        !.tok = [k \in Ks |-> IF k \in Missing(c) THEN 0 ELSE @[k]]]
        s2 == IF Sweep /\ s.swp = NoReq /\ Orphans(c) # {}
              THEN LET e == CHOOSE x \in Orphans(c) : TRUE
                   IN  [s1 EXCEPT !.swp = Req("Release", 0, e.o, NoId, NoSid, e.n, FALSE, 0)]
              ELSE s1
    IN
    /\ s.mode = "Run" /\ s.sm = "Live" /\ s2 # s
    /\ cs' = [cs EXCEPT ![c] = s2]
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

(***************************************************************************)
(* Callers, waiters and the writers' queue.                                *)
(***************************************************************************)
\* The grant's filter as the waiter sees it (its poll or a release notice); a grant sent
\* when it cannot match only fails, changing nothing but its own state.  A downgrade
\* caller waits only in DowngradeAsFreshRead (its read grant did not match).
MayGrant(c, k) ==
    IF cs[c].md[k] = "W" THEN WriteFilter(c) ELSE ReadFilter
\* Room for the caller but for the writers' head.
RoomButHead(c, k) ==
    /\ doc.writers # <<>> /\ ~HeadIs(c)
    /\ IF cs[c].md[k] = "W" THEN doc.used <= 0 ELSE doc.used <= L - 1
\* No room whatever the queue: the holders are in the way (their sessions are watched).
NoRoom(c, k) == IF cs[c].md[k] = "W" THEN doc.used > 0 ELSE doc.used > L - 1

\* Java: findOneAndUpdate({_id, limit: L, used: {$lte: L - n}, queue rule}, {$push:
\* {holders: {owner, session, permits: n}}, $inc: {used: n, version: 1, token: 1}, a write
\* also $pull: {writers: me}}, upsert).
CanGrant(c, k) ==
    /\ cs[c].mode = "Run" /\ Waits(cs[c], k) /\ FreeIds(c) # {} /\ MayGrant(c, k)
SendGrant(c, k) ==
    LET s == cs[c]
        a == FreshId(c)
    IN
    /\ CanGrant(c, k)
    /\ cs' = [cs EXCEPT ![c] = [s EXCEPT !.am[k] = "Acq", !.att[k] = a,
                 !.app[k] = Req("Grant", k, a, NoId, s.sid, Size(c, k), FALSE, 0)]]
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

\* Java: a write caller whose grant did not match reads the document and, not finding its
\* manager in writers, joins: updateOne({_id}, {$addToSet: {writers: me}}) (no version
\* change).  Atomic here (a lost join is a join made later: the next read shows it missing).
CanJoin(c) ==
    /\ cs[c].mode = "Run" /\ ~InQueue(c)
    /\ \E k \in Ks : cs[c].md[k] = "W" /\ Waits(cs[c], k) /\ ~WriteFilter(c)
Join(c) ==
    /\ CanJoin(c)
    /\ doc' = [doc EXCEPT !.writers = Append(@, c)]
    /\ cs' = [cs EXCEPT ![c].owes = FALSE]        \* the head stays (or is new: nobody watched)
    /\ UNCHANGED <<sd, net, faults, lastGranted, hist>>

\* Java: the head's waiting caller shows it still waits: updateOne({_id, writers.0: me},
\* {$inc: {turn: 1}}), at least once per tick (1 s; Tick waits for it: a head paused
\* longer is a gone head, modelled by Crash).
LiveHead(c) ==
    /\ cs[c].mode = "Run" /\ HeadIs(c)
    /\ \E k \in Ks : cs[c].md[k] = "W" /\ cs[c].am[k] \in {"Wait", "Acq", "Clean"}
CanTurn(c) == LiveHead(c) /\ cs[c].owes
Turn(c) ==
    /\ CanTurn(c)
    /\ cs' = [Unwatch(cs) EXCEPT ![c].owes = FALSE]
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

\* Java: a waiter that could be granted but for another manager at the head of writers
\* watches (version, head, turn); unchanged for TurnGrace on its own clock, it takes the
\* head out: updateOne({_id, version, writers.0: head, turn}, {$pull: {writers: head}}).
CanWatchHead(c) ==
    /\ doc.writers # <<>> /\ cs[c].mode = "Run" /\ cs[c].hw # Head(doc.writers)
    /\ \E k \in Ks : Waits(cs[c], k) /\ RoomButHead(c, k)
WatchHead(c) ==
    /\ CanWatchHead(c)
    /\ cs' = [cs EXCEPT ![c].hw = Head(doc.writers), ![c].hseen = 0]
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>
CanTakeHead(c) ==
    /\ cs[c].mode = "Run" /\ cs[c].hw # 0 /\ cs[c].hseen >= TurnGrace
    /\ \E k \in Ks : Waits(cs[c], k) /\ RoomButHead(c, k)
TakeHead(c) ==
    /\ CanTakeHead(c)
    /\ doc' = [doc EXCEPT !.writers = Tail(@)]
    /\ cs' = Unwatch(cs)
    /\ UNCHANGED <<sd, net, faults, lastGranted, hist>>

\* Java: the write holder asks read (downgrade): findOneAndUpdate({_id, holders:
\* {$elemMatch: {owner: writeOwner, permits: L}}}, {$push: {holders: {owner, session,
\* permits: 1}}, $inc: {used: 1, version: 1, token: 1}}).  "DowngradeAsFreshRead": the
\* caller asks an ordinary read grant instead (it waits for it as any reader).
CanDown(c, k) ==
    LET s == cs[c] IN
    /\ s.mode = "Run" /\ s.md[k] = "D" /\ s.am[k] = "Later" /\ s.am[WK(s)] = "Hold"
    /\ s.app[k] = NoReq /\ FreeIds(c) # {}
Down(c, k) ==
    LET s == cs[c]
        a == FreshId(c)
    IN
    /\ CanDown(c, k)
    /\ cs' = [cs EXCEPT ![c] =
                IF Variant = "DowngradeAsFreshRead" THEN [s EXCEPT !.am[k] = "Wait"]
                ELSE [s EXCEPT !.am[k] = "Acq", !.att[k] = a,
                        !.app[k] = Req("Down", k, a, s.att[WK(s)], s.sid, 1, FALSE, 0)]]
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

\* Java: the grant found no room: the holders' sessions are read and watched, ended by the
\* sessions' compare-and-set, then their entries taken back pinned to the version read
\* (as Permits.tla).
Cands(c) == {e.s : e \in doc.holders} \ {cs[c].sid}
\* A writer reads the holders' sessions after it joined writers (the same read shows it
\* missing: Try joins first).
CanRead(c, k) ==
    /\ cs[c].mode = "Run" /\ Waits(cs[c], k) /\ NoRoom(c, k)
    /\ cs[c].md[k] = "W" => InQueue(c)
    /\ \E S \in Cands(c) : \/ sd[S] # "live"
                           \/ c \in Watchers /\ cs[c].wsid # S
                           \/ faults.stale < MaxStale
Read(c, k) ==
    LET s == cs[c]
        Act(S, seen) ==
            IF seen = "live"
            THEN [s EXCEPT !.wsid = S, !.seen = 0, !.wk = k]
            ELSE IF Variant = "PullByRead"
            THEN [s EXCEPT !.app[k] = Req("Pull", k, NoId, NoId, S, SumN(Of(doc.holders, S)), TRUE, 0)]
            ELSE [s EXCEPT !.app[k] = Req("End", k, NoId, NoId, S, 0, FALSE, 0)]
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

CanExpire(c) ==
    LET s == cs[c] IN
    /\ s.mode = "Run" /\ s.wsid # NoSid /\ s.seen >= WaitFor /\ Waits(s, s.wk)
Expire(c) ==
    LET s == cs[c] IN
    /\ CanExpire(c)
    /\ cs' = [cs EXCEPT ![c].app[s.wk] = Req("Expire", s.wk, NoId, NoId, s.wsid, 0, TRUE, 0)]
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

\* Java: close() of a hold: release by owner.  A write caller that downgrades releases
\* its write once its read is held (or the downgrade failed).
CanRelease(c, k) ==
    LET s == cs[c] IN
    /\ c \in Releasers /\ s.mode = "Run" /\ s.am[k] = "Hold" /\ s.app[k] = NoReq
    /\ s.md[k] = "W" => \A j \in Ks : s.md[j] = "D" => s.am[j] \in {"Hold", "Done"}
Release(c, k) ==
    LET s == cs[c] IN
    /\ CanRelease(c, k)
    /\ cs' = [cs EXCEPT ![c] = [s EXCEPT !.am[k] = "Rel", !.tok[k] = 0,
                 !.app[k] = Req("Release", k, s.att[k], NoId, NoSid, Size(c, k), FALSE, 0)]]
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

(***************************************************************************)
(* Faults (as Permits.tla; an unknown downgrade is abandoned by owner).    *)
(***************************************************************************)
GiveUp(s, r) ==
    CASE r.kind \in {"Grant", "Down"} /\ s.am[r.k] = "Acq" /\ s.att[r.k] = r.id ->
           [s EXCEPT !.am[r.k] = "Clean",
                     !.app[r.k] = Req("Release", r.k, r.id, NoId, NoSid, r.n, FALSE, 0)]
      [] r.kind = "Release" /\ r.k \in Ks /\ s.att[r.k] = r.id ->
           [s EXCEPT !.am[r.k] = IF @ = "Rel" \/ s.md[r.k] = "D" THEN After(s, r.k) ELSE "Wait",
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

\* The process dies: its requests may still land, its entries and its place in writers stay.
Crash(c) ==
    /\ c \in Crashers /\ faults.crash < MaxCrashes /\ cs[c].mode = "Run"
    /\ Commit(doc, sd, [cs EXCEPT ![c] = CrashedState(c)],
              net \cup {InNet(r) : r \in SlotReqs(cs[c]) \ {NoReq}})
    /\ faults' = [faults EXCEPT !.crash = @ + 1]
    /\ UNCHANGED <<lastGranted, hist>>

(***************************************************************************)
(* Time: one real tick (about a second); c's clock advances Rate(c).  A    *)
(* live head has moved turn since the last tick (else time waits for it).  *)
(***************************************************************************)
AdvReq(r, d) == IF r = NoReq THEN r ELSE [r EXCEPT !.left = Sub0(@, d)]
Advance(s, c, d) ==
    IF s.mode = "Crashed" THEN s
    ELSE [s EXCEPT !.sconf = Sub0(@, d),
                   !.seen  = IF s.wsid # NoSid THEN Min2(@ + d, WaitFor) ELSE 0,
                   !.hseen = IF s.hw # 0 THEN Min2(@ + d, TurnGrace) ELSE 0,
                   !.owes  = LiveHead(c),
                   !.ren   = AdvReq(@, d)]
Tick ==
    /\ \A c \in Managers : LiveHead(c) => ~cs[c].owes
    /\ cs' = [c \in Managers |-> Advance(cs[c], c, Rate(c))]
    /\ cs' # cs
    /\ UNCHANGED <<doc, sd, net, faults, lastGranted, hist>>

(***************************************************************************)
(* The specification.                                                      *)
(***************************************************************************)
Init ==
    /\ doc = [used |-> 0, holders |-> {}, tok |-> 0, writers |-> <<>>]
    /\ sd = [s \in Sids |-> "none"]
    /\ cs = [c \in Managers |-> Fresh(c)]
    /\ net = {}
    /\ faults = [crash |-> 0, lost |-> 0, stale |-> 0]
    /\ lastGranted = 0
    /\ hist = [tokensOk |-> TRUE]

\* A caller's try: its grant, or for a writer that cannot be granted the join.
Try(c, k) == SendGrant(c, k) \/ (cs[c].md[k] = "W" /\ Join(c))
WaiterWork(c) ==
    \/ CreateSession(c) \/ Expire(c) \/ WatchHead(c) \/ TakeHead(c)
    \/ \E k \in Ks : Try(c, k) \/ Read(c, k) \/ Down(c, k)
Next ==
    \/ Tick \/ ApplyLate
    \/ \E c \in Managers :
          \/ WaiterWork(c) \/ Turn(c) \/ Renew(c) \/ Check(c) \/ ApplyRen(c) \/ ApplySwp(c)
          \/ LoseRen(c) \/ Crash(c)
          \/ \E k \in Ks : Release(c, k) \/ ApplyApp(c, k) \/ LoseApp(c, k)

\* Time does not stop; the server applies every request a live manager waits for; each
\* manager's waiters keep working (weak fairness per manager: a writer's join and turn
\* are not crowded out by a busy reader manager); the Releasers' holders finish (weak
\* fairness of their releases: readers that keep arriving and finish).  Renewals and the
\* session check get none.
\* Written as in Permits.tla: WF_vars(A) as "<>[]P => []<><<S>>_vars", P a state predicate
\* equal to ENABLED A and S a step predicate that holds on A's steps (TLC evaluates ENABLED
\* and the action, each with a Commit, on every transition otherwise: more than a minute for
\* a thousand states).  The waiter's steps: a session asked for, a grant or a downgrade
\* asked for, a new session or head watch, an End, Pull or Expire sent from an empty slot,
\* a head taken out.  A caller's try (its grant, or a writer's join) and the head's turn
\* each have their own weak fairness: in the waiters' they could stand for all the rest (TLC
\* found both: a head that keeps moving its turn and never expires the session it watched;
\* a writer that keeps watching the reader's session and never asks or joins).
WaiterCanWork(c) ==
    \/ CanCreate(c) \/ CanExpire(c) \/ CanWatchHead(c) \/ CanTakeHead(c)
    \/ \E k \in Ks : CanRead(c, k) \/ CanDown(c, k)
CanTry(c, k) == CanGrant(c, k) \/ (cs[c].md[k] = "W" /\ CanJoin(c))
WaiterStep(c) ==
    \/ cs[c].sm = "None" /\ cs'[c].sm = "Creating"
    \/ cs'[c].wsid \notin {NoSid, cs[c].wsid}
    \/ \E k \in Ks :
          \/ cs[c].am[k] = "Later" /\ cs'[c].am[k] \in {"Acq", "Wait"}
          \/ cs[c].app[k] = NoReq /\ cs'[c].app[k].kind \in {"End", "Pull", "Expire"}
    \/ cs'[c].hw \notin {0, cs[c].hw}
    \/ /\ CanTakeHead(c) /\ doc'.writers = Tail(doc.writers)
       /\ doc'.holders = doc.holders /\ doc.writers # <<>>
AppStep(c, k) == /\ faults' = faults /\ cs[c].app[k] # NoReq
                 /\ cs'[c].app[k].kind # cs[c].app[k].kind
RenStep(c)    == faults' = faults /\ cs[c].ren # NoReq /\ cs'[c].ren = NoReq
SwpStep(c)    == faults' = faults /\ cs[c].swp # NoReq /\ cs'[c].swp = NoReq
TryStep(c, k) == \/ cs[c].am[k] = "Wait" /\ cs'[c].am[k] = "Acq"
                 \/ cs[c].md[k] = "W" /\ ~InQueue(c) /\ \E i \in 1..Len(doc'.writers) : doc'.writers[i] = c
TurnStep(c)   == cs[c].owes /\ ~cs'[c].owes /\ cs'[c].mode = "Run" /\ doc' = doc
RelStep(c, k) == cs[c].am[k] = "Hold" /\ cs'[c].am[k] = "Rel"
Fairness ==
    /\ WF_vars(Tick)
    /\ \A c \in Managers :
          /\ <>[]CanTurn(c) => []<><<TurnStep(c)>>_vars                  \* WF_vars(Turn(c))
          /\ <>[]WaiterCanWork(c) => []<><<WaiterStep(c)>>_vars          \* WF_vars(WaiterWork(c))
          /\ <>[](cs[c].ren # NoReq) => []<><<RenStep(c)>>_vars         \* WF_vars(ApplyRen(c))
          /\ <>[](cs[c].swp # NoReq) => []<><<SwpStep(c)>>_vars         \* WF_vars(ApplySwp(c))
          /\ \A k \in Ks :
                /\ <>[]CanTry(c, k) => []<><<TryStep(c, k)>>_vars              \* WF_vars(Try(c, k))
                /\ <>[](cs[c].app[k] # NoReq) => []<><<AppStep(c, k)>>_vars \* WF_vars(ApplyApp(c, k))
                /\ c \in Releasers =>
                      (<>[]CanRelease(c, k) => []<><<RelStep(c, k)>>_vars) \* WF_vars(Release(c, k))

Spec == Init /\ [][Next]_vars /\ Fairness

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
Entries == [o : Ids, s : Sids, n : {1, L}]
TypeOK ==
    /\ doc \in [used : Int, holders : SUBSET Entries, tok : 0..MaxTok, writers : Seq(Managers)]
    /\ \A i, j \in 1..Len(doc.writers) : doc.writers[i] = doc.writers[j] => i = j
    /\ \A e, f \in doc.holders : e.o = f.o => e = f
    /\ \A e \in doc.holders : sd[e.s] # "none"
    /\ sd \in [Sids -> {"none", "live", "ended"}]
    /\ cs \in [Managers -> ClientState]
    /\ net \subseteq Requests
    /\ faults \in [crash : 0..MaxCrashes, lost : 0..MaxLost, stale : 0..MaxStale]
    /\ lastGranted = doc.tok

Believed(m) == {k \in Ks : IsHeld(m, k)}
BelievesWrite(m, k) == IsHeld(m, k) /\ cs[m].md[k] = "W"
BelievesRead(m, k) == IsHeld(m, k) /\ cs[m].md[k] \in {"R", "D"}
\* The same caller: a write caller and its downgrade.
SameCaller(m, k, n, j) == m = n /\ (k = j \/ {cs[m].md[k], cs[n].md[j]} = {"W", "D"})

\* No instant at which a believed writer and a believed reader of another caller coexist.
NoWriterWithReader ==
    \A m, n \in Managers : \A k, j \in Ks :
        BelievesWrite(m, k) /\ BelievesRead(n, j) => SameCaller(m, k, n, j)
AtMostOneWriter ==
    \A m, n \in Managers : \A k, j \in Ks :
        BelievesWrite(m, k) /\ BelievesWrite(n, j) => m = n /\ k = j
\* Every write grant's token exceeds every earlier grant's; no holder's token is beyond the last.
WriteTokensGrow ==
    /\ hist.tokensOk
    /\ \A c \in Managers, k \in Ks : cs[c].am[k] = "Hold" => cs[c].tok[k] <= lastGranted
UsedIsExact == doc.used = SumN(doc.holders)

Running(c) == cs[c].mode = "Run"
\* A waiting write caller that stays alive is eventually granted (its write entry lands).
WriterWaits(c, k) == Running(c) /\ cs[c].md[k] = "W" /\ cs[c].am[k] = "Wait"
WriterGranted(c) == \E e \in doc.holders : e.o[1] = c /\ e.n = L
WaitingWriterEventuallyGranted ==
    \A c \in Managers, k \in Ks : WriterWaits(c, k) ~> (WriterGranted(c) \/ ~Running(c))

\* A crashed manager's entries, or its place at the head of writers, stay while a live
\* manager waits: eventually a live manager holds (has an entry), or nobody live waits.
CrashedHolds == \/ \E e \in doc.holders : cs[e.o[1]].mode = "Crashed"
                \/ doc.writers # <<>> /\ cs[Head(doc.writers)].mode = "Crashed"
Waiting == \E c \in Managers : Running(c) /\ \E k \in Ks : cs[c].am[k] \in {"Wait", "Acq", "Clean"}
LiveHolds == \E e \in doc.holders : \E c \in Managers :
                 Running(c) /\ \E k \in Ks : cs[c].att[k] = e.o
CrashedHoldersRegranted == (CrashedHolds /\ Waiting) ~> (LiveHolds \/ ~Waiting)

\* A downgrade never waits: once asked, it is answered (granted, or failed because the
\* write was lost).
DownAsked(c, k) == Running(c) /\ cs[c].md[k] = "D" /\ cs[c].am[k] \in {"Wait", "Acq"}
DowngradeAnswered == \A c \in Managers, k \in Ks : DownAsked(c, k) ~> ~DownAsked(c, k)

\* Fairness as written: to check by hand after changing an action (not in the build).
EnabledAsWritten == \A c \in Managers : WaiterCanWork(c) = ENABLED <<WaiterWork(c)>>_vars
StepsAsWritten == \A c \in Managers : [][WaiterWork(c) => WaiterStep(c)]_vars
    \* (WaiterWork less the tries: check with Try taken out of it)
=============================================================================
