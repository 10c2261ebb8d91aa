/**
 * An event as actions produce it: Zulip's wire shape ({type, op?, ...}), before the
 * per-queue `id`. Types that vary by client (message content flavour, capabilities)
 * are reshaped for each queue by their flavour in events/flavours.ts.
 */
export interface ChatEvent {
  readonly type: string;
  readonly op?: string;
  readonly [key: string]: unknown;
}

/**
 * Who receives an event: user IDs, or per-user extra data merged into the event
 * (message events carry each recipient's own flags).
 */
export type EventRecipients = Iterable<number> | ReadonlyMap<number, Record<string, unknown>>;

/** What a client asked for when it registered; stored with its queue. */
export interface QueueOptions {
  /** null = all event types. */
  readonly eventTypes: readonly string[] | null;
  readonly applyMarkdown: boolean;
  readonly clientGravatar: boolean;
  readonly slimPresence: boolean;
  readonly allPublicStreams: boolean;
  /** [operator, operand] pairs filtering message events. */
  readonly narrow: ReadonlyArray<readonly [string, string]>;
  readonly capabilities: Readonly<Record<string, boolean>>;
  readonly idleTimeoutSecs: number;
  readonly clientName: string;
}

export const CLIENT_CAPABILITIES = [
  "notification_settings_null",
  "bulk_message_deletion",
  "user_avatar_url_field_optional",
  "stream_typing_notifications",
  "user_settings_object",
  "linkifier_url_template",
  "user_list_incomplete",
  "include_deactivated_groups",
  "archived_channels",
  "empty_topic_name",
  "simplified_presence_events",
  "individual_emoji_changes",
] as const;

export type ClientCapability = (typeof CLIENT_CAPABILITIES)[number];

export const hasCapability = (options: QueueOptions, capability: ClientCapability) =>
  options.capabilities[capability] === true;

export interface FlavourContext {
  readonly userId: number;
  /** The queue the event is going to. */
  readonly queueId: string;
  readonly options: QueueOptions;
  /** Per-recipient data the sender attached (e.g. a message's flags for this user). */
  readonly extra: Record<string, unknown> | undefined;
}

/**
 * Reshapes an event for one queue (client capabilities, Markdown or not, per-user
 * fields). Returns the event(s) this queue gets, or null for none.
 */
export type Flavour = (event: ChatEvent, ctx: FlavourContext) => ChatEvent | ChatEvent[] | null;
