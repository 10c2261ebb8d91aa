import type { QueueOptions } from "../../src/wire/events.js";

/** A queue's options as a plain API client registers it, with `overrides`. */
export function queueOptions(overrides: Partial<QueueOptions> = {}): QueueOptions {
  return {
    eventTypes: null,
    applyMarkdown: false,
    clientGravatar: false,
    slimPresence: false,
    allPublicStreams: false,
    narrow: [],
    capabilities: {},
    idleTimeoutSecs: 600,
    clientName: "test",
    ...overrides,
  };
}
