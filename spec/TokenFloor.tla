---------------------------- MODULE TokenFloor ----------------------------
(***************************************************************************)
(* Fencing tokens of one lock name across the removal of its idle          *)
(* document (issues 21 and 31): IdleLockCleaner and TokenFloor in mongo/.  *)
(*                                                                         *)
(* A lock document holds a token; every grant of it increments the token.  *)
(* The clean-up reads a free document's token, raises the collection's     *)
(* floor to it, then deletes the document only if it is still free and    *)
(* its token is still covered by that floor.  A document created again    *)
(* starts at token 1, below the tokens of the removed one.                 *)
(*                                                                         *)
(* The fix of issue 31 ("Correct"): the floor is a property of the created *)
(* document.  The acquire's upsert that creates it sets tokenPending       *)
(* ($setOnInsert); EVERY grant whose before-image shows the document       *)
(* created by it or still pending (the creator, a later acquire of the     *)
(* free document, a waiter's takeover) reads the floor by a write that no  *)
(* stale snapshot answers (a no-op findAndModify on the collection's state *)
(* document) and raises its own token to max(token, floor + 1) by a       *)
(* compare-and-set on its owner and lease id before answering; frees by    *)
(* anyone other than an answered holder (the abandon of an attempt whose   *)
(* floor read failed, the session check's clean-up of an orphan, an        *)
(* operator's forced release) leave tokenPending in place; the last        *)
(* release of an answered holder clears it.  A hand-over is made by an     *)
(* answered holder, so it answers at once.                                 *)
(*                                                                         *)
(* Every step is one atomic single-document operation; the steps of the    *)
(* clients, the operator and the clean-up interleave freely.  The lease    *)
(* is left out: a takeover may happen at any time (for tokens it is a      *)
(* grant of an existing document), and a grant's answer is not checked    *)
(* for belief (it counts even when the session has lapsed since).          *)
(*                                                                         *)
(* Checked (TokensGrow): in the order the grants were written in the       *)
(* database, the tokens answered grow: an answered grant's token is above  *)
(* that of every answered grant written before it, of this document or of  *)
(* an earlier, removed, one.  (The order of the answers themselves may     *)
(* differ: a creator paused after its upsert can answer after a waiter     *)
(* that took the document over from it answered; its token is the older,  *)
(* lower one, and its grant the older one.)                                *)
(*                                                                         *)
(* Variants (CONSTANT Variant):                                            *)
(*   "Correct"          as above;                                          *)
(*   "DeleteFirst"      the clean-up deletes before it raises the floor;   *)
(*   "NoTokenBound"     the delete is conditional on holds = 0 only;       *)
(*   "NoFloorRead"      a created document keeps token 1;                  *)
(*   "CreatorOnly"      the code before issue 31: only the creator applies *)
(*                      the floor, read by a find that a new primary may   *)
(*                      answer from an older snapshot (SERVER-53813); any  *)
(*                      other grant answers token + 1 at once;             *)
(*   "StaleFloorRead"   the fix, but the floor read by that find;          *)
(*   "FreeClearsPending" the fix, but every free clears tokenPending       *)
(*                      (LockWrites.free() unsetting it, as the holder's   *)
(*                      release does).                                     *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets, TLC

CONSTANTS
    Clients,     \* the acquirers
    MaxToken,    \* bound on tokens (no grant past it)
    Frees,       \* TRUE: abandons (orphans) and an operator's forced releases
    Takes,       \* TRUE: takeovers and hand-overs
    Variant

ASSUME Variant \in {"Correct", "DeleteFirst", "NoTokenBound", "NoFloorRead", "CreatorOnly",
                    "StaleFloorRead", "FreeClearsPending"}
ASSUME Frees \in BOOLEAN /\ Takes \in BOOLEAN

None == 0
Cap == MaxToken + 1

VARIABLES
    exists,     \* whether the lock document exists
    holds,      \* its hold count (0 or 1)
    owner,      \* its owner (a client) or None
    token,      \* its token
    pending,    \* its tokenPending flag
    floor,      \* the collection's token floor
    floors,     \* history: every value the floor has had (what a stale find may answer;
                \* kept only where the floor is read by a find)
    pc,         \* per client: "idle", "floor" (granted, floor not read yet), "seen"
                \* (floor read), "holding" (answered)
    written,    \* per client: the token its grant wrote (while not answered)
    seenFloor,  \* per client: the floor it read (while not answered)
    rank,       \* per client with a grant written but not answered: its place among
                \* those grants in the order they were written (1 = oldest); else 0
    lo, hi,     \* per such client: the highest token answered for a grant written
                \* before its own, the lowest answered for one written after (Cap: none)
    top,        \* history: the highest token answered so far
    cpc,        \* the cleaner: "idle", "read" (candidate read), "raised" (floor raised),
                \* "deleted" (DeleteFirst)
    readToken,  \* the token of the candidate the cleaner read
    grew        \* FALSE once two answered grants' tokens are out of their write order

vars == <<exists, holds, owner, token, pending, floor, floors, pc, written, seenFloor, rank,
          lo, hi, top, cpc, readToken, grew>>

Max(a, b) == IF a > b THEN a ELSE b
Min(a, b) == IF a < b THEN a ELSE b

TypeOK ==
    /\ exists \in BOOLEAN
    /\ holds \in {0, 1}
    /\ owner \in Clients \cup {None}
    /\ token \in 0..MaxToken
    /\ pending \in BOOLEAN
    /\ floor \in 0..MaxToken
    /\ floors \subseteq 0..MaxToken
    /\ pc \in [Clients -> {"idle", "floor", "seen", "holding"}]
    /\ written \in [Clients -> 0..MaxToken]
    /\ seenFloor \in [Clients -> 0..MaxToken]
    /\ rank \in [Clients -> 0..Cap]
    /\ lo \in [Clients -> 0..MaxToken]
    /\ hi \in [Clients -> 0..Cap]
    /\ top \in 0..MaxToken
    /\ cpc \in {"idle", "read", "raised", "deleted"}
    /\ readToken \in 0..MaxToken
    /\ grew \in BOOLEAN

Init ==
    /\ exists = FALSE /\ holds = 0 /\ owner = None /\ token = 0 /\ pending = FALSE
    /\ floor = 0 /\ floors = {0}
    /\ pc = [c \in Clients |-> "idle"]
    /\ written = [c \in Clients |-> 0]
    /\ seenFloor = [c \in Clients |-> 0]
    /\ rank = [c \in Clients |-> 0]
    /\ lo = [c \in Clients |-> 0]
    /\ hi = [c \in Clients |-> Cap]
    /\ top = 0
    /\ cpc = "idle" /\ readToken = 0
    /\ grew = TRUE

Waiting == {c \in Clients : rank[c] > 0}

\* The order of the grants written and not answered, renumbered 1..k (only compared).
Ranked(r) == [c \in Clients |-> IF r[c] = 0 THEN 0
                                ELSE Cardinality({d \in Clients : r[d] # 0 /\ r[d] <= r[c]})]

\* The newest grant written is answered at once with token t: above every token answered.
AnswerNewest(t) ==
    /\ grew' = (grew /\ top < t)
    /\ top' = Max(top, t)
    /\ hi' = [d \in Clients |-> IF rank[d] > 0 THEN Min(hi[d], t) ELSE Cap]
    /\ UNCHANGED lo

\* Client c's grant, written earlier, is answered with token t: above every token answered
\* for a grant written before it, below every one answered for a grant written after it.
AnswerWaiting(c, t) ==
    /\ grew' = (grew /\ lo[c] < t /\ t < hi[c])
    /\ top' = Max(top, t)
    /\ lo' = [d \in Clients |-> IF d = c THEN 0
                                ELSE IF rank[d] > rank[c] THEN Max(lo[d], t) ELSE lo[d]]
    /\ hi' = [d \in Clients |-> IF d = c THEN Cap
                                ELSE IF rank[d] > 0 /\ rank[d] < rank[c] THEN Min(hi[d], t)
                                ELSE hi[d]]
    /\ rank' = Ranked([rank EXCEPT ![c] = 0])
    /\ written' = [written EXCEPT ![c] = 0]
    /\ seenFloor' = [seenFloor EXCEPT ![c] = 0]

\* Client c's grant, written earlier, is never answered.
Unanswered(c) ==
    /\ rank' = Ranked([rank EXCEPT ![c] = 0])
    /\ lo' = [lo EXCEPT ![c] = 0]
    /\ hi' = [hi EXCEPT ![c] = Cap]
    /\ written' = [written EXCEPT ![c] = 0]
    /\ seenFloor' = [seenFloor EXCEPT ![c] = 0]
    /\ UNCHANGED <<top, grew>>

\* Whether a grant whose before-image shows tokenPending = p (created: TRUE) applies
\* the floor before answering.  Before issue 31 only the creator did.
AppliesFloor(created, p) ==
    CASE Variant = "NoFloorRead" -> FALSE
      [] Variant = "CreatorOnly" -> created
      [] OTHER                   -> p

\* Whether the floor is read by a find (which a new primary may answer from an older
\* snapshot) rather than by a write.
FloorByFind == Variant \in {"CreatorOnly", "StaleFloorRead"}

\* Client c is granted the document (created = it was created by this grant, p = the
\* before-image's tokenPending, t = the token written): answered at once, or after the floor.
Grant(c, created, p, t) ==
    IF AppliesFloor(created, p)
    THEN /\ pc' = [pc EXCEPT ![c] = "floor"]
         /\ written' = [written EXCEPT ![c] = t]
         /\ rank' = [rank EXCEPT ![c] = Cardinality(Waiting) + 1]
         /\ lo' = [lo EXCEPT ![c] = top]
         /\ UNCHANGED <<hi, top, grew, seenFloor>>
    ELSE /\ pc' = [pc EXCEPT ![c] = "holding"]
         /\ AnswerNewest(t)
         /\ UNCHANGED <<written, rank, seenFloor>>

\* tryAcquire: findOneAndUpdate({_id, holds: 0}, take + $setOnInsert {tokenPending: true},
\* upsert).  No document: it inserts one, token 1, tokenPending.  A free one: token + 1.
Acquire(c) ==
    /\ pc[c] = "idle"
    /\ \/ /\ ~exists
          /\ exists' = TRUE /\ holds' = 1 /\ owner' = c /\ token' = 1 /\ pending' = TRUE
          /\ Grant(c, TRUE, TRUE, 1)
       \/ /\ exists /\ holds = 0 /\ token < MaxToken
          /\ holds' = 1 /\ owner' = c /\ token' = token + 1
          /\ Grant(c, FALSE, pending, token + 1)
          /\ UNCHANGED <<exists, pending>>
    /\ UNCHANGED <<floor, floors, cpc, readToken>>

\* takeOver: findOneAndUpdate on the state the waiter watched (the holder's lease or
\* session ended: e.g. a creator paused past it between its upsert and its floor).
TakeOver(c) ==
    /\ Takes /\ pc[c] = "idle"
    /\ exists /\ holds = 1 /\ owner # c /\ token < MaxToken
    /\ owner' = c /\ token' = token + 1
    /\ Grant(c, FALSE, pending, token + 1)
    /\ UNCHANGED <<exists, holds, pending, floor, floors, cpc, readToken>>

\* handOver: findOneAndUpdate({_id, owner, version, holds: 1}, take for the next caller),
\* by an answered holder: answered at once (its grant applied the floor, or found none
\* pending).
HandOver(c, d) ==
    /\ Takes /\ pc[c] = "holding" /\ pc[d] = "idle" /\ c # d
    /\ exists /\ owner = c /\ token < MaxToken
    /\ owner' = d /\ token' = token + 1
    /\ pc' = [pc EXCEPT ![c] = "idle", ![d] = "holding"]
    /\ AnswerNewest(token + 1)
    /\ UNCHANGED <<exists, holds, pending, floor, floors, written, seenFloor, rank, cpc,
                   readToken>>

\* The floor read: findOneAndUpdate({_id: {mongolock: "collection"}}, {$max: {tokenFloor:
\* 0}}), a write the primary answers from its latest data; (FloorByFind) find(), which
\* a newly elected primary may answer from an older snapshot: any earlier floor.
ReadFloor(c) ==
    /\ pc[c] = "floor"
    /\ \E f \in (IF FloorByFind THEN floors ELSE {floor}) :
          seenFloor' = [seenFloor EXCEPT ![c] = f]
    /\ pc' = [pc EXCEPT ![c] = "seen"]
    /\ UNCHANGED <<exists, holds, owner, token, pending, floor, floors, written, rank, lo, hi,
                   top, cpc, readToken, grew>>

\* TokenFloor.granted: a floor below the token written answers it as it is (no write);
\* else updateOne({_id, owner, leaseId}, {$max: {token: floor + 1}}), answered with
\* floor + 1 when it matched, granted to nobody when the document is not ours any more.
RaiseOwnToken(c) ==
    /\ pc[c] = "seen" /\ seenFloor[c] + 1 <= MaxToken
    /\ IF seenFloor[c] < written[c]
       THEN /\ pc' = [pc EXCEPT ![c] = "holding"]
            /\ AnswerWaiting(c, written[c])
            /\ UNCHANGED token
       ELSE IF exists /\ owner = c
       THEN /\ token' = Max(token, seenFloor[c] + 1)
            /\ pc' = [pc EXCEPT ![c] = "holding"]
            /\ AnswerWaiting(c, Max(token, seenFloor[c] + 1))
       ELSE /\ pc' = [pc EXCEPT ![c] = "idle"]
            /\ Unanswered(c)
            /\ UNCHANGED token
    /\ UNCHANGED <<exists, holds, owner, pending, floor, floors, cpc, readToken>>

\* A free by anyone but an answered holder: LockWrites.free(), tokenPending left alone
\* ("FreeClearsPending": cleared).
FreeOther ==
    /\ holds' = 0 /\ owner' = None
    /\ pending' = IF Variant = "FreeClearsPending" THEN FALSE ELSE pending

\* The attempt's floor read or raise failed (outcome unknown), or its upsert landed
\* after the attempt gave up and the session check found it: abandon,
\* updateOne({_id, owner}, free).  Not answered.
Abandon(c) ==
    /\ Frees /\ pc[c] \in {"floor", "seen"}
    /\ IF exists /\ owner = c THEN FreeOther ELSE UNCHANGED <<holds, owner, pending>>
    /\ pc' = [pc EXCEPT ![c] = "idle"]
    /\ Unanswered(c)
    /\ UNCHANGED <<exists, token, floor, floors, cpc, readToken>>

\* LockAdmin.forceRelease: findOneAndUpdate({_id, owner, version} as read, free), whoever
\* holds it and whatever it is doing (its later writes, filtered on its owner, miss).
ForceRelease ==
    /\ Frees /\ exists /\ holds = 1
    /\ FreeOther
    /\ UNCHANGED <<exists, token, floor, floors, pc, written, seenFloor, rank, lo, hi, top,
                   cpc, readToken, grew>>

\* The answered holder's last release: updateOne({_id, owner, version}, freeByHolder:
\* free + $unset tokenPending).
Release(c) ==
    /\ pc[c] = "holding"
    /\ IF exists /\ owner = c THEN holds' = 0 /\ owner' = None /\ pending' = FALSE
       ELSE UNCHANGED <<holds, owner, pending>>
    /\ pc' = [pc EXCEPT ![c] = "idle"]
    /\ UNCHANGED <<exists, token, floor, floors, written, seenFloor, rank, lo, hi, top, cpc,
                   readToken, grew>>

\* The clean-up: find({holds: 0, idle}) reads a candidate and its token.
CleanRead ==
    /\ cpc = "idle" /\ exists /\ holds = 0
    /\ readToken' = token
    /\ cpc' = "read"
    /\ UNCHANGED <<exists, holds, owner, token, pending, floor, floors, pc, written, seenFloor,
                   rank, lo, hi, top, grew>>

\* updateOne({_id: {mongolock: "collection"}}, {$max: {tokenFloor: read}}, upsert): before
\* the delete, or after it in the "DeleteFirst" variant.
CleanRaise ==
    /\ cpc = IF Variant = "DeleteFirst" THEN "deleted" ELSE "read"
    /\ floor' = Max(floor, readToken)
    /\ floors' = IF FloorByFind THEN floors \cup {Max(floor, readToken)} ELSE floors
    /\ cpc' = IF Variant = "DeleteFirst" THEN "idle" ELSE "raised"
    /\ readToken' = IF Variant = "DeleteFirst" THEN 0 ELSE readToken
    /\ UNCHANGED <<exists, holds, owner, token, pending, pc, written, seenFloor, rank, lo, hi,
                   top, grew>>

\* deleteMany({_id range, holds: 0, idle, token: {$lte: raised}}).
CleanDelete ==
    /\ cpc = IF Variant = "DeleteFirst" THEN "read" ELSE "raised"
    /\ IF exists /\ holds = 0 /\ (Variant = "NoTokenBound" \/ token <= readToken)
       THEN exists' = FALSE /\ owner' = None /\ token' = 0 /\ pending' = FALSE
       ELSE UNCHANGED <<exists, owner, token, pending>>
    /\ cpc' = IF Variant = "DeleteFirst" THEN "deleted" ELSE "idle"
    /\ readToken' = IF Variant = "DeleteFirst" THEN readToken ELSE 0
    /\ UNCHANGED <<holds, floor, floors, pc, written, seenFloor, rank, lo, hi, top, grew>>

Next ==
    \/ \E c \in Clients :
          \/ Acquire(c) \/ TakeOver(c) \/ ReadFloor(c) \/ RaiseOwnToken(c) \/ Abandon(c)
          \/ Release(c)
          \/ \E d \in Clients : HandOver(c, d)
    \/ ForceRelease
    \/ CleanRead \/ CleanRaise \/ CleanDelete

Spec == Init /\ [][Next]_vars

\* The clients are interchangeable (no constant names one): a symmetry set for TLC.
ClientSymmetry == Permutations(Clients)

\* In the order the grants were written, the answered tokens grow (see the header).
TokensGrow == grew
=============================================================================
