---------------------------- MODULE TokenFloor ----------------------------
(***************************************************************************)
(* Fencing tokens of one lock name across the removal of its idle          *)
(* document (issue 21): IdleLockCleaner and TokenFloor in mongo/.          *)
(*                                                                         *)
(* A lock document holds a token; a grant of an existing free document     *)
(* increments it.  The clean-up reads a free document's token, raises the  *)
(* collection's floor to it, then deletes the document only if it is still *)
(* free and its token is still covered by that floor.  An acquire that     *)
(* creates the document (token 1, unanswered yet) reads the floor, then    *)
(* raises its own document's token to floor + 1 ($max, filtered on its     *)
(* owner) before the grant is answered.  Every step is one atomic          *)
(* single-document operation; steps of different actors interleave        *)
(* arbitrarily.                                                            *)
(*                                                                         *)
(* Checked: every answered grant of the name has a token greater than      *)
(* every grant answered before it (TokensGrow).                            *)
(*                                                                         *)
(* Variants (CONSTANT Variant):                                            *)
(*   "Correct"        as above;                                            *)
(*   "DeleteFirst"    the clean-up deletes before it raises the floor;     *)
(*   "NoTokenBound"   the delete is conditional on holds = 0 only;         *)
(*   "NoFloorRead"    a created document keeps token 1.                    *)
(***************************************************************************)
EXTENDS Naturals

CONSTANTS Clients, MaxToken, Variant

None == 0

VARIABLES
    exists,     \* whether the lock document exists
    holds,      \* its hold count (0 or 1)
    owner,      \* its owner (a client) or None
    token,      \* its token
    floor,      \* the collection's token floor
    pc,         \* per client: "idle", "created" (upserted, floor not read), "seen" (floor read), "holding"
    seenFloor,  \* per client: the floor it read
    cpc,        \* the cleaner: "idle", "read" (candidate read), "raised" (floor raised), "deleted" (DeleteFirst)
    readToken,  \* the token of the candidate the cleaner read
    lastGrant,  \* the token of the last answered grant
    grew        \* FALSE once a grant was answered with a token not above the one before

vars == <<exists, holds, owner, token, floor, pc, seenFloor, cpc, readToken, lastGrant, grew>>

Max(a, b) == IF a > b THEN a ELSE b

TypeOK ==
    /\ exists \in BOOLEAN
    /\ holds \in {0, 1}
    /\ owner \in Clients \cup {None}
    /\ token \in 0..MaxToken
    /\ floor \in 0..MaxToken
    /\ pc \in [Clients -> {"idle", "created", "seen", "holding"}]
    /\ seenFloor \in [Clients -> 0..MaxToken]
    /\ cpc \in {"idle", "read", "raised", "deleted"}
    /\ readToken \in 0..MaxToken
    /\ lastGrant \in 0..MaxToken
    /\ grew \in BOOLEAN

Init ==
    /\ exists = FALSE /\ holds = 0 /\ owner = None /\ token = 0
    /\ floor = 0
    /\ pc = [c \in Clients |-> "idle"]
    /\ seenFloor = [c \in Clients |-> 0]
    /\ cpc = "idle" /\ readToken = 0
    /\ lastGrant = 0 /\ grew = TRUE

Answer(t) ==
    /\ grew' = (grew /\ t > lastGrant)
    /\ lastGrant' = Max(lastGrant, t)

\* The upsert on {_id, holds: 0} takes an existing free document: token + 1, answered at once.
AcquireExisting(c) ==
    /\ pc[c] = "idle" /\ exists /\ holds = 0 /\ token < MaxToken
    /\ holds' = 1 /\ owner' = c /\ token' = token + 1
    /\ pc' = [pc EXCEPT ![c] = "holding"]
    /\ Answer(token + 1)
    /\ UNCHANGED <<exists, floor, seenFloor, cpc, readToken>>

\* The upsert finds no document and inserts one: token 1, not answered yet.
Create(c) ==
    /\ pc[c] = "idle" /\ ~exists
    /\ exists' = TRUE /\ holds' = 1 /\ owner' = c /\ token' = 1
    /\ pc' = [pc EXCEPT ![c] = IF Variant = "NoFloorRead" THEN "holding" ELSE "created"]
    /\ IF Variant = "NoFloorRead" THEN Answer(1) ELSE UNCHANGED <<lastGrant, grew>>
    /\ UNCHANGED <<floor, seenFloor, cpc, readToken>>

ReadFloor(c) ==
    /\ pc[c] = "created"
    /\ seenFloor' = [seenFloor EXCEPT ![c] = floor]
    /\ pc' = [pc EXCEPT ![c] = "seen"]
    /\ UNCHANGED <<exists, holds, owner, token, floor, cpc, readToken, lastGrant, grew>>

\* updateOne({_id, owner: c, leaseId}, {$max: {token: floor + 1}}); answered with floor + 1 when it matched
\* (grantCreated answers token 1 without a write when the floor is 0).
RaiseOwnToken(c) ==
    /\ pc[c] = "seen" /\ seenFloor[c] + 1 <= MaxToken
    /\ IF exists /\ owner = c
       THEN /\ token' = Max(token, seenFloor[c] + 1)
            /\ pc' = [pc EXCEPT ![c] = "holding"]
            /\ Answer(IF seenFloor[c] = 0 THEN 1 ELSE seenFloor[c] + 1)
       ELSE /\ pc' = [pc EXCEPT ![c] = "idle"]   \* not ours: granted to nobody
            /\ UNCHANGED <<token, lastGrant, grew>>
    /\ UNCHANGED <<exists, holds, owner, floor, seenFloor, cpc, readToken>>

Release(c) ==
    /\ pc[c] = "holding"
    /\ IF exists /\ owner = c THEN holds' = 0 /\ owner' = None ELSE UNCHANGED <<holds, owner>>
    /\ pc' = [pc EXCEPT ![c] = "idle"]
    /\ UNCHANGED <<exists, token, floor, seenFloor, cpc, readToken, lastGrant, grew>>

\* The clean-up: find({holds: 0, idle}) reads a candidate and its token.
CleanRead ==
    /\ cpc = "idle" /\ exists /\ holds = 0
    /\ readToken' = token
    /\ cpc' = "read"
    /\ UNCHANGED <<exists, holds, owner, token, floor, pc, seenFloor, lastGrant, grew>>

\* updateOne({_id: {mongolock: "collection"}}, {$max: {tokenFloor: read}}, upsert): before the delete, or after it
\* in the "DeleteFirst" variant.
CleanRaise ==
    /\ cpc = IF Variant = "DeleteFirst" THEN "deleted" ELSE "read"
    /\ floor' = Max(floor, readToken)
    /\ cpc' = IF Variant = "DeleteFirst" THEN "idle" ELSE "raised"
    /\ UNCHANGED <<exists, holds, owner, token, pc, seenFloor, readToken, lastGrant, grew>>

\* deleteMany({_id range, holds: 0, idle, token: {$lte: raised}}).
CleanDelete ==
    /\ cpc = IF Variant = "DeleteFirst" THEN "read" ELSE "raised"
    /\ IF exists /\ holds = 0 /\ (Variant = "NoTokenBound" \/ token <= readToken)
       THEN exists' = FALSE /\ owner' = None /\ token' = 0
       ELSE UNCHANGED <<exists, owner, token>>
    /\ cpc' = IF Variant = "DeleteFirst" THEN "deleted" ELSE "idle"
    /\ UNCHANGED <<holds, floor, pc, seenFloor, readToken, lastGrant, grew>>

Next ==
    \/ \E c \in Clients : AcquireExisting(c) \/ Create(c) \/ ReadFloor(c) \/ RaiseOwnToken(c) \/ Release(c)
    \/ CleanRead \/ CleanRaise \/ CleanDelete

Spec == Init /\ [][Next]_vars

\* Every answered grant of the name carries a token above every grant answered before it.
TokensGrow == grew
=============================================================================
