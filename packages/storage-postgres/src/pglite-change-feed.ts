/**
 * The change feed over PGlite: the database lives in this process, so every adapter over one
 * PGlite instance shares one in-process feed (core's local feed) kept beside the instance. Nothing
 * goes through SQL, so a publish from inside a transaction's async context never waits for the
 * single connection that transaction holds, and there is no connection to lose.
 * @module
 */
import type { PGlite } from '@electric-sql/pglite';
import { createLocalChangeFeed, type LocalChangeFeed } from '@agent-platform/core/adapter-kit';
import { decodeChange, encodeChange, Subscriptions, type OwnedChangeFeed } from './change-feed.js';

const feeds = new WeakMap<PGlite, LocalChangeFeed>();

function sharedFeed(db: PGlite): LocalChangeFeed {
  let feed = feeds.get(db);
  if (!feed) {
    feed = createLocalChangeFeed();
    feeds.set(db, feed);
  }
  return feed;
}

/** One adapter's view of the feed of `db`; `assertOpen` throws once the adapter is closed. */
export function createPGliteChangeFeed(db: PGlite, assertOpen: () => void): OwnedChangeFeed {
  const feed = sharedFeed(db);
  const subscriptions = new Subscriptions();
  return {
    async publish(change) {
      assertOpen();
      // What a listener gets is a copy in the payload's shape, as over PostgreSQL.
      const copy = decodeChange(encodeChange(change));
      if (copy) feed.emit(copy);
    },
    async subscribe(listener) {
      assertOpen();
      return subscriptions.add(await feed.subscribe(listener));
    },
    close() {
      return subscriptions.stopAll();
    },
  };
}
