package io.github.mongolock.mongo;

import io.github.mongolock.ForceReleaseRefusedException;
import io.github.mongolock.LockConfigurationException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What an operator does to leased read-write locks ({@code LockManager.readWriteLock}), from {@link LockAdmin#readWriteLocks()}:
 * list those held or with a writer waiting, inspect one, and take back one holder's read or write access. A read-write
 * lock's document is a semaphore's of limit {@code ReadWriteStore.WHOLE} under {@code _id: {mongolock: "rw", name}}
 * (a read hold an entry of 1 permit, a write hold one of the whole limit), so this is {@link PermitAdmin}'s work on
 * those documents: the take-back is one compare-and-set pinned to the version read and to the holder's entry, then
 * the holder's session is told. Thread-safe.
 *
 * <pre>{@code
 * ReadWriteAdmin rw = admin.readWriteLocks();
 * rw.list("", 50).forEach(System.out::println);
 * ReadWriteState catalog = rw.inspect("catalog").orElseThrow();
 * rw.forceRelease("catalog", catalog.holders().get(0).owner(), "reload wedged, ticket OPS-4712");
 * }</pre>
 */
public final class ReadWriteAdmin {

    private final PermitAdmin documents;

    ReadWriteAdmin(PermitAdmin documents) {
        this.documents = documents;
    }

    /**
     * The read-write locks held or with a writer waiting, in name order, at most {@code limit}; each with its holders
     * (owner, mode, session) and the state and lease of each holder's session.
     *
     * @param namePrefix only names starting with it; "" for all
     * @param limit      1 to {@value LockAdmin#MAX_LIMIT}
     */
    public List<ReadWriteState> list(String namePrefix, int limit) {
        Objects.requireNonNull(namePrefix, "namePrefix");
        if (limit < 1 || limit > LockAdmin.MAX_LIMIT) {
            throw new LockConfigurationException("limit = " + limit + " is not valid: list between 1 and " + LockAdmin.MAX_LIMIT
                    + " read-write locks at a time; narrow the list with a name prefix.");
        }
        return documents.list(namePrefix, limit).stream().map(ReadWriteState::of).toList();
    }

    /** The read-write lock's document as it is now, held or not; empty when the name was never used for one. */
    public Optional<ReadWriteState> inspect(String name) {
        return documents.inspect(name).map(ReadWriteState::of);
    }

    /**
     * Takes back the access {@code owner} holds of the read-write lock {@code name}: a compare-and-set pinned to the
     * version read and to that holder's entry, then the holder's session is told; its next renewal reports the access
     * lost. Others may take it at once (a writer, once the last reader is gone).
     *
     * @param reason why, recorded in the document ({@code revokedReason})
     * @throws ForceReleaseRefusedException when there is no such read-write lock, or {@code owner} holds nothing of it
     *                                      (the message names the holders there are); nothing changed
     */
    public ForcedReadWriteRelease forceRelease(String name, String owner, String reason) {
        ForcedPermitRelease done = documents.forceRelease(name, owner, reason);
        ReadWriteState before = ReadWriteState.of(done.before());
        ReadWriteState.Holder holder = before.holders().stream().filter(held -> held.owner().equals(done.holder().owner()))
                .findFirst().orElseThrow();
        return new ForcedReadWriteRelease(before, holder, done.operator(), done.reason(), done.sessionTold());
    }
}
