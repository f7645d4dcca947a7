----------------------------- MODULE LockFrees -----------------------------
(***************************************************************************)
(* Who may free or take a lock from whom (issue 31, defects 3 and 5): the  *)
(* paths of the Java code that free or take a lock without being its       *)
(* holder, next to holders of two formats.                                 *)
(*                                                                         *)
(*  - Session holders (this version): lock documents with a session lease  *)
(*    id ("s...") and the session they are held under; a manager has      *)
(*    several sessions at once (one per lease length) and opens a new one  *)
(*    after one lapsed.                                                    *)
(*  - Holders of the previous version (rolling upgrade): lease id "b...",  *)
(*    no session of their own; each renews its own lock document.  Such a  *)
(*    document may carry a `session` left by an earlier holder (the old    *)
(*    code never writes that field): how it came there is not modelled,    *)
(*    its value is any session that exists (as WeakerThanLinearizableTest  *)
(*    inserts one).                                                        *)
(*  - The session check (with a renewal): find the session's locks, report *)
(*    a held lock not found (an operator released it), abandon one whose   *)
(*    owner the manager does not know (an orphan).                         *)
(*  - The clean-up of ended sessions (IdleLockCleaner.removeEndedSessions): *)
(*    find the ended sessions, free their locks by one multi-document      *)
(*    update (each document on its own, in any order, possibly missed: a   *)
(*    chunk migration), remove the session documents.                      *)
(*  - An operator's forced release (LockAdmin.forceRelease): read the      *)
(*    lock, free it by a compare-and-set on the owner read, then signal    *)
(*    the holder's session ($inc checks), which its next renewal sees.     *)
(*  - A take of a lock whose session document is ended or gone: the        *)
(*    waiter's end-unless-live upsert (a tombstone where the document was  *)
(*    removed), then its compare-and-set on the lock.                      *)
(*                                                                         *)
(* No clocks: what the lease models (MongoLock.tla, MongoLockSessions.tla) *)
(* prove about time is taken as given here.  A session holder believes a   *)
(* lock while its grant's session is confirmed by its manager (conf); a    *)
(* session's confirmed lease may run out (Lapse), and only a session not   *)
(* confirmed by its manager can be ended by a waiter's watch               *)
(* (MongoLockSessions: BelieverSessionLive).  A previous-version holder    *)
(* believes until its own lease runs out (OldLapse), and only then may a   *)
(* waiter take its lock over (MongoLock: AtMostOneBeliever).               *)
(*                                                                         *)
(* Checked: AtMostOneBeliever, except an acquisition an operator released  *)
(* (it may believe until it learns: a forced release is an override);      *)
(* ForcedAsRead: a forced release frees the acquisition the operator read *)
(* and no other; ToldAtNextRenewal: a session holder whose lock an         *)
(* operator released believes no more once its session was renewed after  *)
(* the operator's call returned.                                           *)
(*                                                                         *)
(* Variants: "Correct"; "CheckBySession" (the session check selects by     *)
(* session alone, not by session and a session lease id); "CleanBySession" *)
(* (the same for the clean-up of ended sessions); "ForceById" (the forced  *)
(* release's filter without the owner read); "NoSignal" (the forced       *)
(* release does not signal the holder's session); "AnySession" (a grant    *)
(* believed while any session of its manager is confirmed, not its own).  *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS
    Managers,    \* nodes of this version (model values)
    Olds,        \* nodes of the previous version (model values; {}: none)
    Locks,       \* lock names (numbers)
    MaxSess,     \* sessions per manager (each opened at most once)
    MaxId,       \* acquisition ids per node (recycled when unreferenced)
    MaxOrphans,  \* grants that land unknown to their manager (lost answer, late write)
    MaxForced,   \* forced releases
    WithCheck,   \* TRUE: renewals run the session check
    WithClean,   \* TRUE: the clean-up of ended sessions runs
    Variant

ASSUME Variant \in {"Correct", "CheckBySession", "CleanBySession", "ForceById", "NoSignal",
                    "AnySession"}
ASSUME WithCheck \in BOOLEAN /\ WithClean \in BOOLEAN

Nodes == Managers \cup Olds
Ids   == Nodes \X (1..MaxId)
Sids  == Managers \X (1..MaxSess)
NoId  == <<"none", 0>>
NoSid == <<"none", 0>>
Mine(m) == {s \in Sids : s[1] = m}

VARIABLES
    lk,       \* lk[l]: [owner, fmt ("s": session lease id, "b": previous version, "-": free),
              \*        sess: the `session` field]
    sd,       \* sd[s]: the session document: "unopened", "live", "ended", "removed"
    conf,     \* conf[s]: its manager counts its lease confirmed
    sig,      \* sig[s]: its checks counter moved since its manager's last renewal
    hold,     \* hold[m][l]: [id, s] the acquisition manager m holds l with (id NoId: none)
    ohold,    \* ohold[o][l]: [id, bel] the acquisition previous-version node o holds l
              \* with, and whether its own lease runs
    opr,      \* the operator: [ph: "idle" | "read" | "freed", l, id, s, fmt]
    cl,       \* the clean-up: [ph: "idle" | "free", ended: the sessions it found ended]
    revoked,  \* history: acquisitions an operator released while their holder had them
    done,     \* history: those whose forced release returned saying the session was told
    renewed,  \* history: those whose session was renewed after that
    count,    \* [orphans, forced] so far
    forcedOk  \* history: every forced release freed the acquisition read

vars == <<lk, sd, conf, sig, hold, ohold, opr, cl, revoked, done, renewed, count, forcedOk>>

NoHold == [id |-> NoId, s |-> NoSid]
NoOld  == [id |-> NoId, bel |-> FALSE]
Free   == [owner |-> NoId, fmt |-> "-", sess |-> NoSid]
NoOpr  == [ph |-> "idle", l |-> 0, id |-> NoId, s |-> NoSid, fmt |-> "-"]

TypeOK ==
    /\ lk \in [Locks -> [owner : Ids \cup {NoId}, fmt : {"s", "b", "-"}, sess : Sids \cup {NoSid}]]
    /\ \A l \in Locks : (lk[l].owner = NoId) <=> (lk[l].fmt = "-")
    /\ sd \in [Sids -> {"unopened", "live", "ended", "removed"}]
    /\ conf \in [Sids -> BOOLEAN] /\ sig \in [Sids -> BOOLEAN]
    /\ \A s \in Sids : conf[s] => sd[s] = "live"
    /\ hold \in [Managers -> [Locks -> [id : Ids \cup {NoId}, s : Sids \cup {NoSid}]]]
    /\ ohold \in [Olds -> [Locks -> [id : Ids \cup {NoId}, bel : BOOLEAN]]]
    /\ opr \in [ph : {"idle", "read", "freed"}, l : Locks \cup {0}, id : Ids \cup {NoId},
                s : Sids \cup {NoSid}, fmt : {"s", "b", "-"}]
    /\ cl \in [ph : {"idle", "free"}, ended : SUBSET Sids]
    /\ revoked \subseteq Ids /\ done \subseteq Ids /\ renewed \subseteq Ids
    /\ count \in [orphans : 0..MaxOrphans, forced : 0..MaxForced]
    /\ forcedOk \in BOOLEAN

Init ==
    /\ lk = [l \in Locks |-> Free]
    /\ sd = [s \in Sids |-> "unopened"]
    /\ conf = [s \in Sids |-> FALSE] /\ sig = [s \in Sids |-> FALSE]
    /\ hold = [m \in Managers |-> [l \in Locks |-> NoHold]]
    /\ ohold = [o \in Olds |-> [l \in Locks |-> NoOld]]
    /\ opr = NoOpr
    /\ cl = [ph |-> "idle", ended |-> {}]
    /\ revoked = {} /\ done = {} /\ renewed = {}
    /\ count = [orphans |-> 0, forced |-> 0]
    /\ forcedOk = TRUE

(***************************************************************************)
(* Ids and beliefs.                                                        *)
(***************************************************************************)
IdRefs == {lk[l].owner : l \in Locks} \cup {hold[m][l].id : m \in Managers, l \in Locks}
            \cup {ohold[o][l].id : o \in Olds, l \in Locks} \cup {opr.id}
FreeIds(n) == {k \in 1..MaxId : <<n, k>> \notin IdRefs}
FreshId(n) == <<n, CHOOSE k \in FreeIds(n) : \A j \in FreeIds(n) : k <= j>>

\* isHeld() of a session holder: its grant's session confirmed ("AnySession": any session
\* of its manager).
Believes(m, l) ==
    /\ hold[m][l].id # NoId
    /\ IF Variant = "AnySession" THEN \E s \in Mine(m) : conf[s] ELSE conf[hold[m][l].s]
OldBelieves(o, l) == ohold[o][l].id # NoId /\ ohold[o][l].bel
\* The acquisitions that believe they hold l.
Believers(l) == {hold[m][l].id : m \in {x \in Managers : Believes(x, l)}}
                  \cup {ohold[o][l].id : o \in {x \in Olds : OldBelieves(x, l)}}
\* An acquisition of the previous version whose own lease still runs.
OldLive(id) == \E o \in Olds, l \in Locks : ohold[o][l].id = id /\ ohold[o][l].bel

IdRefsAfter(l1, h1, o1, p1) ==
    {l1[l].owner : l \in Locks} \cup {h1[m][l].id : m \in Managers, l \in Locks}
      \cup {o1[o][l].id : o \in Olds, l \in Locks} \cup {p1.id}
\* The new documents, holders and operator, with the histories rv, dn, rn; an id nothing
\* refers to any more is dropped from them (a recycled id is a new acquisition).
Commit(l1, h1, o1, p1, rv, dn, rn) ==
    LET refs == IdRefsAfter(l1, h1, o1, p1) IN
    /\ lk' = l1 /\ hold' = h1 /\ ohold' = o1 /\ opr' = p1
    /\ revoked' = rv \cap refs /\ done' = dn \cap refs /\ renewed' = rn \cap refs
Set(l1, h1, o1, p1) == Commit(l1, h1, o1, p1, revoked, done, renewed)

(***************************************************************************)
(* Sessions of this version.                                               *)
(***************************************************************************)
\* Sessions.forGrant: updateOne({_id: {mongolock: "session", id: new}}, $setOnInsert
\* {state: "live", ...}, upsert): a new id, so it inserts.  Its lease counts from the send.
Open(m, s) ==
    /\ s \in Mine(m) /\ sd[s] = "unopened"
    /\ sd' = [sd EXCEPT ![s] = "live"] /\ conf' = [conf EXCEPT ![s] = TRUE]
    /\ UNCHANGED <<lk, sig, hold, ohold, opr, cl, revoked, done, renewed, count, forcedOk>>

\* The session's confirmed lease runs out (its renewals failed or came late, the manager
\* paused): isHeld() of every lock of it is false from then on.  The documents stay held
\* under it until it is ended and a waiter takes them, or the clean-up frees them.
Lapse(m, s) ==
    /\ s \in Mine(m) /\ conf[s]
    /\ conf' = [conf EXCEPT ![s] = FALSE]
    /\ UNCHANGED <<lk, sd, sig, hold, ohold, opr, cl, revoked, done, renewed, count, forcedOk>>

\* SessionRenewer.lapsed / ended: LeaseLosses.sessionLost marks a hold of a session no
\* longer confirmed lost (LEASE_LOST); the manager no longer counts it held.  (When, is
\* LeaseLosses.tla's subject: it may come late.)
Report(m, l) ==
    /\ hold[m][l].id # NoId /\ ~conf[hold[m][l].s]
    /\ Set(lk, [hold EXCEPT ![m][l] = NoHold], ohold, opr)
    /\ UNCHANGED <<sd, conf, sig, cl, count, forcedOk>>

\* The end of a session its manager no longer counts confirmed: the manager's own
\* updateOne({_id: S, state: "live"}, ended) after a lapse, or a waiter's compare-and-set
\* on the beat it watched unchanged for the lease + margin (which, by MongoLockSessions.tla,
\* only ever matches a session whose manager's confirmed lease is over).
End(s) ==
    /\ sd[s] = "live" /\ ~conf[s]
    /\ sd' = [sd EXCEPT ![s] = "ended"]
    /\ UNCHANGED <<lk, conf, sig, hold, ohold, opr, cl, revoked, done, renewed, count, forcedOk>>

\* The locks the session check and the clean-up select for the sessions S: by session and a
\* session lease id (the fix: HeldBySession.heldUnder), or by session alone.
Selected(l, S, bySessionAlone) ==
    /\ lk[l].owner # NoId /\ lk[l].sess \in S
    /\ bySessionAlone \/ lk[l].fmt = "s"

\* SessionRenewer: findOneAndUpdate({_id: S, state: "live"}, {$inc: {beat: 1}}).  It
\* matches: a session its manager counts confirmed is live (End needs it unconfirmed).
\* When the checks counter moved (an operator's signal), and at any other renewal the model
\* chooses (after an unknown outcome, every 60th), the session check: find the locks held
\* under S, report each lock the manager holds under S that is not found (lost: an
\* operator released it), abandon each found whose owner the manager does not know
\* (updateOne({_id, owner}, free)).
Renew(m, s, check) ==
    LET found     == {l \in Locks : Selected(l, {s}, Variant = "CheckBySession")}
        known     == {hold[m][l].id : l \in Locks}
        checks    == WithCheck /\ (check \/ sig[s])
        lost(l)   == hold[m][l].s = s /\ (l \notin found \/ lk[l].owner # hold[m][l].id)
        orphan(l) == l \in found /\ lk[l].owner \notin known
        under     == {hold[m][l].id : l \in {k \in Locks : hold[m][k].s = s}}
    IN
    /\ s \in Mine(m) /\ conf[s] /\ sd[s] = "live"   \* (conf implies live: TypeOK)
    /\ sig' = [sig EXCEPT ![s] = FALSE]
    /\ Commit(IF checks THEN [l \in Locks |-> IF orphan(l) THEN Free ELSE lk[l]] ELSE lk,
              IF checks THEN [hold EXCEPT ![m] = [l \in Locks |-> IF lost(l) THEN NoHold ELSE @[l]]]
              ELSE hold,
              ohold, opr, revoked, done, renewed \cup (under \cap done))
    /\ UNCHANGED <<sd, conf, cl, count, forcedOk>>

(***************************************************************************)
(* Grants to session holders.                                              *)
(***************************************************************************)
\* tryAcquire: findOneAndUpdate({_id, holds: 0}, take under session s): believed (the
\* session confirmed at the answer).
Acquire(m, l, s) ==
    LET a == FreshId(m) IN
    /\ s \in Mine(m) /\ conf[s] /\ lk[l].owner = NoId /\ hold[m][l].id = NoId /\ FreeIds(m) # {}
    /\ Set([lk EXCEPT ![l] = [owner |-> a, fmt |-> "s", sess |-> s]],
           [hold EXCEPT ![m][l] = [id |-> a, s |-> s]], ohold, opr)
    /\ UNCHANGED <<sd, conf, sig, cl, count, forcedOk>>

\* The same grant landing where its manager does not know it (its answer lost and the
\* abandon missed it, or a late write): under any session of the manager that was ever
\* opened, whatever its state now.
Orphan(m, l, s) ==
    LET a == FreshId(m) IN
    /\ s \in Mine(m) /\ sd[s] # "unopened" /\ lk[l].owner = NoId /\ count.orphans < MaxOrphans
    /\ FreeIds(m) # {}
    /\ Set([lk EXCEPT ![l] = [owner |-> a, fmt |-> "s", sess |-> s]], hold, ohold, opr)
    /\ count' = [count EXCEPT !.orphans = @ + 1]
    /\ UNCHANGED <<sd, conf, sig, cl, forcedOk>>

\* takeOver of a session lock: the session read ended or gone (or the beat CAS failed), so
\* SessionDocuments.endUnlessLive: findOneAndUpdate({_id: S, state: {$ne: "live"}},
\* $setOnInsert ended, upsert), which matches an ended S, inserts an ended tombstone where
\* S is gone, and fails on a live S; then the compare-and-set on the lock's state.
TakeSession(m, l, s) ==
    LET a == FreshId(m)
        S == lk[l].sess
    IN
    /\ s \in Mine(m) /\ conf[s] /\ hold[m][l].id = NoId /\ FreeIds(m) # {}
    /\ lk[l].fmt = "s" /\ sd[S] # "live"
    /\ sd' = [sd EXCEPT ![S] = "ended"]
    /\ Set([lk EXCEPT ![l] = [owner |-> a, fmt |-> "s", sess |-> s]],
           [hold EXCEPT ![m][l] = [id |-> a, s |-> s]], ohold, opr)
    /\ UNCHANGED <<conf, sig, cl, count, forcedOk>>

\* takeOver of a previous version's lock, watched by its own state for its lease: only
\* once its holder's lease is over (or its holder is gone).
TakeOld(m, l, s) ==
    LET a == FreshId(m) IN
    /\ s \in Mine(m) /\ conf[s] /\ hold[m][l].id = NoId /\ FreeIds(m) # {}
    /\ lk[l].fmt = "b" /\ ~OldLive(lk[l].owner)
    /\ Set([lk EXCEPT ![l] = [owner |-> a, fmt |-> "s", sess |-> s]],
           [hold EXCEPT ![m][l] = [id |-> a, s |-> s]], ohold, opr)
    /\ UNCHANGED <<sd, conf, sig, cl, count, forcedOk>>

\* The last release: updateOne({_id, owner, version}, free: owner null, holds 0, $unset
\* session).  (Whether it matched, the manager no longer holds the lock.)
Release(m, l) ==
    LET h == hold[m][l] IN
    /\ h.id # NoId
    /\ Set(IF lk[l].owner = h.id THEN [lk EXCEPT ![l] = Free] ELSE lk,
           [hold EXCEPT ![m][l] = NoHold], ohold, opr)
    /\ UNCHANGED <<sd, conf, sig, cl, count, forcedOk>>

(***************************************************************************)
(* Holders of the previous version.                                        *)
(***************************************************************************)
\* Its acquire, {_id, holds: 0}, upsert; it writes owner, holds, leaseId "b...", beat, and
\* never `session`: the document may carry one left by an earlier holder (see the header).
OldAcquire(o, l) ==
    LET a == FreshId(o) IN
    /\ lk[l].owner = NoId /\ ohold[o][l].id = NoId /\ FreeIds(o) # {}
    /\ \E x \in {lk[l].sess, NoSid} \cup {s \in Sids : sd[s] \in {"live", "ended"}} :
          Set([lk EXCEPT ![l] = [owner |-> a, fmt |-> "b", sess |-> x]], hold,
              [ohold EXCEPT ![o][l] = [id |-> a, bel |-> TRUE]], opr)
    /\ UNCHANGED <<sd, conf, sig, cl, count, forcedOk>>

\* Its takeover of a lock of its own version, after its holder's lease is over; `session`
\* untouched.  (It never takes a session lock: their leaseMs is a century.)
OldTake(o, l) ==
    LET a == FreshId(o) IN
    /\ ohold[o][l].id = NoId /\ FreeIds(o) # {}
    /\ lk[l].fmt = "b" /\ ~OldLive(lk[l].owner)
    /\ Set([lk EXCEPT ![l] = [owner |-> a, fmt |-> "b", sess |-> lk[l].sess]], hold,
           [ohold EXCEPT ![o][l] = [id |-> a, bel |-> TRUE]], opr)
    /\ UNCHANGED <<sd, conf, sig, cl, count, forcedOk>>

\* Its own lease runs out (paused, cut off, crashed): it stops believing.
OldLapse(o, l) ==
    /\ ohold[o][l].bel
    /\ ohold' = [ohold EXCEPT ![o][l].bel = FALSE]
    /\ UNCHANGED <<lk, sd, conf, sig, hold, opr, cl, revoked, done, renewed, count, forcedOk>>

\* Its renewal, updateOne({_id, owner, leaseId}, {$inc: {beat: 1}}), misses: the lock is
\* not its own any more, and it stops believing.  (A renewal that matches changes nothing
\* here: belief lasts until OldLapse.)
OldLearns(o, l) ==
    /\ ohold[o][l].id # NoId /\ lk[l].owner # ohold[o][l].id
    /\ Set(lk, hold, [ohold EXCEPT ![o][l] = NoOld], opr)
    /\ UNCHANGED <<sd, conf, sig, cl, count, forcedOk>>

\* Its release: owner null, holds 0; `session` untouched.
OldRelease(o, l) ==
    /\ ohold[o][l].id # NoId
    /\ Set(IF lk[l].owner = ohold[o][l].id
           THEN [lk EXCEPT ![l] = [owner |-> NoId, fmt |-> "-", sess |-> lk[l].sess]]
           ELSE lk, hold, [ohold EXCEPT ![o][l] = NoOld], opr)
    /\ UNCHANGED <<sd, conf, sig, cl, count, forcedOk>>

(***************************************************************************)
(* The clean-up of ended sessions (IdleLockCleaner.removeEndedSessions).   *)
(***************************************************************************)
\* find({_id.mongolock: "session", state: "ended", endedAt < cutoff}).
CleanFind ==
    /\ WithClean /\ cl.ph = "idle"
    /\ \E s \in Sids : sd[s] = "ended"
    /\ cl' = [ph |-> "free", ended |-> {s \in Sids : sd[s] = "ended"}]
    /\ UNCHANGED <<lk, sd, conf, sig, hold, ohold, opr, revoked, done, renewed, count, forcedOk>>

\* updateMany(heldUnder(ended), free): one document at a time, in any order (a document
\* may also be missed: CleanRemove may come first).  "CleanBySession": {session: {$in},
\* holds > 0} alone.
CleanFree(l) ==
    /\ cl.ph = "free" /\ Selected(l, cl.ended, Variant = "CleanBySession")
    /\ Set([lk EXCEPT ![l] = Free], hold, ohold, opr)
    /\ UNCHANGED <<sd, conf, sig, cl, count, forcedOk>>

\* deleteMany({_id: {$in: ids}, state: "ended", endedAt < cutoff}).
CleanRemove ==
    /\ cl.ph = "free"
    /\ sd' = [s \in Sids |-> IF s \in cl.ended /\ sd[s] = "ended" THEN "removed" ELSE sd[s]]
    /\ cl' = [ph |-> "idle", ended |-> {}]
    /\ UNCHANGED <<lk, conf, sig, hold, ohold, opr, revoked, done, renewed, count, forcedOk>>

(***************************************************************************)
(* An operator's forced release (LockAdmin.forceRelease).                  *)
(***************************************************************************)
\* inspect(name): the lock as it is now.
ForceRead(l) ==
    /\ opr.ph = "idle" /\ count.forced < MaxForced /\ lk[l].owner # NoId
    /\ opr' = [ph |-> "read", l |-> l, id |-> lk[l].owner, s |-> lk[l].sess, fmt |-> lk[l].fmt]
    /\ count' = [count EXCEPT !.forced = @ + 1]
    /\ UNCHANGED <<lk, sd, conf, sig, hold, ohold, cl, revoked, done, renewed, forcedOk>>

\* findOneAndUpdate({_id, owner, version} as read, {owner: null, holds: 0, $unset session,
\* revokedOwner, ...}): refused when the lock moved since the read.  "ForceById": {_id}.
\* The acquisition it frees is revoked: its holder may go on believing until it learns.
ForceFree ==
    LET l   == opr.l
        hit == IF Variant = "ForceById" THEN lk[l].owner # NoId ELSE lk[l].owner = opr.id
    IN
    /\ opr.ph = "read"
    /\ IF hit
       THEN /\ Commit([lk EXCEPT ![l] = Free], hold, ohold, [opr EXCEPT !.ph = "freed"],
                      revoked \cup {lk[l].owner}, done, renewed)
            /\ forcedOk' = (forcedOk /\ lk[l].owner = opr.id)
       ELSE /\ Set(lk, hold, ohold, NoOpr)
            /\ UNCHANGED forcedOk
    /\ UNCHANGED <<sd, conf, sig, cl, count>>

\* Then, for a lock held under a session (session and an "s" lease id, as read),
\* updateOne({_id: S}, {$inc: {checks: 1}}), tried LockAdmin.SIGNAL_ATTEMPTS (3) times; the
\* call returns ForcedRelease.sessionTold(). Either the signal landed (told: the promise
\* ToldAtNextRenewal holds for it), or every attempt failed and the call says so (not told:
\* the holder learns at its session's periodic check, which this model does not bound).
\* "NoSignal": not sent, yet the call answers as if told.
ForceSignal ==
    /\ opr.ph = "freed"
    /\ \E lands \in BOOLEAN :
          LET sent == Variant # "NoSignal" /\ opr.fmt = "s" /\ sd[opr.s] \in {"live", "ended"}
              told == Variant = "NoSignal" \/ opr.fmt # "s" \/ lands
          IN /\ sig' = IF sent /\ lands THEN [sig EXCEPT ![opr.s] = TRUE] ELSE sig
             /\ Commit(lk, hold, ohold, NoOpr, revoked,
                       IF told THEN done \cup {opr.id} ELSE done, renewed)
    /\ UNCHANGED <<sd, conf, cl, count, forcedOk>>

Next ==
    \/ \E m \in Managers :
          \/ \E s \in Mine(m) :
                \/ Open(m, s) \/ Lapse(m, s) \/ Renew(m, s, TRUE) \/ Renew(m, s, FALSE)
                \/ \E l \in Locks : Acquire(m, l, s) \/ Orphan(m, l, s) \/ TakeSession(m, l, s)
                                    \/ TakeOld(m, l, s)
          \/ \E l \in Locks : Release(m, l) \/ Report(m, l)
    \/ \E o \in Olds, l \in Locks :
          OldAcquire(o, l) \/ OldTake(o, l) \/ OldLapse(o, l) \/ OldLearns(o, l) \/ OldRelease(o, l)
    \/ \E s \in Sids : End(s)
    \/ CleanFind \/ CleanRemove \/ \E l \in Locks : CleanFree(l)
    \/ \E l \in Locks : ForceRead(l)
    \/ ForceFree \/ ForceSignal

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
\* At most one acquisition believes it holds a lock, not counting those an operator
\* released (until they learn it, see ToldAtNextRenewal).
AtMostOneBeliever == \A l \in Locks : Cardinality(Believers(l) \ revoked) <= 1

\* A forced release frees the acquisition the operator read, and no other.
ForcedAsRead == forcedOk

\* A session holder whose lock an operator released believes no more once its session
\* was renewed after the operator's call returned (the renewal saw the signal and checked).
ToldAtNextRenewal ==
    \A m \in Managers, l \in Locks : hold[m][l].id \in renewed => ~Believes(m, l)
=============================================================================
