import {
  hasCapability,
  type Flavour,
  type RealmEmojiEvent,
  type RealmLinkifiersEvent,
  type RealmPlaygroundsEvent,
  type RealmDomainsEvent,
  type WireCustomEmoji,
} from "../../wire/events.js";

/**
 * realm_emoji, realm_linkifiers and realm_playgrounds events. A realm_emoji event carries the realm's whole emoji dictionary after the change,
 * so clients without individual_emoji_changes get Zulip's legacy `update` with it.
 */
export const realmEmojiEvents = {
  add(emoji: WireCustomEmoji, all: Record<string, WireCustomEmoji>): RealmEmojiEvent {
    return { type: "realm_emoji", op: "add", emoji, realm_emoji: all };
  },
  deactivated(emojiId: string, all: Record<string, WireCustomEmoji>): RealmEmojiEvent {
    return {
      type: "realm_emoji",
      op: "edit",
      emoji_id: emojiId,
      data: { deactivated: true },
      realm_emoji: all,
    };
  },
};

export const realmEmojiFlavour: Flavour<"realm_emoji"> = (event, { options }) => {
  if (event.op === "update") return event;
  if (!hasCapability(options, "individual_emoji_changes")) {
    return { type: "realm_emoji", op: "update", realm_emoji: event.realm_emoji };
  }
  const { realm_emoji: _all, ...individual } = event;
  return individual;
};

export const realmLinkifiersEvent = (
  linkifiers: RealmLinkifiersEvent["realm_linkifiers"],
): RealmLinkifiersEvent => ({
  type: "realm_linkifiers",
  realm_linkifiers: linkifiers,
});

/** Zulip sends realm_linkifiers only to clients that know url_template (linkifier_url_template). */
export const realmLinkifiersFlavour: Flavour<"realm_linkifiers"> = (event, { options }) =>
  hasCapability(options, "linkifier_url_template") ? event : null;

export const realmPlaygroundsEvent = (
  playgrounds: RealmPlaygroundsEvent["realm_playgrounds"],
): RealmPlaygroundsEvent => ({ type: "realm_playgrounds", realm_playgrounds: playgrounds });

/** realm_domains: one domain added, changed (allow_subdomains) or removed. */
export const realmDomainsEvents = {
  add: (domain: string, allowSubdomains: boolean): RealmDomainsEvent => ({
    type: "realm_domains",
    op: "add",
    realm_domain: { domain, allow_subdomains: allowSubdomains },
  }),
  change: (domain: string, allowSubdomains: boolean): RealmDomainsEvent => ({
    type: "realm_domains",
    op: "change",
    realm_domain: { domain, allow_subdomains: allowSubdomains },
  }),
  remove: (domain: string): RealmDomainsEvent => ({ type: "realm_domains", op: "remove", domain }),
};
