/**
 * Percent-decoding of form bodies, query strings and path segments. Well-formed UTF-8
 * decodes as URLSearchParams and decodeURIComponent decode it; a byte that starts no
 * well-formed sequence (a lone surrogate's %ED%A0%80, an overlong %C0%AF, a stray %FF)
 * becomes a lone surrogate, U+DC80 to U+DCFF (Python's "surrogateescape"), not U+FFFD.
 * The text then stays ill-formed and the parameter layer refuses it, naming the
 * parameter (params.ts): with U+FFFD, two different passwords would read as one.
 */

/** An escaped byte over 0x7f: without one, every escape is ASCII and always well-formed. */
const HIGH_BYTE_ESCAPE = /%[89a-fA-F][0-9a-fA-F]/;
const ESCAPE_RUN = /(?:%[0-9a-fA-F]{2})+/g;
const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** An `a=1&b=2` form body or query string's pairs, in order (repeated keys included). */
export function formEntries(text: string): Iterable<[string, string]> {
  if (!HIGH_BYTE_ESCAPE.test(text)) return new URLSearchParams(text);
  const entries: Array<[string, string]> = [];
  for (const pair of text.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const key = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? "" : pair.slice(eq + 1);
    entries.push([decodeComponent(key.replaceAll("+", " ")), decodeComponent(value.replaceAll("+", " "))]);
  }
  return entries;
}

/** A path segment (`+` is itself there); a malformed escape such as `%zz` stays as it is. */
export function decodePathSegment(text: string): string {
  return text.includes("%") ? decodeComponent(text) : text;
}

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // Malformed escapes (kept as text, as URLSearchParams does) or ill-formed UTF-8.
    return text.replace(ESCAPE_RUN, (run) =>
      decodeEscapingInvalid(Buffer.from(run.replaceAll("%", ""), "hex")),
    );
  }
}

/** UTF-8 with each byte outside a well-formed sequence as a lone surrogate (see above). */
function decodeEscapingInvalid(bytes: Uint8Array): string {
  let out = "";
  let start = 0;
  for (let i = 0; i < bytes.length;) {
    const length = wellFormedLength(bytes, i);
    if (length > 0) {
      i += length;
      continue;
    }
    out += UTF8.decode(bytes.subarray(start, i)) + String.fromCharCode(0xdc00 + bytes[i]!);
    start = ++i;
  }
  return out + UTF8.decode(bytes.subarray(start));
}

/** The length of the well-formed UTF-8 sequence at `i` (the Unicode Standard's table 3-7), else 0. */
function wellFormedLength(bytes: Uint8Array, i: number): number {
  const lead = bytes[i]!;
  if (lead < 0x80) return 1;
  const shape = sequenceShape(lead);
  if (!shape || i + shape.length > bytes.length) return 0;
  const second = bytes[i + 1]!;
  if (second < shape.low || second > shape.high) return 0;
  for (let k = 2; k < shape.length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return 0;
  return shape.length;
}

/**
 * A lead byte's sequence length and the range of its second byte, which rules out
 * overlong forms (after E0 and F0), surrogates (after ED) and code points over U+10FFFF
 * (after F4); null for a byte no sequence starts with (80 to C1, F5 to FF).
 */
function sequenceShape(lead: number): { length: number; low: number; high: number } | null {
  if (lead >= 0xc2 && lead <= 0xdf) return { length: 2, low: 0x80, high: 0xbf };
  if (lead === 0xe0) return { length: 3, low: 0xa0, high: 0xbf };
  if (lead === 0xed) return { length: 3, low: 0x80, high: 0x9f };
  if (lead >= 0xe1 && lead <= 0xef) return { length: 3, low: 0x80, high: 0xbf };
  if (lead === 0xf0) return { length: 4, low: 0x90, high: 0xbf };
  if (lead >= 0xf1 && lead <= 0xf3) return { length: 4, low: 0x80, high: 0xbf };
  if (lead === 0xf4) return { length: 4, low: 0x80, high: 0x8f };
  return null;
}
