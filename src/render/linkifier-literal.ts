/**
 * A literal prefilter for linkifier patterns. re2js is several times slower than a
 * native engine, and most text matches none of a realm's linkifiers; a pattern usually
 * needs some fixed text ("#", "JIRA-", "github.com/"), so a text without it is skipped
 * with one indexOf instead of a run of RE2.
 */

/** Quantifiers that may repeat what they follow zero times, and those that need it once. */
const OPTIONAL_AFTER = /^(?:\?|\*|\{0*(?:,\d*)?\})/;
const REQUIRED_AFTER = /^(?:\+|\{0*[1-9]\d*(?:,\d*)?\})/;

/**
 * The longest text every match of `pattern` contains, or "" when none is known. It is
 * conservative: anything it does not fully understand (alternation at the top level,
 * flags, \Q...\E) gives "", and groups, classes and escapes other than escaped
 * punctuation only end a run of literal characters.
 */
export function requiredLiteral(pattern: string): string {
  if (/\(\?[a-zA-Z-]+[:)]/.test(pattern)) return "";
  if (pattern.includes("\\Q")) return "";
  let best = "";
  let run = "";
  const endRun = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  let depth = 0;
  for (let i = 0; i < pattern.length;) {
    const c = pattern[i]!;
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      if (next === "" || /\p{N}/u.test(next)) return "";
      if (/\p{L}/u.test(next)) {
        // A class (\d, \pL), an assertion (\b) or a code point (\x41): no literal here.
        endRun();
        const end = escapeEnd(pattern, i);
        if (end < 0) return "";
        i = skipQuantifier(pattern, end);
        continue;
      }
      i = literal(next, i + 2);
      continue;
    }
    if (c === "[") {
      endRun();
      i = skipQuantifier(pattern, classEnd(pattern, i));
      if (i < 0) return "";
      continue;
    }
    if (c === "(") {
      endRun();
      depth++;
      i++;
      continue;
    }
    if (c === ")") {
      endRun();
      depth--;
      i = skipQuantifier(pattern, i + 1);
      continue;
    }
    if (c === "|") {
      // An alternative at the top level: no text is required by every match.
      if (depth === 0) return "";
      endRun();
      i++;
      continue;
    }
    if (c === "." || c === "^" || c === "$") {
      endRun();
      i = skipQuantifier(pattern, i + 1);
      continue;
    }
    if (depth > 0) {
      // Inside a group, which may hold alternatives or be optional: take nothing from it.
      i++;
      continue;
    }
    i = literal(c, i + 1);
  }
  endRun();
  return best;

  /** A literal character `ch` ending at `at`: kept unless a quantifier makes it optional. */
  function literal(ch: string, at: number): number {
    if (depth > 0) return at;
    const rest = pattern.slice(at);
    const optional = OPTIONAL_AFTER.exec(rest);
    if (optional) {
      endRun();
      return skipLazy(pattern, at + optional[0].length);
    }
    const required = REQUIRED_AFTER.exec(rest);
    run += ch;
    if (required) {
      // Needed once, then maybe repeated: what follows is not adjacent to it.
      endRun();
      return skipLazy(pattern, at + required[0].length);
    }
    return at;
  }
}

/** The index after an escape with a letter at `start` (`\\d`, `\\pL`, `\\p{Greek}`, `\\x41`, `\\x{41}`), or -1. */
function escapeEnd(pattern: string, start: number): number {
  const letter = pattern[start + 1]!;
  const braced = pattern[start + 2] === "{";
  if (letter === "p" || letter === "P" || letter === "x") {
    if (braced) {
      const close = pattern.indexOf("}", start + 3);
      return close < 0 ? -1 : close + 1;
    }
    return start + (letter === "x" ? 4 : 3);
  }
  return start + 2;
}

function skipLazy(pattern: string, at: number): number {
  return pattern[at] === "?" ? at + 1 : at;
}

function skipQuantifier(pattern: string, at: number): number {
  if (at < 0) return at;
  const rest = pattern.slice(at);
  const found = OPTIONAL_AFTER.exec(rest) ?? REQUIRED_AFTER.exec(rest);
  return found ? skipLazy(pattern, at + found[0].length) : at;
}

/** The index after a character class starting at `start`, or -1 when it does not end. */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === "^") i++;
  if (pattern[i] === "]") i++;
  for (; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === "[" && pattern[i + 1] === ":") {
      const close = pattern.indexOf(":]", i + 2);
      if (close < 0) return -1;
      i = close + 1;
    } else if (pattern[i] === "]") return i + 1;
  }
  return -1;
}
