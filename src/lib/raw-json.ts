import { randomBytes } from "node:crypto";

/**
 * JSON text encoded ahead of time, put into a response as it is. For large values
 * assembled from cached parts (everyone's presence, polled by every client every
 * minute), where serializing and encoding the whole value on each request would cost
 * far more than copying the parts.
 */
export class RawJson {
  constructor(readonly chunks: readonly Buffer[]) {}
}

const OPEN = Buffer.from("{");
const CLOSE = Buffer.from("}");

/** The encoded member `,"key":value` (leading comma included) of a JSON object. */
export function jsonMember(key: string, value: unknown): Buffer {
  return Buffer.from(`,${JSON.stringify(key)}:${JSON.stringify(value)}`);
}

/** A JSON object of members made by jsonMember (copied: the caller may reuse its list). */
export function rawJsonObject(members: readonly Buffer[]): RawJson {
  const chunks: Buffer[] = new Array<Buffer>(members.length + 2);
  chunks[0] = OPEN;
  for (let i = 0; i < members.length; i++) chunks[i + 1] = i === 0 ? members[0]!.subarray(1) : members[i]!;
  chunks[members.length + 1] = CLOSE;
  return new RawJson(chunks);
}

/** Marks where a RawJson value goes; the nonce keeps user data from ever matching it. */
const PLACEHOLDER = `\u0000raw-json-${randomBytes(8).toString("hex")}-`;
/** How the placeholder reads in JSON text: its opening quote and escaped characters. */
const ENCODED_PLACEHOLDER = JSON.stringify(PLACEHOLDER).slice(0, -1);

/**
 * Encodes an object whose top-level values may be RawJson: the rest is serialized as
 * usual and each RawJson is spliced in where its placeholder went. Null when there is
 * no RawJson (the caller serializes as usual).
 */
export function encodeWithRawJson(body: Record<string, unknown>): Buffer | null {
  if (!Object.values(body).some((value) => value instanceof RawJson)) return null;
  const raws: RawJson[] = [];
  const replaced: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    replaced[key] = value instanceof RawJson ? `${PLACEHOLDER}${raws.push(value) - 1}` : value;
  }
  const text = JSON.stringify(replaced);
  // The serialized text around the placeholders, and the raw values between.
  const pieces: Array<Buffer | RawJson> = [];
  let from = 0;
  for (let at = text.indexOf(ENCODED_PLACEHOLDER); at !== -1; at = text.indexOf(ENCODED_PLACEHOLDER, from)) {
    const end = text.indexOf('"', at + ENCODED_PLACEHOLDER.length);
    pieces.push(
      Buffer.from(text.slice(from, at)),
      raws[Number(text.slice(at + ENCODED_PLACEHOLDER.length, end))]!,
    );
    from = end + 1;
  }
  pieces.push(Buffer.from(text.slice(from)));
  let length = 0;
  for (const piece of pieces) {
    if (piece instanceof RawJson) for (const chunk of piece.chunks) length += chunk.length;
    else length += piece.length;
  }
  const out = Buffer.allocUnsafe(length);
  let offset = 0;
  for (const piece of pieces) {
    if (piece instanceof RawJson) for (const chunk of piece.chunks) offset += chunk.copy(out, offset);
    else offset += piece.copy(out, offset);
  }
  return out;
}
