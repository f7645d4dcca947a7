package io.github.mongolock.mongo;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoDatabase;
import io.github.mongolock.LockConfigurationException;
import org.bson.Document;

/**
 * What the lock protocol must know about the server behind a connection, asked once per store with
 * {@code hello} and {@code buildInfo} (two commands, before the store's first lock operation):
 * <ul>
 *   <li><b>a router</b> ({@code mongos}, {@code hello.msg: "isdbgrid"}): its {@code $$NOW} is the
 *       router's clock while {@code $currentDate} is the shard's, so the store never compares them
 *       (no fast path, see {@link MongoLockStore#LONG_AGO});</li>
 *   <li><b>FerretDB 1.x</b> ({@code buildInfo.ferretdbVersion}): refused, because it applies an update
 *       to one document as a read, then an unconditional write of the result; concurrent updates of one
 *       document are lost and two compare-and-sets of the same version can both succeed (measured on
 *       1.24.2 with SQLite: of 1,600 concurrent {@code $inc}, 264 remained). No lock can be safe there.</li>
 * </ul>
 * A server that refuses either command (an older or a compatible one) is taken as neither.
 *
 * @param ferretDbVersion FerretDB's version as it reports it ({@code "v1.24.2"}), or null for other servers
 * @param router          whether the connection goes through a {@code mongos}
 * @param checked         whether the server was asked at all; an unchecked profile (a store built on a
 *                        collection alone) may sit behind a router, so it reads no server clock either
 */
record ServerProfile(String ferretDbVersion, boolean router, boolean checked) {

    /** Nothing known: a store given only a collection cannot ask; it assumes a router may sit in between. */
    static final ServerProfile UNCHECKED = new ServerProfile(null, false, false);

    /** Asks the server: {@code hello}, then {@code buildInfo}; network failures propagate to the caller. */
    static ServerProfile of(MongoDatabase database) {
        Document hello = answer(database, "hello");
        if (hello == null) {
            hello = answer(database, "isMaster"); // servers older than 4.4, and stand-ins without hello
        }
        Document buildInfo = answer(database, "buildInfo");
        String ferretDb = buildInfo == null ? null : buildInfo.get("ferretdbVersion") instanceof String version ? version : null;
        return new ServerProfile(ferretDb, hello != null && "isdbgrid".equals(hello.get("msg")), true);
    }

    private static Document answer(MongoDatabase database, String command) {
        try {
            return database.runCommand(new Document(command, 1));
        } catch (MongoCommandException refused) {
            return null;
        }
    }

    /**
     * Whether the database's clock may be read beside a time the same server wrote: only on a server
     * that was asked and is not a router (on a replica set both come from the primary's clock).
     */
    boolean oneClock() {
        return checked && !router;
    }

    /**
     * @throws LockConfigurationException on a server where no compare-and-set is safe, naming it, why,
     *                                    and what to use instead
     */
    void requireAtomicUpdates(String namespace) {
        if (ferretDbVersion != null && ferretDbVersion.replaceFirst("^v", "").startsWith("1.")) {
            throw new LockConfigurationException("mongolock cannot lock on FerretDB " + ferretDbVersion + " (" + namespace
                    + "): FerretDB 1.x applies an update to one document as a read and then an unconditional write, so"
                    + " concurrent updates of one document are lost and two holders could both be granted a lock."
                    + " Nothing was written. Use MongoDB (replica set, Atlas) or another server listed in README's"
                    + " \"Where it runs\".");
        }
    }
}
