/**
 * `<time:...>` in messages. Zulip parses the text with python-dateutil; this is a smaller
 * parser for the forms people and clients write: Unix timestamps, ISO 8601, and dates
 * such as "31 Dec 2017", "Jun 5th 2017, 10:30PM" or "Dec 31 2017 5:30 am IST". A time
 * without a zone is UTC. Missing date parts are taken from today (UTC), as dateutil does.
 * Returns the instant as Zulip writes it ("2017-12-31T00:00:00Z"), or null.
 */

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/** Offsets in minutes of the zone abbreviations people commonly type. */
const ZONE_OFFSETS: Record<string, number> = {
  utc: 0,
  gmt: 0,
  z: 0,
  wet: 0,
  bst: 60,
  cet: 60,
  west: 60,
  cest: 120,
  eet: 120,
  eest: 180,
  msk: 180,
  ist: 330,
  pkt: 300,
  ict: 420,
  sgt: 480,
  hkt: 480,
  awst: 480,
  jst: 540,
  kst: 540,
  acst: 570,
  aest: 600,
  aedt: 660,
  nzst: 720,
  nzdt: 780,
  hst: -600,
  akst: -540,
  akdt: -480,
  pst: -480,
  pdt: -420,
  mst: -420,
  mdt: -360,
  cst: -360,
  cdt: -300,
  est: -300,
  edt: -240,
  ast: -240,
  adt: -180,
  nst: -210,
  ndt: -150,
};

interface Parts {
  year?: number;
  month?: number; // 1-12
  day?: number;
  hour?: number;
  minute?: number;
  second?: number;
  fraction?: string;
  meridiem?: "am" | "pm";
  offset?: number; // minutes east of UTC
}

function formatIso(ms: number, fraction: string | undefined): string | null {
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return null;
  const year = date.getUTCFullYear();
  if (year < 1 || year > 9999) return null;
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  const micro = fraction ? `.${fraction.padEnd(6, "0").slice(0, 6)}` : "";
  return (
    `${pad(year, 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}` +
    `T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}${micro}Z`
  );
}

function fromParts(parts: Parts, now: Date): string | null {
  const year = parts.year ?? now.getUTCFullYear();
  const month = parts.month ?? now.getUTCMonth() + 1;
  const day = parts.day ?? now.getUTCDate();
  let hour = parts.hour ?? 0;
  if (parts.meridiem) {
    if (hour < 1 || hour > 12) return null;
    if (parts.meridiem === "am" && hour === 12) hour = 0;
    if (parts.meridiem === "pm" && hour !== 12) hour += 12;
  }
  const minute = parts.minute ?? 0;
  const second = parts.second ?? 0;
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return null;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second) - (parts.offset ?? 0) * 60_000;
  // Date.UTC maps years 0-99 to 1900-1999; dateutil keeps 4-digit years only.
  if (year < 100) return null;
  return formatIso(ms, parts.fraction);
}

function parseOffset(text: string): number | undefined {
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(text);
  if (!m) return undefined;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  if (minutes > 18 * 60) return undefined;
  return m[1] === "-" ? -minutes : minutes;
}

const ISO_RE =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}:?\d{2}|[A-Za-z]{1,5})?$/;

function parseIso(text: string, now: Date): string | null | undefined {
  const m = ISO_RE.exec(text);
  if (!m) return undefined;
  let offset: number | undefined;
  if (m[8]) {
    offset = ZONE_OFFSETS[m[8].toLowerCase()] ?? parseOffset(m[8]);
    if (offset === undefined) return null;
  }
  return fromParts(
    {
      year: Number(m[1]),
      month: Number(m[2]),
      day: Number(m[3]),
      hour: m[4] === undefined ? undefined : Number(m[4]),
      minute: m[5] === undefined ? undefined : Number(m[5]),
      second: m[6] === undefined ? undefined : Number(m[6]),
      fraction: m[7],
      offset,
    },
    now,
  );
}

/** Word-by-word parsing of free-form dates ("Jun 5th 2017, 10:30PM"). */
function parseWords(text: string, now: Date): string | null {
  const parts: Parts = {};
  const numbers: number[] = [];
  const tokens = text
    .toLowerCase()
    .replace(/(\d)(am|pm|a\.m\.|p\.m\.)\b/g, "$1 $2")
    .split(/[\s,]+/)
    .filter((t) => t !== "" && t !== "at" && t !== "on" && t !== "of");
  for (const token of tokens) {
    const time = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?$/.exec(token);
    if (time) {
      if (parts.hour !== undefined) return null;
      parts.hour = Number(time[1]);
      parts.minute = Number(time[2]);
      if (time[3] !== undefined) parts.second = Number(time[3]);
      parts.fraction = time[4];
      continue;
    }
    if (/^(am|pm|a\.m\.|p\.m\.)$/.test(token)) {
      parts.meridiem = token.startsWith("a") ? "am" : "pm";
      continue;
    }
    const date = /^(\d{1,4})[/.-](\d{1,2})[/.-](\d{1,4})$/.exec(token);
    if (date) {
      const [a, b, c] = [Number(date[1]), Number(date[2]), Number(date[3])];
      // dateutil's default order: Y/M/D when the first part is a year, else M/D/Y.
      if (date[1]!.length === 4) Object.assign(parts, { year: a, month: b, day: c });
      else Object.assign(parts, { month: a, day: b, year: c < 100 ? 2000 + c : c });
      continue;
    }
    const month = MONTHS.findIndex((m) => token.startsWith(m));
    if (month !== -1 && /^[a-z.]+$/.test(token) && token.length <= 10) {
      if (parts.month !== undefined) return null;
      parts.month = month + 1;
      continue;
    }
    if (WEEKDAYS.some((d) => token.startsWith(d)) && /^[a-z.]+$/.test(token)) continue;
    const zone = ZONE_OFFSETS[token] ?? parseOffset(token);
    if (zone !== undefined && !/^\d+$/.test(token)) {
      parts.offset = zone;
      continue;
    }
    const number = /^(\d{1,4})(st|nd|rd|th)?$/.exec(token);
    if (number) {
      numbers.push(Number(number[1]));
      if (number[1]!.length === 4) {
        if (parts.year !== undefined) return null;
        parts.year = Number(number[1]);
        numbers.pop();
      }
      continue;
    }
    return null;
  }
  if (numbers.length > 2) return null;
  if (numbers.length === 1) {
    if (parts.day !== undefined) return null;
    parts.day = numbers[0];
  } else if (numbers.length === 2) {
    // Without a month name or 4-digit year this is ambiguous; dateutil reads "31 12" as D M.
    if (parts.month === undefined) {
      parts.day = numbers[0];
      parts.month = numbers[1];
    } else if (parts.year === undefined) {
      parts.day = numbers[0];
      parts.year = 2000 + numbers[1]!;
    } else return null;
  }
  if (
    parts.month === undefined &&
    parts.day === undefined &&
    parts.year === undefined &&
    parts.hour === undefined
  )
    return null;
  return fromParts(parts, now);
}

export function parseTimestamp(input: string, now: Date = new Date()): string | null {
  const text = input.trim();
  if (text === "") return null;
  if (/^-?\d+(\.\d+)?$/.test(text)) {
    const [whole, fraction] = text.split(".");
    const seconds = Number(whole);
    if (!Number.isSafeInteger(seconds)) return null;
    return formatIso(seconds * 1000, fraction && /[1-9]/.test(fraction) ? fraction : undefined);
  }
  const iso = parseIso(text, now);
  if (iso !== undefined) return iso;
  return parseWords(text, now);
}
