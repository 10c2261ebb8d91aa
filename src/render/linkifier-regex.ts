import { createRequire } from "node:module";
import type { RE2JS, RE2JSSyntaxException } from "re2js";

interface Re2Module {
  RE2JS: typeof RE2JS;
  RE2JSSyntaxException: typeof RE2JSSyntaxException;
}
let re2: Re2Module | null = null;
/** re2js (about 1 MB of heap) is loaded by the first linkifier compiled, not at start. */
const loadRe2 = (): Re2Module => (re2 ??= createRequire(import.meta.url)("re2js") as Re2Module);

/**
 * Linkifier patterns compiled as Zulip compiles them, with RE2 (the re2js port): matching
 * takes time linear in the text, whatever the pattern (`(a+)+b` included), and what RE2
 * refuses (lookarounds, backreferences) is refused.
 */

/** RE2's own words (what Zulip's error shows) for the Go wording re2js reports. */
const RE2_WORDING: Record<string, string> = {
  "invalid named capture": "invalid named capture group",
  "invalid or unsupported Perl syntax": "invalid perl operator",
  "invalid nested repetition operator": "bad repetition operator",
  "invalid repeat count": "bad repetition operator",
  "missing closing ]": "missing ]",
  "missing closing )": "missing )",
  "missing argument to repetition operator": "no argument for repetition operator",
  "trailing backslash at end of expression": "trailing \\",
};

/** RE2's error for a pattern ("missing ): (foo"); null when the reason is not known. */
export type Re2Result = { regex: RE2JS } | { regex: null; error: string | null };

export function compileRe2(pattern: string): Re2Result {
  const { RE2JS, RE2JSSyntaxException } = loadRe2();
  try {
    return { regex: RE2JS.compile(pattern) };
  } catch (err) {
    if (!(err instanceof RE2JSSyntaxException)) return { regex: null, error: null };
    const words = RE2_WORDING[err.error] ?? err.error;
    return { regex: null, error: err.input ? `${words}: ${err.input}` : words };
  }
}

/** The named groups of a pattern RE2 compiled. */
export const namedGroupsOf = (regex: RE2JS): Set<string> => new Set(Object.keys(regex.namedGroups()));
