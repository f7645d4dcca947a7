package io.github.mongolock.admin;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.github.mongolock.ForceReleaseRefusedException;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockException;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.mongo.ForcedPermitRelease;
import io.github.mongolock.mongo.ForcedRelease;
import io.github.mongolock.mongo.LockAdmin;
import io.github.mongolock.mongo.LockState;
import io.github.mongolock.mongo.PermitsState;
import io.github.mongolock.mongo.ReadWriteState;
import io.github.mongolock.mongo.RedactedUri;
import java.io.PrintStream;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The operator's command line over {@link LockAdmin}: {@code list}, {@code inspect NAME},
 * {@code release NAME --reason TEXT}, {@code inspect-permits NAME} and
 * {@code release-permits NAME --owner OWNER --reason TEXT}, {@code inspect-rw NAME} and
 * {@code release-rw NAME --owner OWNER --reason TEXT}, against the lock collection of a MongoDB named by {@code --uri}. The jar's
 * {@code Main-Class}; it needs only the MongoDB sync driver on the class path (see docs/operations.md).
 * {@link #run} is the whole command without {@code System.exit}, for tests and for embedding.
 */
public final class LockAdminCommand {

    /** The command ran. */
    public static final int OK = 0;
    /** The command was refused or failed: a forced release of a lock that moved, no such lock, MongoDB down. */
    public static final int REFUSED = 1;
    /** The command line was wrong; the usage text follows the message. */
    public static final int USAGE = 2;

    static final String USAGE_TEXT = """
            Usage: java -jar mongolock.jar <command> --uri mongodb://... [--database NAME] [--collection NAME] [--timeout PT10S]
              (the MongoDB sync driver must be on the class path: see docs/operations.md)
            Commands:
              list [--prefix TEXT] [--limit N]      held and queued locks in name order (default limit 100), then
                                                    semaphores with permits held or queued for, then read-write
                                                    locks held or with a writer waiting, one row per holder
              inspect NAME                          one lock, held or free, with its last forced release
              release NAME --reason TEXT [--owner OWNER] [--by WHO]
                                                    frees NAME from its holder (the one named by --owner, else the
                                                    one read now); the holder is told at its next renewal, with TEXT
              inspect-permits NAME                  one semaphore: limit, used, each holder, its last forced release
              release-permits NAME --owner OWNER --reason TEXT [--by WHO]
                                                    takes back the permits OWNER holds of semaphore NAME; the holder
                                                    is told at its next renewal
              inspect-rw NAME                       one read-write lock: each holder with its mode (READ or WRITE),
                                                    the managers with a writer waiting, its last forced release
              release-rw NAME --owner OWNER --reason TEXT [--by WHO]
                                                    takes back the read or write access OWNER holds of read-write
                                                    lock NAME; the holder is told at its next renewal
            Options:
              --uri         MongoDB connection string (required)
              --database    the lock collection's database (default: the one in the URI)
              --collection  the lock collection (default: %s)
              --timeout     bound of every MongoDB call, ISO-8601 (default: PT10S)
              --by          who releases, recorded in the lock (default: user@host)
            Exit codes: 0 done, 1 refused or failed (the message says why), 2 usage error.
            """.formatted(MongoLockManager.DEFAULT_COLLECTION);

    private LockAdminCommand() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command line {@code args}; results on {@code out}, problems on {@code err}. @return the exit code */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        AdminArguments arguments;
        ConnectionString connection;
        Duration timeout;
        try {
            arguments = AdminArguments.parse(args);
            connection = connection(arguments.option("uri", null));
            timeout = timeout(arguments.option("timeout", "PT10S"));
        } catch (AdminArguments.UsageError wrong) {
            err.println("mongolock: " + wrong.getMessage());
            err.print(USAGE_TEXT);
            return USAGE;
        }
        String database = arguments.option("database", connection.getDatabase());
        if (database == null) {
            err.println("mongolock: --database is missing and the URI names none: give --database NAME");
            err.print(USAGE_TEXT);
            return USAGE;
        }
        int millis = (int) Math.min(timeout.toMillis(), Integer.MAX_VALUE);
        try (MongoClient client = MongoClients.create(MongoClientSettings.builder().applyConnectionString(connection)
                .applyToClusterSettings(cluster -> cluster.serverSelectionTimeout(millis, TimeUnit.MILLISECONDS)).build())) {
            LockAdmin admin = new LockAdmin(client.getDatabase(database),
                    arguments.option("collection", MongoLockManager.DEFAULT_COLLECTION), timeout,
                    arguments.option("by", LockAdmin.defaultOperator()));
            return execute(admin, arguments, out, err);
        } catch (AdminArguments.UsageError | LockConfigurationException wrong) {
            err.println("mongolock: " + wrong.getMessage());
            err.print(USAGE_TEXT);
            return USAGE;
        } catch (LockException refusedOrFailed) {
            err.println("mongolock: " + refusedOrFailed.getMessage());
            return REFUSED;
        }
    }

    private static int execute(LockAdmin admin, AdminArguments arguments, PrintStream out, PrintStream err) {
        switch (arguments.command()) {
            case "list" -> {
                String prefix = arguments.option("prefix", "");
                int limit = arguments.intOption("limit", 100, 1, LockAdmin.MAX_LIMIT);
                LockStateText.table(admin.list(prefix, limit), out);
                PermitsStateText.table(admin.listPermits(prefix, limit), out);
                ReadWriteStateText.table(admin.readWriteLocks().list(prefix, limit), out);
            }
            case "inspect-rw" -> {
                Optional<ReadWriteState> lock = admin.readWriteLocks().inspect(arguments.name());
                if (lock.isEmpty()) {
                    err.println("mongolock: no read-write lock named \"" + arguments.name() + "\" (never used, or another collection)");
                    return REFUSED;
                }
                ReadWriteStateText.keyValues(lock.get(), out);
            }
            case "release-rw" -> ReadWriteStateText.released(admin.readWriteLocks().forceRelease(arguments.name(),
                    arguments.option("owner", null), arguments.option("reason", null)), out);
            case "inspect-permits" -> {
                Optional<PermitsState> semaphore = admin.inspectPermits(arguments.name());
                if (semaphore.isEmpty()) {
                    err.println("mongolock: no semaphore named \"" + arguments.name() + "\" (never used, or another collection)");
                    return REFUSED;
                }
                PermitsStateText.keyValues(semaphore.get(), out);
            }
            case "release-permits" -> releasePermits(admin, arguments, out);
            case "inspect" -> {
                Optional<LockState> lock = admin.inspect(arguments.name());
                if (lock.isEmpty()) {
                    err.println("mongolock: no lock named \"" + arguments.name() + "\" (never used, or another collection)");
                    return REFUSED;
                }
                LockStateText.keyValues(lock.get(), out);
            }
            default -> release(admin, arguments, out);
        }
        return OK;
    }

    private static void releasePermits(LockAdmin admin, AdminArguments arguments, PrintStream out) {
        String reason = arguments.option("reason", null);
        ForcedPermitRelease done = admin.forceReleasePermits(arguments.name(), arguments.option("owner", null), reason);
        PermitsState.Holder holder = done.holder();
        out.println("released " + holder.permits() + (holder.permits() == 1 ? " permit" : " permits") + " of semaphore \""
                + arguments.name() + "\" from " + holder.owner() + " by " + done.operator() + ": " + reason);
        if (done.sessionTold()) {
            out.println("its holder is told at its next renewal (within a third of its lease" + (holder.lease() == null ? ""
                    : ", " + LockStateText.duration(holder.lease())) + "), and believes it holds them until then");
        } else {
            out.println("WARNING: its holder's session could not be told (MongoDB unreachable): the holder may believe it"
                    + " holds them until its session's periodic check (every 60 renewals, about 20 leases)");
        }
    }

    private static void release(LockAdmin admin, AdminArguments arguments, PrintStream out) {
        String name = arguments.name();
        String reason = arguments.option("reason", null);
        String owner = arguments.option("owner", null);
        ForcedRelease done;
        if (owner == null) {
            done = admin.forceRelease(name, reason);
        } else {
            LockState seen = admin.inspect(name).orElseThrow(() -> new ForceReleaseRefusedException(name,
                    "Lock \"" + name + "\" was not released: there is no such lock. Nothing was changed."));
            done = admin.forceRelease(name, owner, seen.version(), reason);
        }
        LockState before = done.before();
        out.println("released lock \"" + name + "\" from " + before.owner() + " (token " + before.fencingToken() + ", "
                + before.holds() + (before.holds() == 1 ? " hold" : " holds") + ") by " + done.operator() + ": " + reason);
        if (done.sessionTold()) {
            out.println("its holder is told at its next renewal (within a third of its lease, " + LockStateText.duration(before.lease())
                    + "), and believes it holds the lock until then; the next grant gets a greater fencing token");
        } else {
            out.println("WARNING: its holder's session could not be told (MongoDB unreachable): the holder may believe it"
                    + " holds the lock until its session's periodic check (every 60 renewals, about 20 leases); the next"
                    + " grant gets a greater fencing token");
        }
    }

    private static ConnectionString connection(String uri) {
        try {
            return new ConnectionString(uri);
        } catch (IllegalArgumentException invalid) {
            // The driver's message can quote part of a badly escaped password: an operator's terminal, shell history
            // and log collectors must never see it (RedactedUri leaves it out then).
            RedactedUri shown = RedactedUri.of(uri);
            throw new AdminArguments.UsageError("--uri \"" + shown + "\" is not a MongoDB connection string: "
                    + shown.refusal(invalid));
        }
    }

    private static Duration timeout(String value) {
        try {
            Duration timeout = Duration.parse(value);
            if (!timeout.isNegative() && !timeout.isZero()) {
                return timeout;
            }
        } catch (DateTimeParseException invalid) {
            // reported below, with the rule
        }
        throw new AdminArguments.UsageError("--timeout " + RedactedUri.of(value) + " is not valid: expected a positive"
                + " ISO-8601 duration, e.g. PT10S");
    }
}
