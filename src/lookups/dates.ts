/** Calendar dates without time zones: validation, day arithmetic and "today" at a UTC offset. */

export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

/** Whether year-month-day names a day that exists (30 February does not). */
export function isRealDate(year: number, month: number, day: number): boolean {
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day)) return false;
  if (month < 1 || month > 12 || day < 1) return false;
  const probe = new Date(Date.UTC(year, month - 1, day));
  probe.setUTCFullYear(year); // Date.UTC maps years 0-99 to 1900-1999
  return probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

/** Parses YYYY-MM-DD; undefined when malformed or not a real date. */
export function parseIsoDate(text: string): CalendarDate | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return undefined;
  const date = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  return isRealDate(date.year, date.month, date.day) ? date : undefined;
}

export function formatIsoDate({ year, month, day }: CalendarDate): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

export function addDays(date: CalendarDate, days: number): CalendarDate {
  const t = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

/** The calendar date at UTC offset `utcOffsetHours` at the instant `now`. */
export function dateAtOffset(utcOffsetHours: number, now: Date = new Date()): CalendarDate {
  const t = new Date(now.getTime() + utcOffsetHours * 3_600_000);
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

export function compareDates(a: CalendarDate, b: CalendarDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}
