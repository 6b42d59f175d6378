/** Start-up checks that a price rule fits its input schema: the fields it reads exist, every tier has a rate, every amount has a ceiling. */
import { schemaCeiling } from './price-rules.js';
import type { DurationSpec, JsonSchema, PriceRule, RateTable } from './types.js';

export interface RuleProblem {
  /** Where in the entry, e.g. `price.rate.rates.720p.by`. */
  field: string;
  problem: string;
}

type Props = Record<string, JsonSchema>;

/** The values a selector field can take, as rate-table keys; undefined when the schema does not enumerate them. */
function allowedKeys(prop: JsonSchema): string[] | undefined {
  if (Array.isArray(prop.enum)) return prop.enum.map((v) => String(v));
  if (prop.type === 'boolean') return ['true', 'false'];
  const branch = (prop.anyOf as JsonSchema[] | undefined)?.find((b) => Array.isArray(b.enum));
  return branch ? (branch.enum as unknown[]).map((v) => String(v)) : undefined;
}

function checkTable(table: RateTable, path: string, props: Props, out: RuleProblem[]): void {
  if (typeof table === 'number') return;
  const prop = props[table.by];
  if (!prop) {
    out.push({
      field: `${path}.by`,
      problem: `selects by "${table.by}", which is not an input of this model`,
    });
    return;
  }
  const allowed = allowedKeys(prop);
  if (allowed) {
    const missing = allowed.filter((v) => table.rates[v] === undefined);
    if (missing.length && table.rates['*'] === undefined) {
      out.push({ field: `${path}.rates`, problem: `has no rate for ${table.by} = ${missing.join(', ')}` });
    }
    const unknown = Object.keys(table.rates).filter(
      (k) => k !== '*' && !k.startsWith('(') && !allowed.includes(k),
    );
    if (unknown.length) {
      out.push({
        field: `${path}.rates`,
        problem: `has rates for ${table.by} = ${unknown.join(', ')}, which the schema does not allow`,
      });
    }
  }
  for (const [k, sub] of Object.entries(table.rates)) checkTable(sub, `${path}.rates.${k}`, props, out);
}

function needInput(field: string | undefined, path: string, props: Props, out: RuleProblem[]): void {
  if (field !== undefined && !props[field]) {
    out.push({ field: path, problem: `names "${field}", which is not an input of this model` });
  }
}

function checkDuration(spec: DurationSpec, path: string, props: Props, out: RuleProblem[]): void {
  if (spec.fixedSeconds) return;
  needInput(spec.field, `${path}.field`, props, out);
  needInput(spec.framesField, `${path}.framesField`, props, out);
  if (!spec.field && !spec.framesField) {
    out.push({ field: path, problem: 'needs field, framesField or fixedSeconds' });
    return;
  }
  const ceiling = spec.field
    ? (schemaCeiling(props[spec.field]) ?? spec.ceilingSeconds)
    : schemaCeiling(props[spec.framesField ?? '']);
  if (ceiling === undefined) {
    out.push({
      field: path,
      problem: 'has no ceiling: give the input an enum or a maximum, or set ceilingSeconds',
    });
  }
}

function checkCount(fields: string[] | undefined, path: string, props: Props, out: RuleProblem[]): void {
  (fields ?? []).forEach((f, i) => {
    needInput(f, `${path}[${i}]`, props, out);
    if (props[f] && schemaCeiling(props[f]) === undefined) {
      out.push({ field: `${path}[${i}]`, problem: `"${f}" needs a maximum so a quote has a ceiling` });
    }
  });
}

/** Every problem of one rule against its input schema (empty when the rule fits). */
export function ruleProblems(rule: PriceRule, schema: JsonSchema): RuleProblem[] {
  const props = ((schema.properties ?? {}) as Props) ?? {};
  const out: RuleProblem[] = [];
  if ('rate' in rule) checkTable(rule.rate, 'price.rate', props, out);
  switch (rule.kind) {
    case 'per_image':
      checkCount(rule.count, 'price.count', props, out);
      (rule.extras ?? []).forEach((x, i) => {
        needInput(x.field, `price.extras[${i}].field`, props, out);
      });
      break;
    case 'per_megapixel':
      checkCount(rule.count, 'price.count', props, out);
      if ('field' in rule.size) needInput(rule.size.field, 'price.size.field', props, out);
      break;
    case 'per_second':
    case 'per_minute':
      checkDuration(rule.duration, 'price.duration', props, out);
      break;
    case 'video_tokens': {
      checkDuration(rule.duration, 'price.duration', props, out);
      needInput(rule.resolutionField, 'price.resolutionField', props, out);
      needInput(rule.aspectRatioField, 'price.aspectRatioField', props, out);
      const resolutions = props[rule.resolutionField]
        ? allowedKeys(props[rule.resolutionField] as JsonSchema)
        : undefined;
      const missing = (resolutions ?? []).filter((r) => !rule.pixels[r]);
      if (missing.length)
        out.push({ field: 'price.pixels', problem: `has no pixel sizes for ${missing.join(', ')}` });
      break;
    }
    case 'per_character':
      needInput(rule.field, 'price.field', props, out);
      break;
    default:
      break;
  }
  return out;
}
