/** Times in the person's own time zone and clock (12 or 24 hours, their setting). */
const formats = new Map<string, Intl.DateTimeFormat>();
function format(key: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  let found = formats.get(key);
  if (!found) formats.set(key, (found = new Intl.DateTimeFormat(undefined, options)));
  return found;
}

export const timeOfDay = (seconds: number, twentyFour: boolean) =>
  format(twentyFour ? "t24" : "t12", { hour: "numeric", minute: "2-digit", hour12: !twentyFour }).format(
    seconds * 1000,
  );

export const fullDate = (seconds: number, twentyFour: boolean) =>
  format(twentyFour ? "f24" : "f12", {
    weekday: "long",
    year: "numeric",
    month: "long",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    hour12: !twentyFour,
  }).format(seconds * 1000);

export function dayLabel(seconds: number): string {
  const date = new Date(seconds * 1000);
  const today = new Date();
  const yesterday = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1);
  if (date.toDateString() === today.toDateString()) return "Today";
  if (date.toDateString() === yesterday.toDateString()) return "Yesterday";
  return format(date.getFullYear() === today.getFullYear() ? "day" : "dayYear", {
    weekday: "short",
    month: "short",
    day: "numeric",
    ...(date.getFullYear() === today.getFullYear() ? {} : { year: "numeric" }),
  }).format(date);
}

export const dayOf = (seconds: number) => new Date(seconds * 1000).toDateString();
