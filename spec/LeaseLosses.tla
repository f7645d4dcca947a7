---------------------------- MODULE LeaseLosses ----------------------------
(***************************************************************************)
(* How a holder is told that its lease is lost (issue 31, defect 4):       *)
(* core/LeaseLosses, core/OwnedLocks, core/SessionRenewer.  No MongoDB     *)
(* operation is modelled beyond its outcome: this is the concurrency of    *)
(* two threads of one manager on one hold.                                 *)
(*                                                                         *)
(* A hold (HeldLock) has a mutex, taken by its owner for the whole of each *)
(* of its own calls (re-entry, release, hand-over).  When the manager's    *)
(* renewer finds the hold's session ended, it marks every hold of the      *)
(* session lost (LeaseLosses.sessionLost): status LOST, LEASE_LOST to the  *)
(* listeners, LockLostException from the next close().  It does not wait  *)
(* for the owner: it only TRIES the mutex (markLostFromOutside).  Before   *)
(* issue 31 a hold whose mutex was taken was skipped, and a session's loss *)
(* is reported once (the session is forgotten), so if the owner's call     *)
(* did not find the loss itself (a nested acquire whose store call fails,  *)
(* a nested release that succeeds, a hand-over to a successor that the     *)
(* renewer never saw) the loss was never reported ("SkipLocked").          *)
(*                                                                         *)
(* The fix ("Correct"): a loss the renewer cannot mark is left on the hold *)
(* (lossFoundMidCall) and the mutex is tried once more; every owner call   *)
(* reports a loss left on the hold when it starts (beforeOwnCall) and,     *)
(* after letting go of the mutex, one left meanwhile or a session that     *)
(* ended while it ran (afterOwnCall); a hand-over does the same for its    *)
(* successor, which may have been registered after the renewer listed the  *)
(* session's holds.                                                        *)
(*                                                                         *)
(* Holds: 1, the acquisition; 2, the successor a hand-over of 1 creates   *)
(* under the same session.  The renewer's try-lock, mark and unlock is one *)
(* step (the owner's lock() waits for it), as is each of the owner's       *)
(* volatile reads and writes.                                              *)
(*                                                                         *)
(* Checked: ReportedAtRest (invariant): whenever the owner is between      *)
(* calls and the renewer has finished reporting, no hold is still held     *)
(* under its ended session; LossEventuallyReported (liveness): a hold      *)
(* held under an ended session stops being held: it is reported lost, or   *)
(* the owner's own compare-and-set ends it (a release or hand-over that    *)
(* matched: the lock was still this acquisition's in the database, so      *)
(* nobody else held it meanwhile, and nothing needs reporting).            *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS
    Variant,     \* "Correct" | "SkipLocked" (before issue 31)
    Kinds        \* the owner's calls modelled, a subset of {"Fail", "NestedRelease",
                 \* "HandOver", "Release"}

ASSUME Variant \in {"Correct", "SkipLocked"}
ASSUME Kinds \subseteq {"Fail", "NestedRelease", "HandOver", "Release"}

Holds == {1, 2}

VARIABLES
    st,       \* st[h]: "None" (not yet), "Granted" (hand-over successor written, not yet
              \* registered), "Held", "Lost" (marked lost: reported), "Released"
    ended,    \* the session ended (the renewer found it: Session.end, isEnded())
    taken,    \* the lock document moved away from the hold (taken over after the session
              \* ended, or freed by an operator): the owner's compare-and-sets miss
    rv,       \* the hold whose lock an operator released (0: none), found by the check
    mx,       \* mx[h]: the owner holds h's mutex
    pend,     \* pend[h]: lossFoundMidCall set
    op,       \* the owner: "idle", "call" (mutex taken, store call not made), "made"
              \* (store call made), "after" (mutex let go, afterOwnCall to run)
    kind,     \* the owner's current call
    cur,      \* the hold the owner's calls are on (1, then 2 after a hand-over)
    rp,       \* the renewer: "idle", "try1", "try2" (after leaving the loss on the hold)
    todo      \* the holds the renewer still has to report (listed when the session ended)

vars == <<st, ended, taken, rv, mx, pend, op, kind, cur, rp, todo>>

Fixed == Variant = "Correct"

TypeOK ==
    /\ st \in [Holds -> {"None", "Granted", "Held", "Lost", "Released"}]
    /\ ended \in BOOLEAN /\ taken \in BOOLEAN /\ rv \in Holds \cup {0}
    /\ mx \in [Holds -> BOOLEAN] /\ pend \in [Holds -> BOOLEAN]
    /\ op \in {"idle", "call", "made", "after"}
    /\ kind \in Kinds \cup {"none"}
    /\ cur \in Holds
    /\ rp \in {"idle", "try1", "try2"}
    /\ todo \subseteq Holds

Init ==
    /\ st = [h \in Holds |-> IF h = 1 THEN "Held" ELSE "None"]
    /\ ended = FALSE /\ taken = FALSE /\ rv = 0
    /\ mx = [h \in Holds |-> FALSE] /\ pend = [h \in Holds |-> FALSE]
    /\ op = "idle" /\ kind = "none" /\ cur = 1
    /\ rp = "idle" /\ todo = {}

\* The lease of hold h is lost in the database: its session ended, or its lock was
\* released by an operator.
LeaseGone(h) == ended \/ rv = h

MarkLost(s, h) == [s EXCEPT ![h] = IF @ = "Held" THEN "Lost" ELSE @]

(***************************************************************************)
(* The world: the session ends, then another manager may take the lock.    *)
(***************************************************************************)
\* SessionRenewer.ended: a renewal found the session ended (or its lease lapsed):
\* session.end(), then losses.sessionLost(heldUnder(session, heldLocks.get())): the
\* holds registered now are listed, once.
EndSession ==
    /\ ~ended /\ rp = "idle"
    /\ ended' = TRUE
    /\ todo' = {h \in Holds : st[h] = "Held"}
    /\ rp' = IF {h \in Holds : st[h] = "Held"} = {} THEN "idle" ELSE "try1"
    /\ UNCHANGED <<st, taken, rv, mx, pend, op, kind, cur>>

\* An operator released the lock of the current hold (LockAdmin.forceRelease: the document
\* moves), and the renewer's next check, told by the session's checks counter, found it
\* missing: losses.leaseLost(that hold), on the renewer's thread.  At most once.
Revoke ==
    /\ rv = 0 /\ ~ended /\ rp = "idle" /\ st[cur] = "Held"
    /\ rv' = cur /\ taken' = TRUE
    /\ todo' = {cur} /\ rp' = "try1"
    /\ UNCHANGED <<st, ended, mx, pend, op, kind, cur>>

\* A waiter ended the session and took the lock (a compare-and-set that moves its version).
Take ==
    /\ ended /\ ~taken
    /\ taken' = TRUE
    /\ UNCHANGED <<st, ended, rv, mx, pend, op, kind, cur, rp, todo>>

(***************************************************************************)
(* The renewer: markLostFromOutside for each listed hold.                  *)
(***************************************************************************)
Next1(t) == IF t = {} THEN "idle" ELSE "try1"
RH == CHOOSE h \in todo : \A g \in todo : h <= g

\* tryLock(); markLost; unlock().  Taken by the owner: "SkipLocked" goes on to the next
\* hold; the fix leaves the loss on the hold (lossFoundMidCall = reason) and tries again.
RenewerTry1 ==
    /\ rp = "try1"
    /\ IF ~mx[RH]
       THEN /\ st' = MarkLost(st, RH)
            /\ todo' = todo \ {RH} /\ rp' = Next1(todo \ {RH})
            /\ UNCHANGED pend
       ELSE IF Fixed
       THEN /\ pend' = [pend EXCEPT ![RH] = TRUE]
            /\ rp' = "try2"
            /\ UNCHANGED <<st, todo>>
       ELSE /\ todo' = todo \ {RH} /\ rp' = Next1(todo \ {RH})
            /\ UNCHANGED <<st, pend>>
    /\ UNCHANGED <<ended, taken, rv, mx, op, kind, cur>>

\* The second try: free now, the renewer clears the loss it left and marks it; still
\* taken, the owner reads it when its call ends.
RenewerTry2 ==
    /\ rp = "try2"
    /\ IF ~mx[RH]
       THEN /\ st' = MarkLost(st, RH)
            /\ pend' = [pend EXCEPT ![RH] = FALSE]
       ELSE UNCHANGED <<st, pend>>
    /\ todo' = todo \ {RH} /\ rp' = Next1(todo \ {RH})
    /\ UNCHANGED <<ended, taken, rv, mx, op, kind, cur>>

(***************************************************************************)
(* The owner's calls on its hold (OwnedLocks.reenter, release, handOver).  *)
(***************************************************************************)
\* lock(); beforeOwnCall: a loss left on the hold is reported first.  (A call on a hold
\* marked lost throws LockLostException at once: reported, not modelled further.)
Begin(k) ==
    LET h == cur IN
    /\ op = "idle" /\ st[h] = "Held" /\ k \in Kinds
    /\ mx' = [mx EXCEPT ![h] = TRUE]
    /\ IF Fixed /\ pend[h]
       THEN st' = MarkLost(st, h) /\ pend' = [pend EXCEPT ![h] = FALSE]
       ELSE UNCHANGED <<st, pend>>
    /\ op' = "call" /\ kind' = k
    /\ UNCHANGED <<ended, taken, rv, cur, rp, todo>>

\* The call's store request and what the owner makes of its answer:
\*  "Fail"          a nested acquire whose store call fails (LockStoreException): the
\*                  outer hold is left as it was; nothing looks at the lease
\*  "NestedRelease" a nested close() that succeeds: nothing looks at the lease
\*  "Release"       the last close(): a hold already marked lost throws LockLostException;
\*                  else the release's compare-and-set on {owner, version}: taken, it
\*                  misses (LockLostException, reported); else it matches (released)
\*  "HandOver"      the last close() handing over to the manager's next caller: the
\*                  compare-and-set on {owner, version}; taken, it misses and the plain
\*                  release misses too (reported); else the successor is granted in the
\*                  database under the same session, to be registered next
Made ==
    LET h == cur IN
    /\ op = "call"
    /\ CASE kind \in {"Fail", "NestedRelease"} -> UNCHANGED st
         [] kind = "Release" ->
              st' = [st EXCEPT ![h] = IF @ = "Held" THEN (IF taken THEN "Lost" ELSE "Released")
                                      ELSE @]
         [] kind = "HandOver" ->
              st' = IF st[h] # "Held" THEN st
                    ELSE IF taken THEN [st EXCEPT ![h] = "Lost"]
                    ELSE [st EXCEPT ![h] = "Released", ![2] = "Granted"]
    /\ op' = "made"
    /\ UNCHANGED <<ended, taken, rv, mx, pend, kind, cur, rp, todo>>

\* unlock().  A hand-over whose successor was granted registers it first (held.put), then
\* (the fix) runs afterOwnCall(successor): a session that ended while the hand-over was on
\* its way was listed by the renewer without the successor.  Then the owner's calls are on
\* the successor.  Before issue 31 the call ends here.
Unlock ==
    LET h == cur IN
    /\ op = "made"
    /\ mx' = [mx EXCEPT ![h] = FALSE]
    /\ IF st[2] = "Granted"
       THEN /\ st' = [st EXCEPT ![2] = IF Fixed /\ ended THEN "Lost" ELSE "Held"]
            /\ cur' = 2
       ELSE UNCHANGED <<st, cur>>
    /\ op' = IF Fixed THEN "after" ELSE "idle"
    /\ kind' = IF Fixed THEN kind ELSE "none"
    /\ UNCHANGED <<ended, taken, rv, pend, rp, todo>>

\* afterOwnCall (the fix): a loss left on the hold while the call ran, or a session that
\* ended meanwhile under a hold still held, is reported now (leaseLost: the mutex is free).
After ==
    LET h == IF kind = "HandOver" /\ cur = 2 THEN 1 ELSE cur IN
    /\ op = "after"
    /\ IF pend[h] \/ (st[h] = "Held" /\ ended) THEN st' = MarkLost(st, h) ELSE UNCHANGED st
    /\ op' = "idle" /\ kind' = "none"
    /\ UNCHANGED <<ended, taken, rv, mx, pend, cur, rp, todo>>

Next ==
    \/ EndSession \/ Take \/ Revoke
    \/ RenewerTry1 \/ RenewerTry2
    \/ \E k \in Kinds : Begin(k)
    \/ Made \/ Unlock \/ After

\* The renewer and the owner's calls, once started, run on; nothing forces the owner to
\* call, the session to end, or a waiter to take the lock.
Fairness ==
    /\ WF_vars(RenewerTry1) /\ WF_vars(RenewerTry2)
    /\ WF_vars(Made) /\ WF_vars(Unlock) /\ WF_vars(After)

Spec == Init /\ [][Next]_vars /\ Fairness

\* At rest (the owner between calls, the renewer done), no hold is held under its ended
\* session without having been reported.
ReportedAtRest ==
    (op = "idle" /\ rp = "idle") => \A h \in Holds : ~(st[h] = "Held" /\ LeaseGone(h))

\* A hold held under an ended session is eventually reported lost, or ended by its
\* owner's own matching compare-and-set.
LossEventuallyReported ==
    \A h \in Holds : (st[h] = "Held" /\ LeaseGone(h)) ~> (st[h] # "Held")
=============================================================================
