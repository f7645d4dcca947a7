------------------------------ MODULE MultiLock ------------------------------
(***************************************************************************)
(* Multi-locks (LockManager.acquireAll, @Locked with several names): each *)
(* caller wants a set of locks and takes them one at a time, each with    *)
(* the single acquire (core/LockSets, a client of LockCoordinator), in    *)
(* the set's canonical order (String.compareTo; here the numbers' order), *)
(* duplicates collapsed.  When the set's one wait time runs out on a busy *)
(* part, every part already taken is released (in reverse order) and the *)
(* caller is back at rest holding nothing; closing a held set releases    *)
(* every part.  A single lock is atomic here: its own protocol (leases,   *)
(* sessions, hand-over) is MongoLock.tla's and MongoLockSessions.tla's,   *)
(* and a lost lease is a release as far as this model is concerned.       *)
(*                                                                         *)
(* Three callers whose wishes, in the order they name them, form a cycle: *)
(* 1 wants <<1, 2>>, 2 wants <<2, 3, 2>> (a duplicate), 3 wants <<3, 1>>. *)
(*                                                                         *)
(* Variant = "Correct"       canonical order; the timeout releases all    *)
(* Variant = "OwnOrder"      broken: each caller takes its names in the   *)
(*                           order it gave them (duplicates collapsed)    *)
(* Variant = "KeepOnTimeout" broken: a timeout gives up the wait but      *)
(*                           keeps the parts already taken                *)
(* Timeouts = FALSE: nobody gives up (the waits are long), the setting in *)
(* which a circular wait is a deadlock for good.                          *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS Variant, Timeouts

Callers == 1..3
Locks == 1..3
None == 0
Wants == << <<1, 2>>, <<2, 3, 2>>, <<3, 1>> >>

RECURSIVE Sorted(_)
Sorted(S) == IF S = {} THEN <<>>
             ELSE LET m == CHOOSE x \in S : \A y \in S : x <= y
                  IN <<m>> \o Sorted(S \ {m})

RECURSIVE Distinct(_, _)
Distinct(seq, seen) == IF seq = <<>> THEN <<>>
                       ELSE IF Head(seq) \in seen THEN Distinct(Tail(seq), seen)
                       ELSE <<Head(seq)>> \o Distinct(Tail(seq), seen \cup {Head(seq)})

WantedSet(c) == {Wants[c][i] : i \in DOMAIN Wants[c]}

\* LockSets.canonical: checked, collapsed, sorted.  The broken variant keeps the caller's order.
Order(c) == IF Variant = "OwnOrder" THEN Distinct(Wants[c], {}) ELSE Sorted(WantedSet(c))

VARIABLES
    holder,   \* per lock: the caller holding it, or None (the lock documents)
    pc,       \* per caller: "idle" (at rest, no set), "taking" (inside acquireAll), "holding" (has its set)
    taken     \* per caller: how many parts of Order(c) it holds (the list LockSets keeps)

vars == <<holder, pc, taken>>

Held(c) == {Order(c)[i] : i \in 1..taken[c]}
Next(c) == Order(c)[taken[c] + 1]

TypeOK ==
    /\ holder \in [Locks -> Callers \cup {None}]
    /\ pc \in [Callers -> {"idle", "taking", "holding"}]
    /\ taken \in [Callers -> 0..3]
    /\ \A c \in Callers : taken[c] <= Len(Order(c))

Init ==
    /\ holder = [l \in Locks |-> None]
    /\ pc = [c \in Callers |-> "idle"]
    /\ taken = [c \in Callers |-> 0]

\* acquireAll called.
Start(c) ==
    /\ pc[c] = "idle"
    /\ pc' = [pc EXCEPT ![c] = "taking"]
    /\ UNCHANGED <<holder, taken>>

\* The single acquire of the next part is granted (the lock is free); the last part completes the set.
Take(c) ==
    /\ pc[c] = "taking"
    /\ holder[Next(c)] = None
    /\ holder' = [holder EXCEPT ![Next(c)] = c]
    /\ taken' = [taken EXCEPT ![c] = @ + 1]
    /\ pc' = [pc EXCEPT ![c] = IF taken[c] + 1 = Len(Order(c)) THEN "holding" ELSE "taking"]

\* The set's wait runs out on a busy part: LockTimeoutException after releasing what was taken.
\* (Any other failure of a part, store down or interrupt, does the same.)
TimeOut(c) ==
    /\ Timeouts
    /\ pc[c] = "taking"
    /\ holder[Next(c)] # None
    /\ pc' = [pc EXCEPT ![c] = "idle"]
    /\ taken' = [taken EXCEPT ![c] = 0]
    /\ holder' = IF Variant = "KeepOnTimeout" THEN holder
                 ELSE [l \in Locks |-> IF l \in Held(c) THEN None ELSE holder[l]]

\* LockSet.close: every part released.
Release(c) ==
    /\ pc[c] = "holding"
    /\ holder' = [l \in Locks |-> IF holder[l] = c THEN None ELSE holder[l]]
    /\ pc' = [pc EXCEPT ![c] = "idle"]
    /\ taken' = [taken EXCEPT ![c] = 0]

Step == \E c \in Callers : Start(c) \/ Take(c) \/ TimeOut(c) \/ Release(c)

\* Callers may stay idle for ever; a waiter is granted a lock that is free again and again (the single
\* lock's fairness, docs/fairness.md); a holder closes its set.
Spec == Init /\ [][Step]_vars /\ \A c \in Callers : SF_vars(Take(c)) /\ WF_vars(Release(c))

-----------------------------------------------------------------------------
\* Each lock is believed held by at most one caller.
MutualExclusion == \A c, d \in Callers : c # d => Held(c) \cap Held(d) = {}

\* A lock document names only a caller that believes it holds that lock (nothing is held unknowingly).
NoUnknownHold == \A l \in Locks : holder[l] # None => l \in Held(holder[l])

\* All or nothing at rest: outside acquireAll a caller holds either nothing or its whole set.
AllOrNothingAtRest ==
    \A c \in Callers :
        /\ pc[c] = "idle" => \A l \in Locks : holder[l] # c
        /\ pc[c] = "holding" => Held(c) = WantedSet(c) /\ \A l \in Locks : holder[l] = c => l \in WantedSet(c)

\* No circular wait: no group of callers inside acquireAll each waits for a lock another of them holds.
NoCircularWait ==
    \A S \in SUBSET Callers :
        S # {} => ~(\A c \in S : pc[c] = "taking" /\ holder[Next(c)] \in S)

\* Without timeouts, every caller that starts gets its whole set.
EveryoneGetsItsSet == \A c \in Callers : pc[c] = "taking" ~> pc[c] = "holding"
=============================================================================
