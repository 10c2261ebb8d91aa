import type { StateContext } from "./state-context.js";

/**
 * A device's push registration as register reports it (Zulip's DeviceInfoDict). chatd
 * has no push service, so no device ever has a key or a token.
 */
export const NO_PUSH_REGISTRATION = {
  push_key_id: null,
  push_token_id: null,
  pending_push_token_id: null,
  push_token_last_updated_timestamp: null,
  push_registration_error_code: null,
} as const;

/** The `device` fetch type of /register: the user's devices by ID. */
export async function fetchDevicesState(ctx: StateContext): Promise<Record<string, unknown>> {
  const rows = await ctx
    .knex("client_devices")
    .where({ user_id: ctx.user.id })
    .orderBy("id")
    .select<Array<{ id: number }>>("id");
  return { devices: Object.fromEntries(rows.map((row) => [String(row.id), { ...NO_PUSH_REGISTRATION }])) };
}
