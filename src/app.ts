import type { IncomingMessage } from "node:http";
import type { Knex } from "knex";
import type { ChannelCache } from "./cache/channel-cache.js";
import type { PresenceStore } from "./cache/presence-store.js";
import type { RealmCache } from "./cache/realm-cache.js";
import type { SendRulesCache } from "./cache/send-rules-cache.js";
import type { SessionCache } from "./cache/session-cache.js";
import type { UserStateCache } from "./cache/user-state-cache.js";
import type { Clock } from "./clock.js";
import type { Config } from "./config.js";
import type { GroupCommit } from "./db/group-commit.js";
import type { Db, Tx } from "./db/tx.js";
import type { EventHub } from "./events/hub.js";
import type { BatchedWrites } from "./lib/batched-writes.js";
import type { DueTimer } from "./lib/due-timer.js";
import type { PreparedMessage } from "./lib/prepared-message.js";
import type { JobQueue } from "./lib/job-queue.js";
import type { BlobStore } from "./lib/storage/index.js";
import type { RateLimiter } from "./lib/rate-limiter.js";
import type { AllowedPrivateHosts } from "./lib/webhook-targets.js";
import type { Logger } from "./logger.js";

/**
 * Everything a request, an action or a CLI command needs, built once per process by
 * server/create-app.ts. Actions publish events only through `db`: its transactions, or
 * `db.publish` for ephemeral ones; `events` (the queues) is for the API's event endpoints
 * and the server's lifecycle.
 */
export interface App {
  readonly config: Config;
  /** The read pool; writes go through `db`. */
  readonly knex: Knex;
  readonly db: Db;
  readonly events: EventHub;
  /** Realm rows, users and groups, per realm; and the API-key index. */
  readonly realms: RealmCache;
  /** The web client's sessions, by token hash. */
  readonly sessions: SessionCache;
  /** Channels, subscriptions, default channels and folders, per realm. */
  readonly channels: ChannelCache;
  /** The caller's newest message ID and profile values (GET /users/me). */
  readonly userState: UserStateCache;
  /** Alert words and muted users, per realm: what message sends check. */
  readonly sendRules: SendRulesCache;
  /**
   * Writes of POST /messages (actions/message-send.ts): sends that arrive while one
   * commits share the next transaction. Returns each message's ID.
   */
  readonly messageSends: GroupCommit<PreparedMessage, number>;
  /** Users' presence: the source of truth, written to the database in batches. */
  readonly presence: PresenceStore;
  /**
   * Delivers scheduled messages and reminders when due (actions/scheduled-delivery.ts):
   * one timer, told of new due times after commits, started with the event queues.
   */
  readonly scheduledDelivery: DueTimer;
  /**
   * Sends outgoing webhooks (actions/outgoing-webhooks.ts) from their durable queue, off
   * the request path: told of new deliveries after commits, started with the event queues.
   */
  readonly outgoingWebhooks: DueTimer;
  /**
   * Emails users' missed messages in batches (actions/missed-message-emails.ts): told of
   * new due times after commits, started with the event queues.
   */
  readonly missedMessageEmails: DueTimer;
  /**
   * Sends queued email (actions/email-delivery.ts) off the request path: told of new
   * emails after commits, started with the event queues.
   */
  readonly emailDelivery: DueTimer;
  /** Runs requested data exports (actions/realm-export.ts) off the request path. */
  readonly realmExports: DueTimer;
  /** The private targets outgoing webhooks may reach (`webhook_allowed_private_hosts`), parsed once. */
  readonly webhookAllowedHosts: AllowedPrivateHosts;
  /** Outgoing webhook deliveries under way, by delivery ID. */
  readonly webhookDeliveries: Map<number, Promise<void>>;
  /**
   * Finished outgoing webhook deliveries: the row's removal and what the result posts,
   * written in batches so the worker never takes the write lock once per delivery.
   */
  readonly webhookResults: BatchedWrites<{ id: number; effects?: (tx: Tx) => Promise<void> }>;
  /** Uploaded files, thumbnails and avatars (<data_dir>/uploads). */
  readonly uploads: BlobStore;
  /** Background work off the request path (thumbnails), one job at a time. */
  readonly jobs: JobQueue;
  /** Zulip's rate-limit domains (api_by_user, api_by_ip, authenticate_by_username); no rules when rate_limiting is off. */
  readonly rateLimits: RateLimiter;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The client's address for per-IP rate limits (http/client-ip.ts: trusted proxies' X-Forwarded-For). */
  readonly clientIp: (req: IncomingMessage) => string;
  /** scrypt cost of new password hashes (lib/passwords.ts); cheaper only in tests. */
  readonly scrypt: { readonly N: number; readonly r: number; readonly p: number };
  /** Housekeeping to stop when the app closes (timers). */
  readonly onClose: Array<() => void>;
}
