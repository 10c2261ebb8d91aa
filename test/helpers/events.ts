import { expect } from "chai";
import { type Client, type Params, expectSuccess } from "./client.js";
import { applyEvents, type Event, type State } from "./apply-events.js";

/** Registers a queue; returns the whole response. */
export async function register(client: Client, params: Params = {}): Promise<State> {
  return expectSuccess(await client.post("/register", params)) as State;
}

/** Events queued so far (no waiting), after acknowledging up to lastEventId. */
export async function pendingEvents(client: Client, queueId: string, lastEventId = -1): Promise<Event[]> {
  const body = expectSuccess(
    await client.get("/events", { queue_id: queueId, last_event_id: lastEventId, dont_block: true }),
  );
  return body.events as Event[];
}

/**
 * Keys no event updates: queue identity, fetch times, and presence_last_update_id, which
 * Zulip's apply_event also leaves as fetched (presence events carry no update ID).
 */
const VOLATILE = [
  "queue_id",
  "last_event_id",
  "result",
  "msg",
  "server_timestamp",
  "presence_last_update_id",
];

/** The state without the keys no event updates (VOLATILE). */
export function stable(state: State): State {
  const copy: State = structuredClone(state);
  for (const key of VOLATILE) delete copy[key];
  return copy;
}

/**
 * Zulip's verify_action: register, act, apply the queued events to the first state,
 * and compare with a fresh register. Returns the events for further assertions.
 */
export async function verifyRegisterParity(
  client: Client,
  registerParams: Params,
  act: () => Promise<void>,
): Promise<Event[]> {
  const me = expectSuccess(await client.get("/users/me"));
  const before = await register(client, registerParams);
  await act();
  const events = (await pendingEvents(client, before.queue_id as string)).filter(
    (e) => e.type !== "heartbeat",
  );
  const include = registerParams.include_subscribers;
  const capabilities = registerParams.client_capabilities;
  const applied = applyEvents(stable(before), events, {
    userId: me.user_id as number,
    includeSubscribers: include === "partial" ? "partial" : include === true || include === "true",
    capabilities: (typeof capabilities === "string" ? JSON.parse(capabilities) : capabilities) as
      Record<string, boolean> | undefined,
  });
  const fresh = stable(await register(client, registerParams));
  const differing = Object.keys({ ...applied, ...fresh }).filter(
    (key) => JSON.stringify(applied[key]) !== JSON.stringify(fresh[key]),
  );
  const detail = differing
    .map(
      (key) => `${key}:\n  applied ${JSON.stringify(applied[key])}\n  fresh   ${JSON.stringify(fresh[key])}`,
    )
    .join("\n");
  expect(applied, `register state + events differs from a fresh register in ${detail}`).to.deep.equal(fresh);
  return events;
}
