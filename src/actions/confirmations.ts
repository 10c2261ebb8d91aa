import type { Knex } from "knex";
import type { Tx } from "../db/tx.js";
import { insertReturningId } from "../db/insert.js";
import {
  generateConfirmationToken,
  hasConfirmationTokenFormat,
  hashConfirmationToken,
  type ConfirmationKind,
  type ConfirmationState,
} from "../lib/confirmation-tokens.js";

/** A row of `confirmations` (migrations/20261201000000_email_and_confirmations.ts). */
export interface ConfirmationRow {
  id: number;
  realm_id: number;
  kind: ConfirmationKind;
  token_hash: string;
  object_id: number | null;
  email: string | null;
  data: string;
  created_at: number;
  expires_at: number | null;
  used_at: number | null;
  revoked_at: number | null;
}

export interface NewConfirmation {
  realmId: number;
  kind: ConfirmationKind;
  objectId?: number | null;
  email?: string | null;
  data?: Record<string, unknown>;
  /** UNIX seconds; null: never expires. */
  expiresAt: number | null;
}

/** Creates a confirmation link's row; returns its ID and the token (shown once, never stored). */
export async function createConfirmation(
  tx: Tx,
  input: NewConfirmation,
): Promise<{ id: number; token: string }> {
  const token = generateConfirmationToken();
  const id = await insertReturningId(tx.knex, "confirmations", {
    realm_id: input.realmId,
    kind: input.kind,
    token_hash: hashConfirmationToken(token),
    object_id: input.objectId ?? null,
    email: input.email ?? null,
    data: JSON.stringify(input.data ?? {}),
    created_at: tx.now,
    expires_at: input.expiresAt,
  });
  return { id, token };
}

/** The state of a row at `now` (UNIX seconds). */
export function confirmationState(row: ConfirmationRow | undefined, now: number): ConfirmationState {
  if (!row) return "unknown";
  if (row.revoked_at !== null) return "revoked";
  if (row.used_at !== null) return "used";
  if (row.expires_at !== null && Number(row.expires_at) <= now) return "expired";
  return "valid";
}

/**
 * The confirmation a link's token names, of one of `kinds`, and its state at `now`. A token
 * of the wrong shape or kind is `unknown`, exactly as one never issued.
 */
export async function findConfirmation(
  knex: Knex | Knex.Transaction,
  token: string,
  kinds: readonly ConfirmationKind[],
  now: number,
): Promise<{ row: ConfirmationRow | undefined; state: ConfirmationState }> {
  if (!hasConfirmationTokenFormat(token)) return { row: undefined, state: "unknown" };
  const row = await knex<ConfirmationRow>("confirmations")
    .where({ token_hash: hashConfirmationToken(token) })
    .whereIn("kind", kinds)
    .first();
  return { row, state: confirmationState(row, now) };
}

/**
 * Marks a confirmation used, in the transaction that acts on it; false when another
 * request used, revoked or outlived it first (the caller then refuses and writes nothing).
 */
export async function useConfirmation(tx: Tx, id: number): Promise<boolean> {
  const updated = await tx
    .knex("confirmations")
    .where({ id, used_at: null, revoked_at: null })
    .where((q) => void q.whereNull("expires_at").orWhere("expires_at", ">", tx.now))
    .update({ used_at: tx.now });
  return updated === 1;
}

/** Revokes the confirmations of `kind` for one object (an invitation revoked, older resets). */
export async function revokeConfirmations(
  tx: Tx,
  realmId: number,
  kind: ConfirmationKind,
  objectId: number,
): Promise<void> {
  await tx
    .knex("confirmations")
    .where({ realm_id: realmId, kind, object_id: objectId, used_at: null, revoked_at: null })
    .update({ revoked_at: tx.now });
}
