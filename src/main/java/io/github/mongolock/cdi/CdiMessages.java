package io.github.mongolock.cdi;

import io.github.mongolock.Locked;
import io.github.mongolock.core.LockArguments;
import io.github.mongolock.mongo.RedactedUri;
import java.util.List;

/**
 * Every message of the CDI integration, in one place. Each has a stable id ({@code MONGOLOCK-CDI-nnn})
 * to search for, quotes the offending value, names where it came from (a method or a configuration
 * key) and says what to do.
 */
final class CdiMessages {

    private static final String PREFIX = "MONGOLOCK-CDI-";

    private CdiMessages() {
    }

    static String notADuration(String source, String value) {
        return id(1) + source + " = \"" + value + "\" is not an ISO-8601 duration: write e.g. PT5S, PT2M or PT0.5S.";
    }

    static String leaseOutOfRange(String source, String value) {
        return id(2) + source + " = \"" + value + "\" is out of range: a lease time must be between "
                + LockArguments.MIN_LEASE + " and " + LockArguments.MAX_LEASE + " (ISO-8601, e.g. PT30S).";
    }

    static String negativeWait(String source, String value) {
        return id(2) + source + " = \"" + value + "\" is negative: a wait time must be zero (one attempt) or positive,"
                + " e.g. PT5S.";
    }

    static String positionalReferenceOutOfRange(String method, String template, int index, int parameterCount) {
        return id(3) + "@Locked(\"" + template + "\") on " + method + " refers to argument {" + index + "}, but the method has "
                + parameterCount + " parameter(s)" + (parameterCount == 0 ? "" : " ({0} to {" + (parameterCount - 1) + "})")
                + ". Use an argument position that exists or a parameter name.";
    }

    static String unknownParameterName(String method, String template, String name, List<String> names) {
        return id(4) + "@Locked(\"" + template + "\") on " + method + " refers to {" + name + "}, but the method has no"
                + " parameter of that name; its parameters are " + names + ". Use one of them or an argument position like {0}.";
    }

    static String parameterNamesMissing(String method, String template, String name) {
        return id(5) + "@Locked(\"" + template + "\") on " + method + " refers to the parameter {" + name + "}, but "
                + method + " was compiled without parameter names. Compile with javac -parameters, or refer to the"
                + " argument by position, e.g. {0}.";
    }

    static String badTemplateSyntax(String method, String template, int index, String problem) {
        return id(6) + "@Locked(\"" + template + "\") on " + method + ": " + problem + " at index " + index
                + ". A reference is {0}, {1}, ... or {parameterName}; write {{ and }} for literal braces.";
    }

    static String badStaticName(String method, String rule) {
        return id(7) + "@Locked on " + method + " gives an invalid lock name: " + rule;
    }

    static String skipNotPossible(String method, String returnType) {
        return id(8) + "@Locked(onBusy = SKIP) on " + method + ", which returns " + returnType
                + ": a skipped call must return nothing, so SKIP is allowed only on methods returning void, Void,"
                + " Optional, CompletionStage or CompletableFuture. Change the return type or use onBusy = FAIL.";
    }

    static String noConnection(String uriKey) {
        return id(9) + "No MongoDB connection configured for mongolock: set " + uriKey
                + " (e.g. mongodb://db1,db2,db3/app?replicaSet=rs0) or expose a MongoClient bean (@Default) in the application.";
    }

    /**
     * @param shownUri the URI as {@link RedactedUri} shows it
     * @param reason   why the driver refused it, as {@link RedactedUri#refusal} shows it
     */
    static String badUri(String uriKey, String shownUri, String reason) {
        return id(10) + uriKey + " = \"" + shownUri + "\" is not a valid MongoDB connection string: " + reason
                + " Expected mongodb://host[:port][/database][?options], mongodb+srv://..., or memory: (the in-memory store, for tests).";
    }

    static String noDatabase(String databaseKey, String uriKey, boolean clientBean) {
        return id(11) + "No database configured for the lock collection: set " + databaseKey
                + (clientBean ? " (the application's MongoClient bean names no database)"
                        : " or name the database in " + uriKey + " (mongodb://host/<database>)") + ".";
    }

    static String badSetting(String key, String value, String rule) {
        return id(12) + key + " = \"" + value + "\" is not valid: " + rule;
    }

    static String notAnInteger(String key, String value) {
        return id(13) + key + " = \"" + value + "\" is not an integer: give an interceptor priority such as 100"
                + " (jakarta.interceptor.Interceptor.Priority.PLATFORM_BEFORE + 100, the default).";
    }

    static String managerNotCreated(String reason) {
        return id(14) + "The mongolock LockManager could not be created from its configuration: " + RedactedUri.within(reason);
    }

    /** @param reason the Config implementation's message, which may quote the value: a connection string in it is redacted */
    static String unreadable(String key, String reason) {
        return id(15) + "Configuration key " + key + " could not be read: " + RedactedUri.within(reason);
    }

    static String holdAtLeastOutOfRange(String source, String value) {
        return id(16) + source + " = \"" + value + "\" is out of range: a minimum hold must be between PT0S (none) and "
                + LockArguments.MAX_LEASE + " (ISO-8601, e.g. PT5M).";
    }

    static String leaseLossPolicyNotPossible(String method, String returnType, String policy, String instead) {
        return id(17) + "@Locked(onLeaseLost = " + policy + ") on " + method + ", which returns " + returnType + ": " + instead;
    }

    static String badElectionName(String key, String list, String problem) {
        return id(18) + key + " = " + LockArguments.quote(list) + ": " + problem + " List the elections to join as comma-separated lock"
                + " names, e.g. billing-leader,report-leader.";
    }

    static String badPollInterval(String key, String value, String rule) {
        return id(19) + key + " = \"" + value + "\" is not valid: " + rule;
    }

    static String unknownElection(String key, String election, String namesKey, List<String> names) {
        return id(20) + key + " is set, but \"" + election + "\" is not an election of " + namesKey + " " + names
                + ": add it there, or correct the name in the key.";
    }

    static String beanClassUnreadable(String beanClass, String reason) {
        return id(21) + "The bean class " + beanClass + " has @Locked methods, but mongolock could not load it to check them: "
                + reason + ". Make the class and the types its methods name loadable by the application.";
    }

    static String nullNameArgument(String method, String template, String argument) {
        return id(22) + "@Locked(\"" + template + "\") on " + method + " was called with argument " + argument + " null:"
                + " no lock name can be made from it (\"null\" would make one lock of every such call and of the text"
                + " \"null\"). The method did not run. Pass a value, or check the argument before the call.";
    }

    /** @param rule the lock name rule broken, quoting the name ({@code LockArguments.checkName}'s message) */
    static String badNameFromArguments(String method, String template, String rule) {
        return id(23) + "@Locked(\"" + template + "\") on " + method + " made an invalid lock name from its arguments: "
                + rule + " The method did not run.";
    }

    static String badPermits(String source, int value) {
        return id(24) + source + " = " + value + " is not valid: write 0 for a lock, or the semaphore's limit of permits held"
                + " at once (1 or more).";
    }

    static String permitsWithMinimumHold(String method) {
        return id(25) + "@Locked(permits) on " + method + " asks for a minimum hold too: a permit is given back when the method"
                + " returns. Remove holdAtLeast, or use a lock (permits = 0).";
    }

    static String permitsWithSeveralNames(String method, List<String> templates) {
        return id(29) + "@Locked(permits) on " + method + " names several templates " + quoted(templates) + ": a method runs"
                + " holding one permit of one semaphore. Name one semaphore, or use permits = 0 for a multi-lock.";
    }

    static String noNameTemplate(String method) {
        return id(26) + "@Locked({}) on " + method + " names no lock: give one name template, several for a multi-lock"
                + " (e.g. @Locked({\"account-{0}\", \"account-{1}\"})), or leave value out for <class>.<method>.";
    }

    static String emptyTemplateInMultiLock(String method, List<String> templates) {
        return id(27) + "@Locked(" + quoted(templates) + ") on " + method + " has an empty name template among several:"
                + " the default name <class>.<method> is for a single lock only. Write each lock's name template.";
    }

    static String repeatedTemplate(String method, List<String> templates, String template) {
        return id(28) + "@Locked(" + quoted(templates) + ") on " + method + " names the template \"" + template + "\" twice,"
                + " which always makes the same lock: list each template once.";
    }

    static String accessWithPermits(String method, Locked.Access access, int permits) {
        return id(30) + "@Locked(access = " + access + ") on " + method + " asks for permits = " + permits + " too: read and"
                + " write access is to a read-write lock, permits to a semaphore. Remove one of the two.";
    }

    static String accessWithSeveralNames(String method, Locked.Access access, List<String> templates) {
        return id(31) + "@Locked(access = " + access + ") on " + method + " names several templates " + quoted(templates)
                + ": a method runs with access to one read-write lock. Name one, or use access = EXCLUSIVE for a multi-lock.";
    }

    static String accessWithMinimumHold(String method, Locked.Access access) {
        return id(32) + "@Locked(access = " + access + ") on " + method + " asks for a minimum hold too: read and write"
                + " access is given back when the method returns. Remove holdAtLeast, or use a lock (access = EXCLUSIVE).";
    }

    static String accessOnStage(String method, Locked.Access access, String returnType) {
        return id(33) + "@Locked(access = " + access + ") on " + method + " returns " + returnType + ": read and write"
                + " access is re-entered by the thread that acquired it, and that thread goes on to other calls before the"
                + " stage completes. Make the method synchronous, or use a lock (access = EXCLUSIVE).";
    }

    static String badAccess(String key, String value) {
        return id(34) + key + " = \"" + value + "\" is not valid: write EXCLUSIVE (a lock), READ or WRITE (access to a"
                + " read-write lock).";
    }

    private static String quoted(List<String> templates) {
        return templates.stream().map(template -> "\"" + template + "\"").collect(java.util.stream.Collectors.joining(", ", "{", "}"));
    }

    private static String id(int number) {
        return PREFIX + String.format("%03d", number) + ": ";
    }
}
