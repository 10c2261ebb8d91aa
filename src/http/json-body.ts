import { RawJson } from "../lib/raw-json.js";

/**
 * A response body's JSON: its text, or its parts when top-level values are RawJson
 * (encoded ahead of time), which go out as they are instead of being copied into one
 * buffer. The same bytes as JSON.stringify, or as encodeWithRawJson (lib/raw-json.ts).
 */
export function jsonBody(body: Record<string, unknown>): string | Buffer[] {
  if (!Object.values(body).some((value) => value instanceof RawJson)) return JSON.stringify(body);
  const parts: Buffer[] = [];
  let text = "{";
  let separator = "";
  for (const [key, value] of Object.entries(body)) {
    if (value instanceof RawJson) {
      parts.push(Buffer.from(`${text}${separator}${JSON.stringify(key)}:`), ...value.chunks);
      text = "";
    } else {
      // As JSON.stringify does with a member it cannot encode (undefined, a function).
      const encoded = JSON.stringify(value) as string | undefined;
      if (encoded === undefined) continue;
      text += `${separator}${JSON.stringify(key)}:${encoded}`;
    }
    separator = ",";
  }
  parts.push(Buffer.from(`${text}}`));
  return parts;
}
