/**
 * Locks without MongoDB, for tests: {@link io.github.mongolock.memory.InMemoryLocks} builds lock managers on one
 * {@link io.github.mongolock.memory.InMemoryLockStore}, which keeps MongoDB's lock protocol (checked by the same
 * contract suite) in a map of this JVM, and offers controls that make a held lock's lease end. In a CDI
 * application, {@code mongolock.uri=memory:} backs {@code @Locked} with it. Knows neither MongoDB nor CDI.
 */
package io.github.mongolock.memory;
