/**
 * What the caller called an input field that kasir renamed before validation (the spec's `image` filled into a
 * model's `image_url`, say), so that every error names the field the caller sent, not the internal name.
 */

const renamed = new WeakMap<object, Map<string, string>>();

/** Records that `input[internal]` holds what the caller sent as `caller`. */
export function recordCallerName(input: object, internal: string, caller: string): void {
  let names = renamed.get(input);
  if (!names) {
    names = new Map();
    renamed.set(input, names);
  }
  names.set(internal, caller);
}

/** `field` (or a path under it: `image_urls[0]`, `a.b`) as the caller named it. */
export function callerField(input: object, field: string): string {
  const names = renamed.get(input);
  if (!names) return field;
  const head = /^[^.[]+/.exec(field)?.[0] ?? field;
  const caller = names.get(head);
  return caller === undefined ? field : `${caller}${field.slice(head.length)}`;
}
