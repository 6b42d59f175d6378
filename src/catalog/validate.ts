/**
 * Input validation with ajv: one compiled validator per entry schema, and ajv errors turned into one clear message per
 * field (a property's own `errorMessage`, when its schema states one).
 */
import { Ajv, type ErrorObject, type Options, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import type { FieldError } from '../http/errors.js';
import type { JsonSchema } from './types.js';

/** A URL kasir can fetch, or an inline `data:` URI. */
const URL_OR_DATA_URI =
  /^(https?:\/\/[^\s]+|data:[\w.+-]+\/[\w.+-]+(;[\w.+-]+=[\w.+-]+)*;base64,[A-Za-z0-9+/]+=*)$/;
/** Bare base64, accepted only by fields whose name says base64 (image_base64, audio_base64, …). */
const BARE_BASE64 = /^[A-Za-z0-9+/]+=*$/;

export function isFileRef(value: string, field: string | number | undefined): boolean {
  if (URL_OR_DATA_URI.test(value)) return true;
  return (
    typeof field === 'string' && field.includes('base64') && value.length >= 8 && BARE_BASE64.test(value)
  );
}

/** Arrays of strings whose lengths add up to at most the keyword's value (embed: 32,000 characters per call). */
const maxTotalChars: SchemaValidateFunction = (max: number, data: unknown[]) => {
  const total = data.reduce<number>((n, v) => n + (typeof v === 'string' ? v.length : 0), 0);
  maxTotalChars.errors = total <= max ? [] : [{ keyword: 'maxTotalChars', params: { limit: max } }];
  return total <= max;
};

function createAjv(coerceTypes: boolean): Ajv {
  const options: Options = {
    allErrors: true,
    useDefaults: true,
    coerceTypes,
    strict: true,
    strictTypes: false,
    strictRequired: false,
    allowUnionTypes: true,
  };
  const ajv = new Ajv(options);
  ajv.addKeyword({
    keyword: 'fileRef',
    type: 'string',
    schemaType: 'boolean',
    validate: (
      enabled: boolean,
      data: string,
      _schema?: unknown,
      ctx?: { parentDataProperty: string | number },
    ) => !enabled || isFileRef(data, ctx?.parentDataProperty),
  });
  // An annotation: the message a property's failures are reported with (see formatErrors).
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: ['string', 'object'] });
  ajv.addKeyword({
    keyword: 'maxTotalChars',
    type: 'array',
    schemaType: 'number',
    errors: true,
    validate: maxTotalChars,
  });
  return ajv;
}

/**
 * Two compilers: request bodies are JSON and keep their types; /v1/price query strings are coerced to the schema
 * types first (so `duration=5` is the number 5 where the schema says number, and stays "5" where it says string).
 */
export class Validators {
  // Each compiler is made on its first schema: many processes never coerce a query string.
  private strict: Ajv | undefined;
  private coercing: Ajv | undefined;
  // Identical schemas (every chat model of one shape) share one compiled function.
  private readonly strictBySchema = new Map<string, ValidateFunction>();
  private readonly coercingBySchema = new Map<string, ValidateFunction>();

  /** Compiles a schema for JSON bodies; throws ajv's message when the schema itself is bad. */
  compile(schema: JsonSchema): ValidateFunction {
    this.strict ??= createAjv(false);
    return this.cached(this.strict, this.strictBySchema, schema);
  }

  /** Compiles (once, on first use) the coercing variant of a schema, for query parameters. */
  compileCoercing(schema: JsonSchema): ValidateFunction {
    this.coercing ??= createAjv(true);
    return this.cached(this.coercing, this.coercingBySchema, schema);
  }

  private cached(ajv: Ajv, cache: Map<string, ValidateFunction>, schema: JsonSchema): ValidateFunction {
    const key = JSON.stringify(schema);
    let fn = cache.get(key);
    if (!fn) {
      fn = ajv.compile(schema);
      cache.set(key, fn);
    }
    return fn;
  }
}

// ---------------------------------------------------------------------------------------------- error messages

/** `/messages/0/content` → `messages[0].content`. */
export function fieldName(instancePath: string, child?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out || '(body)';
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean (true or false)',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

const MAX_LISTED = 12;

function listValues(values: unknown[]): string {
  const shown = values.slice(0, MAX_LISTED).map((v) => JSON.stringify(v));
  const more = values.length > MAX_LISTED ? `, … (${values.length} in all; see /v1/schema)` : '';
  return shown.join(', ') + more;
}

function messageOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'type': {
      const types = Array.isArray(p.type) ? p.type : String(p.type).split(',');
      return `must be ${types
        .filter((t: string) => t !== 'null')
        .map((t: string) => ARTICLE[t] ?? t)
        .join(' or ')}`;
    }
    case 'enum':
      return `must be one of: ${listValues(p.allowedValues as unknown[])}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'minimum':
      return `must be ≥ ${p.limit}`;
    case 'maximum':
      return `must be ≤ ${p.limit}`;
    case 'exclusiveMinimum':
      return `must be > ${p.limit}`;
    case 'exclusiveMaximum':
      return `must be < ${p.limit}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters`;
    case 'maxLength':
      return `must be at most ${p.limit} characters`;
    case 'minItems':
      return `must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `must have at most ${p.limit} items`;
    case 'pattern':
      return `has the wrong format (must match ${p.pattern})`;
    case 'format':
      return `must be a valid ${p.format}`;
    case 'fileRef':
      return 'must be an http(s) URL or a base64 data: URI (upload large files to POST /v1/media first)';
    case 'maxTotalChars':
      return `must total at most ${p.limit} characters`;
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not allowed here';
    default:
      return e.message ?? 'is invalid';
  }
}

/** The schema at a JSON pointer (`#/properties/lat`) inside `root`. */
function schemaAt(root: JsonSchema, pointer: string): JsonSchema | undefined {
  let at: unknown = root;
  for (const part of pointer.replace(/^#\/?/, '').split('/')) {
    if (part === '') continue;
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return at !== null && typeof at === 'object' ? (at as JsonSchema) : undefined;
}

/**
 * The message the schema states for this failure: the failing property's `errorMessage`, a string for any failure
 * or messages by keyword (`*` for the others). A missing property's is its own schema's.
 */
function statedMessage(e: ErrorObject, root: JsonSchema | undefined): string | undefined {
  if (!root) return undefined;
  const parent = e.schemaPath.slice(0, e.schemaPath.lastIndexOf('/'));
  const pointer =
    e.keyword === 'required'
      ? `${parent}/properties/${String((e.params as { missingProperty: unknown }).missingProperty)}`
      : parent;
  const stated = schemaAt(root, pointer)?.errorMessage;
  if (typeof stated === 'string') return stated;
  if (stated === null || typeof stated !== 'object') return undefined;
  const byKeyword = stated as Record<string, unknown>;
  const message = byKeyword[e.keyword] ?? byKeyword['*'];
  return typeof message === 'string' ? message : undefined;
}

function fieldOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'required') return fieldName(e.instancePath, String(p.missingProperty));
  if (e.keyword === 'additionalProperties') return fieldName(e.instancePath, String(p.additionalProperty));
  return fieldName(e.instancePath);
}

/** One `anyOf` failure, with the errors of its branches, as field errors a caller can act on. */
function explainAnyOf(e: ErrorObject, branchErrors: ErrorObject[]): FieldError[] {
  if (branchErrors.length > 0 && branchErrors.every((b) => b.keyword === 'required')) {
    const names = [
      ...new Set(branchErrors.map((b) => String((b.params as { missingProperty: unknown }).missingProperty))),
    ];
    return [{ field: fieldName(e.instancePath, names[0]), message: `send ${names.join(' or ')}` }];
  }
  const byBranch = new Map<string, ErrorObject[]>();
  for (const b of branchErrors) {
    const branch = b.schemaPath.slice(e.schemaPath.length + 1).split('/')[0] ?? '';
    byBranch.set(branch, [...(byBranch.get(branch) ?? []), b]);
  }
  // A branch whose type matched the value says what is actually wrong with it.
  const matched = [...byBranch.values()].find(
    (errs) => !errs.some((b) => b.keyword === 'type' && b.instancePath === e.instancePath),
  );
  if (matched) return formatErrors(matched);
  const messages = [...new Set(branchErrors.map(messageOf))];
  return [{ field: fieldName(e.instancePath), message: messages.join(', or ') }];
}

/** When one field fails several ways, the most useful message wins: a list of allowed values over a bare type. */
function rank(keyword: string): number {
  if (keyword === 'enum' || keyword === 'const') return 0;
  return keyword === 'type' ? 2 : 1;
}

/**
 * ajv errors → `{ field, message }`, one per field, fields named as JSON paths (`messages[0].content`, `duration`),
 * sorted by field so the answer is stable. Given the validated `schema`, a property's `errorMessage` wins.
 */
export function formatErrors(errors: ErrorObject[] | null | undefined, schema?: JsonSchema): FieldError[] {
  const list = (errors ?? []).filter((e) => e.keyword !== 'if');
  const anyOfs = list.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const consumed = new Set<ErrorObject>();
  const out: Array<FieldError & { rank: number }> = [];
  for (const a of anyOfs) {
    const branch = list.filter((b) => b !== a && b.schemaPath.startsWith(`${a.schemaPath}/`));
    for (const b of branch) consumed.add(b);
    consumed.add(a);
    for (const f of explainAnyOf(a, branch)) out.push({ ...f, rank: 1 });
  }
  for (const e of list) {
    if (consumed.has(e)) continue;
    const message = statedMessage(e, schema) ?? messageOf(e);
    out.push({ field: fieldOf(e), message, rank: rank(e.keyword) });
  }
  out.sort((a, b) => a.field.localeCompare(b.field) || a.rank - b.rank);
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const { field, message } of out) {
    if (seen.has(field)) continue;
    seen.add(field);
    result.push({ field, message });
  }
  return result;
}
