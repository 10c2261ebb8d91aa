import { expect } from "chai";
import { FLAVOURS, type FlavourTable } from "../../src/events/flavours.js";
import type { ChatEvent, EventOf } from "../../src/wire/events.js";
import { messageFlavour } from "../../src/presenters/events/messages.js";
import { streamEvents } from "../../src/presenters/events/channels.js";

/**
 * The event types are checked by the compiler, not at run time: each `@ts-expect-error`
 * below fails the build (npm test compiles first) if the types stop refusing it.
 */
describe("event types", function () {
  it("make the flavour table decide every event type", function () {
    const { typing: _typing, ...withoutTyping } = FLAVOURS;
    // @ts-expect-error: a table that forgets an event type does not compile.
    const incomplete: FlavourTable = withoutTyping;
    // @ts-expect-error: a flavour only takes events of its own type.
    const mismatched: FlavourTable = { ...FLAVOURS, stream: messageFlavour };
    expect(incomplete).to.not.have.property("typing");
    expect(mismatched.stream).to.equal(messageFlavour);
  });

  it("refuse events of unknown types and events missing their fields", function () {
    // @ts-expect-error: not a member of the ChatEvent union.
    const unknown: ChatEvent = { type: "not_an_event" };
    // @ts-expect-error: message events carry the flavour's hints (_hints).
    const noHints: EventOf<"message"> = { type: "message", message: {} as never };
    // @ts-expect-error: the stream flavour's hint is a channel dictionary.
    const badHint: EventOf<"stream"> = { ...streamEvents.archived({ id: 1, name: "x" }), _channel: 1 };
    expect([unknown, noHints, badHint].map((e) => e.type)).to.deep.equal([
      "not_an_event",
      "message",
      "stream",
    ]);
  });
});
